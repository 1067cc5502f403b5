// Pure era bridging for the upstream side (README, Protocol eras: bridging).
// Modern upstreams get the per-request _meta keys; legacy upstreams get none of the
// reserved io.modelcontextprotocol/* keys (progressToken, trace and custom keys stay).
import { GATEWAY_CLIENT_INFO } from '../protocol/implementation.ts';
import type { JsonObject, JsonRpcErrorObject, JsonRpcNotification } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { type UpstreamEvent, type UpstreamIdentity, type UpstreamRequest } from './upstream.ts';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, RESERVED_META_PREFIX } from '../protocol/meta-keys.ts';
import { LEGACY_VERSION, MODERN_VERSION, type Era } from '../protocol/versions.ts';
import { TASKS_EXTENSION } from '../tasks/task-shapes.ts';
import type { GatewayError } from '../protocol/errors.ts';
import { err, ok, type Result } from '../protocol/result.ts';



/** Capabilities translated for a modern upstream: `tasks` is legacy-only core, roots loses listChanged. */
function modernCapabilities(caps: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(caps)) {
    if (k === 'tasks') continue;
    out[k] = k === 'roots' ? {} : v;
  }
  return out;
}

export function shapeParams(req: UpstreamRequest, era: Era): JsonObject {
  const given = req.params._meta;
  // The common legacy call carries no _meta: nothing to strip, send the params as they are.
  if (given === undefined && era === 'legacy') return req.params;
  const meta = isJsonObject(given) ? given : {};
  const outMeta: JsonObject = {};
  let metaKeys = 0;
  for (const k in meta) {
    if (!k.startsWith(RESERVED_META_PREFIX)) {
      outMeta[k] = meta[k]!;
      metaKeys++;
    }
  }
  if (era === 'modern') {
    outMeta[META_PROTOCOL_VERSION] = MODERN_VERSION;
    outMeta[META_CLIENT_CAPABILITIES] = modernCapabilities(req.clientCapabilities);
    outMeta[META_CLIENT_INFO] = req.clientInfo ?? GATEWAY_CLIENT_INFO;
    const logLevel = meta['io.modelcontextprotocol/logLevel'];
    if (typeof logLevel === 'string') outMeta['io.modelcontextprotocol/logLevel'] = logLevel;
    metaKeys++;
  }
  // Copied without _meta rather than copied and deleted from (delete slows the object down).
  const { _meta: _dropped, ...params } = req.params;
  if (metaKeys > 0) params._meta = outMeta;
  return params;
}

export function discoverParams(): JsonObject {
  return {
    _meta: {
      [META_PROTOCOL_VERSION]: MODERN_VERSION,
      [META_CLIENT_CAPABILITIES]: {},
      [META_CLIENT_INFO]: GATEWAY_CLIENT_INFO,
    },
  };
}

/** Whether the upstream advertises list-change notifications of `key` (tools, prompts, resources). */
export function advertisesListChanged(caps: JsonObject, key: string): boolean {
  const c = caps[key];
  return isJsonObject(c) && c.listChanged === true;
}

/** What the gateway's own listen to a 2026-07-28 upstream asks for, whatever the transport
 * (MCP 2026-07-28, basic/patterns/subscriptions): the list changes `caps` advertises (none
 * when `caps` is {}), and the watched URIs and task ids. Task status needs the tasks
 * extension declared on this very request (io.modelcontextprotocol/tasks, "Task Status
 * Notifications"). */
export function listenParams(caps: JsonObject, watched: { resourceSubscriptions?: string[]; taskIds?: string[] }): JsonObject {
  const params = discoverParams();
  if (watched.taskIds) params._meta = { ...(params._meta as JsonObject), [META_CLIENT_CAPABILITIES]: { extensions: { [TASKS_EXTENSION]: {} } } };
  const notifications: JsonObject = {
    toolsListChanged: advertisesListChanged(caps, 'tools'),
    promptsListChanged: advertisesListChanged(caps, 'prompts'),
    resourcesListChanged: advertisesListChanged(caps, 'resources'),
  };
  if (watched.resourceSubscriptions) notifications.resourceSubscriptions = watched.resourceSubscriptions;
  if (watched.taskIds) notifications.taskIds = watched.taskIds;
  return { ...params, notifications };
}

/** What a 2025-11-25 client (or the gateway) asks of a resource, which 2026-07-28 asks on a listen. */
export const WATCH_METHODS: ReadonlySet<string> = new Set(['resources/subscribe', 'resources/unsubscribe']);

/** 2026-07-28 has no resources/subscribe: the URI joins (or leaves) `watched`, the
 * resourceSubscriptions of the upstream's listen, which `reopen` opens again with them
 * (README, Protocol eras: bridging). */
export function watchResource(watched: Set<string>, method: string, params: JsonObject, reopen: () => void): Result<JsonObject, GatewayError> {
  const uri = params.uri;
  if (typeof uri !== 'string') return err({ kind: 'invalid_params', message: `${method} needs a string "uri"` });
  const changed = method === 'resources/subscribe' ? !watched.has(uri) && watched.add(uri).has(uri) : watched.delete(uri);
  if (changed) reopen();
  return ok({});
}

/**
 * A legacy upstream session shared by every client declares everything the gateway can relay
 * to one (MCP 2025-11-25 client features: sampling, elicitation in form and URL mode, roots
 * without list-change notifications); a request for a client that did not declare the
 * capability is refused at once (server-request-answer.ts; README, Protocol eras). A session
 * that serves one client alone (`session: perClient`) declares what that client declared
 * (`capabilities`, from relayableCapabilities), so the upstream knows what it may ask.
 */
export function initializeParams(capabilities: JsonObject = LEGACY_CLIENT_CAPABILITIES): JsonObject {
  return { protocolVersion: LEGACY_VERSION, capabilities, clientInfo: GATEWAY_CLIENT_INFO };
}

const LEGACY_CLIENT_CAPABILITIES: JsonObject = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

/** The part of a 2025-11-25 client's capabilities the gateway relays for it: sampling,
 * elicitation and roots as declared, except roots' listChanged (the gateway does not pass
 * notifications/roots/list_changed on). Experimental and task capabilities are not relayed. */
export function relayableCapabilities(caps: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (isJsonObject(caps.sampling)) out.sampling = caps.sampling;
  if (isJsonObject(caps.elicitation)) out.elicitation = caps.elicitation;
  if (isJsonObject(caps.roots)) out.roots = {};
  return out;
}

export function identityFromDiscover(result: JsonObject): UpstreamIdentity {
  const meta = isJsonObject(result._meta) ? result._meta : {};
  const serverInfo = meta['io.modelcontextprotocol/serverInfo'];
  return {
    capabilities: isJsonObject(result.capabilities) ? result.capabilities : {},
    ...(isJsonObject(serverInfo) ? { serverInfo } : {}),
    ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
  };
}

export function identityFromInitialize(result: JsonObject): UpstreamIdentity {
  return {
    capabilities: isJsonObject(result.capabilities) ? result.capabilities : {},
    ...(isJsonObject(result.serverInfo) ? { serverInfo: result.serverInfo } : {}),
    ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
  };
}

/**
 * Is this error from a server that speaks the modern era (MCP 2026-07-28, basic/versioning (backwards compatibility))? A recognised
 * modern error means "modern: fix the request", anything else means "fall back to legacy".
 */
export function isModernError(e: JsonRpcErrorObject | undefined): boolean {
  if (!e) return false;
  if (e.code === -32022) {
    const data = isJsonObject(e.data) ? e.data : {};
    return Array.isArray(data.supported) && data.supported.includes(MODERN_VERSION);
  }
  return e.code === -32020 || e.code === -32021;
}

export function eventFromNotification(n: JsonRpcNotification): UpstreamEvent | undefined {
  switch (n.method) {
    case 'notifications/tools/list_changed':
      return { type: 'list_changed', list: 'tools' };
    case 'notifications/prompts/list_changed':
      return { type: 'list_changed', list: 'prompts' };
    case 'notifications/resources/list_changed':
      return { type: 'list_changed', list: 'resources' };
    case 'notifications/resources/updated': {
      const uri = n.params?.uri;
      return typeof uri === 'string' ? { type: 'resource_updated', uri } : undefined;
    }
    case 'notifications/tasks/status':
    case 'notifications/tasks': {
      const task = n.params;
      const era = n.method === 'notifications/tasks' ? 'modern' : 'legacy';
      return isJsonObject(task) && typeof task.taskId === 'string' ? { type: 'task_status', task, era } : undefined;
    }
    default:
      return undefined;
  }
}
