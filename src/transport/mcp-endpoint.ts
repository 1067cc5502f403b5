// The /mcp endpoint, serving both live eras on one URL (MCP 2026-07-28, basic/versioning, docs/architecture.md §2): a POST
// with `initialize` or a known Mcp-Session-Id is 2025-11-25 (legacy, sessions); any other
// POST is 2026-07-28 (modern, stateless, checked per request). GET and DELETE exist only
// for legacy sessions.
import type { GatewayConfig } from '../config/types.ts';
import type { Authenticate } from '../identity/authenticate.ts';
import type { Principal } from '../identity/principal.ts';
import type { Call } from '../protocol/call.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { Observer } from '../http/observer.ts';
import { type Gateway } from '../mcp/method-table.ts';
import { ALL_SUPPORTED_VERSIONS, SUPPORTED_LEGACY_VERSIONS, SUPPORTED_MODERN_VERSIONS } from '../protocol/versions.ts';
import type { HeaderLookup } from '../headers/param-headers.ts';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest, RequestId } from '../protocol/message.ts';
import { isJsonObject, isNotification, isRequest, isResponse } from '../protocol/message.ts';
import { parseMessage } from '../protocol/parse.ts';
import { ok } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import { META_LOG_LEVEL } from '../protocol/meta-keys.ts';
import { LEGACY_VERSION } from '../protocol/versions.ts';
import { ClientRequests } from './client-requests.ts';
import { checkHeaderLimits, checkOrigin } from './http-guards.ts';
import type { HttpReply, HttpRequest, TextReply } from './http-io.ts';
import { sealedOwner, type LegacySession, type LegacySessions } from './legacy-sessions.ts';
import { openLegacyStream, openListenStream } from './listen-streams.ts';
import { checkModernRequest } from './modern-checks.ts';
import { withSessionLogLevel } from './request-notifications.ts';
import type { Notifier } from './notifier.ts';
import { dispatch, emptyReply, errorResponse, jsonResponse } from './respond.ts';
import { GATEWAY_SERVER_INFO } from './era-result.ts';

export interface EndpointDeps {
  config: GatewayConfig;
  gateway: Gateway;
  sessions: LegacySessions;
  notifier: Notifier;
  logger: Logger;
  authenticate: Authenticate;
  observer: Observer;
}

const SESSION_HEADER = 'mcp-session-id';
/** `application/json` with optional parameters; not `application/json-seq` and the like. */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;
/** initialize is answered here: never cancelled, no notifications. */
const NEVER_ABORTED = new AbortController().signal;
const NO_NOTIFICATIONS = (): void => undefined;

function isRefusal(s: LegacySession | TextReply | undefined): s is TextReply {
  return s !== undefined && 'status' in s;
}

export function createMcpEndpoint(deps: EndpointDeps): (req: HttpRequest) => Promise<HttpReply> {
  const { config, gateway, sessions, notifier, observer, logger } = deps;
  // A session that ends here (DELETE, idle) takes its GET streams with it; one with a GET
  // stream open is in use, so it does not go idle.
  sessions.onRemoved((id) => notifier.closeSession(id));
  sessions.busyWhile((id) => notifier.hasStream(id));
  /** Legacy in-flight requests by session, then id (ids are strings or integers, so 1 and "1"
   * stay apart), so notifications/cancelled can abort them. */
  const inflight = new Map<string, Map<RequestId, AbortController>>();
  const clientRequests = new ClientRequests();

  const guard = (req: HttpRequest): TextReply | undefined => {
    const origin = checkOrigin(req.header('origin'), config.allowedOrigins);
    if (!origin.ok) return errorResponse(origin.error, undefined, true);
    const limits = checkHeaderLimits(req.rawHeaders, config.limits.maxHeaderCount, config.limits.maxHeaderBytes);
    if (!limits.ok) return errorResponse(limits.error, undefined, true);
    return undefined;
  };

  /** A session belongs to the principal that initialized it: anyone else gets the same 404
   * as for an unknown id, so ids cannot be probed or borrowed. */
  const lookupSession = (req: HttpRequest, principal: Principal): LegacySession | TextReply | undefined => {
    const id = req.header(SESSION_HEADER);
    if (id === undefined) return undefined;
    const session = sessions.get(id.trim());
    if (session && session.owner === sealedOwner(principal.authContext)) return session;
    return errorResponse({ kind: 'session_not_found' }, undefined, false);
  };

  async function post(req: HttpRequest, principal: Principal): Promise<HttpReply> {
    const contentType = req.header('content-type');
    if (contentType !== undefined && !JSON_CONTENT_TYPE.test(contentType)) {
      return errorResponse({ kind: 'unsupported_media_type', contentType: contentType.slice(0, 100) }, undefined, true);
    }
    const body = await req.readBody(config.limits.maxBodyBytes);
    // The rest of an oversized body is not worth reading: the connection closes after the 413.
    if (!body.ok) return errorResponse(body.error, undefined, true, body.error.kind === 'body_too_large' ? { connection: 'close' } : undefined);
    const parsed = parseMessage(body.value);
    if (!parsed.ok) return errorResponse(parsed.error.error, parsed.error.id, true);
    const msg = parsed.value;
    const headers: HeaderLookup = req.header;
    const session = lookupSession(req, principal);
    if (isRefusal(session)) {
      // Only a known session id selects legacy (MCP 2026-07-28, basic/transports/streamable-http (request headers) era dispatch). A stale one on a
      // request that names a modern version is ignored, as 2026-07-28 servers do (b.6); any
      // other request with an unknown id gets 2025-11-25's 404, which tells it to re-initialize.
      if (!SUPPORTED_MODERN_VERSIONS.includes(headers('mcp-protocol-version')?.trim() ?? '')) return session;
      // `return await` below: an async function returning a promise takes one more microtask turn.
    } else if (session) return await legacyMessage(msg, session, headers, principal);
    if (isRequest(msg) && msg.method === 'initialize') return await initialize(msg, headers, principal);
    return await modernMessage(req, msg, headers, principal);
  }

  /** 2025-11-25 initialize: seals the session into its id. Admitted, traced and audited like
   * any other request, since it is one. */
  async function initialize(msg: JsonRpcRequest, headers: HeaderLookup, principal: Principal): Promise<TextReply> {
    const p = msg.params ?? {};
    const clientInfo = isJsonObject(p.clientInfo) ? p.clientInfo : undefined;
    const info = { method: msg.method, era: 'legacy' as const, rpcId: msg.id, headers, principal };
    const admitted = observer.admit();
    if (!admitted.ok) return refuse(info, admitted.error, msg.id, false);
    const requested = typeof p.protocolVersion === 'string' ? p.protocolVersion : LEGACY_VERSION;
    // Version negotiation of 2025-11-25: answer with the client's version when we speak it.
    const version = SUPPORTED_LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSION;
    const caps = isJsonObject(p.capabilities) ? p.capabilities : {};
    const created = sessions.create(version, caps, clientInfo, principal.authContext);
    if (!created.ok) return refuse(info, created.error, msg.id, false);
    const session = created.value;
    const instructions = gateway.instructions();
    const result: JsonObject = {
      protocolVersion: version,
      capabilities: { ...gateway.capabilities(), logging: {} },
      serverInfo: GATEWAY_SERVER_INFO,
      ...(instructions ? { instructions } : {}),
    };
    const reply = jsonResponse(200, { jsonrpc: '2.0', id: msg.id, result }, { 'mcp-session-id': session.id });
    const observation = observer.begin({ method: msg.method, era: 'legacy', rpcId: msg.id, headers, protocolVersion: version, sessionId: session.id });
    const call: Call = {
      era: 'legacy',
      id: msg.id,
      method: msg.method,
      params: p,
      protocolVersion: version,
      clientCapabilities: caps,
      ...(clientInfo ? { clientInfo } : {}),
      principal,
      authContext: principal.authContext,
      headers,
      signal: NEVER_ABORTED,
      notify: NO_NOTIFICATIONS,
      requestId: observation.requestId,
    };
    // As for every call: unrecorded, the session id does not leave (fail-closed audit).
    const finished = observer.finish(call, ok(result), observation, Buffer.byteLength(reply.body!));
    if (finished !== true && !(await finished)) return errorResponse({ kind: 'audit_unavailable' }, msg.id, false);
    return reply;
  }

  function legacyMessage(msg: JsonRpcMessage, session: LegacySession, headers: HeaderLookup, principal: Principal): HttpReply | Promise<HttpReply> {
    const version = headers('mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_LEGACY_VERSIONS.includes(version.trim())) {
      return errorResponse({ kind: 'unsupported_version', requested: version.trim(), supported: ALL_SUPPORTED_VERSIONS }, undefined, false);
    }
    if (!isRequest(msg)) {
      if (isNotification(msg)) {
        if (msg.method === 'notifications/cancelled') {
          const requestId = msg.params?.requestId;
          if (typeof requestId === 'string' || typeof requestId === 'number') inflight.get(session.id)?.get(requestId)?.abort();
        }
      } else if (isResponse(msg)) {
        // The answer to a request the gateway sent on a call's stream (elicitation).
        clientRequests.answer(session.id, msg);
      }
      // Responses to server requests and other notifications are accepted (202, MCP 2026-07-28, basic/transports/streamable-http (responses)).
      return emptyReply(202);
    }
    if (msg.method === 'initialize') {
      return errorResponse({ kind: 'invalid_request', message: 'session already initialized' }, msg.id, false);
    }
    if (msg.method === 'logging/setLevel' && typeof msg.params?.level === 'string') sessions.setLogLevel(session.id, msg.params.level);
    const meta = isJsonObject(msg.params?._meta) ? msg.params._meta : undefined;
    const admitted = observer.admit();
    if (!admitted.ok) return refuse({ method: msg.method, era: 'legacy', rpcId: msg.id, headers, principal, ...(meta ? { meta } : {}) }, admitted.error, msg.id, false);
    const observation = observer.begin({ method: msg.method, era: 'legacy', rpcId: msg.id, headers, meta, protocolVersion: session.protocolVersion, sessionId: session.id });
    const abort = new AbortController();
    const sessionId = session.id;
    let calls = inflight.get(sessionId);
    if (calls === undefined) inflight.set(sessionId, (calls = new Map()));
    calls.set(msg.id, abort);
    const id = msg.id;
    const inSession = calls;
    // Legacy: a disconnect is not a cancel (MCP 2026-07-28, basic/patterns/cancellation); only notifications/cancelled is.
    return dispatch(
      gateway,
      {
        era: 'legacy',
        id: msg.id,
        method: msg.method,
        params: withSessionLogLevel(msg.params ?? {}, session.logLevel),
        protocolVersion: session.protocolVersion,
        clientCapabilities: session.clientCapabilities,
        ...(session.clientInfo ? { clientInfo: session.clientInfo } : {}),
        principal,
        authContext: principal.authContext,
        headers,
      },
      {
        signal: abort.signal,
        cancelOnDisconnect: false,
        abort,
        era: 'legacy',
        ...(session.logLevel === undefined ? {} : { logLevel: session.logLevel }),
        onDone: () => {
          inSession.delete(id);
          if (inSession.size === 0 && inflight.get(sessionId) === inSession) inflight.delete(sessionId);
        },
        logger,
        observer,
        observation,
        ...(isJsonObject(session.clientCapabilities.elicitation) ? { asker: { requests: clientRequests, sessionId: session.id } } : {}),
      },
    );
  }

  function modernMessage(req: HttpRequest, msg: JsonRpcMessage, headers: HeaderLookup, principal: Principal): HttpReply | Promise<HttpReply> {
    if (isNotification(msg)) return emptyReply(202);
    if (!isRequest(msg)) {
      return errorResponse({ kind: 'invalid_request', message: 'clients must not send responses in 2026-07-28' }, undefined, true);
    }
    const observeInfo = { method: msg.method, era: 'modern' as const, rpcId: msg.id, headers, principal, ...(isJsonObject(msg.params?._meta) ? { meta: msg.params._meta } : {}) };
    const checked = checkModernRequest(msg, headers, SUPPORTED_MODERN_VERSIONS, ALL_SUPPORTED_VERSIONS);
    if (!checked.ok) return refuse(observeInfo, checked.error, msg.id, true);
    if (msg.method === 'subscriptions/listen') return openListenStream(msg, notifier, principal);
    if (!gateway.knows(msg.method, 'modern')) return refuse(observeInfo, { kind: 'method_not_found', method: msg.method }, msg.id, true);
    const admitted = observer.admit();
    if (!admitted.ok) return refuse(observeInfo, admitted.error, msg.id, true);
    const observation = observer.begin({ method: msg.method, era: 'modern', rpcId: msg.id, headers, meta: observeInfo.meta, protocolVersion: checked.value.protocolVersion });
    const abort = new AbortController();
    // Modern: closing the stream IS the cancellation (MCP 2026-07-28, basic/patterns/cancellation).
    req.onAbort(() => abort.abort());
    const meta = checked.value;
    return dispatch(
      gateway,
      {
        era: 'modern',
        id: msg.id,
        method: msg.method,
        params: msg.params ?? {},
        protocolVersion: meta.protocolVersion,
        clientCapabilities: meta.clientCapabilities,
        ...(meta.clientInfo ? { clientInfo: meta.clientInfo } : {}),
        principal,
        authContext: principal.authContext,
        headers,
      },
      { signal: abort.signal, cancelOnDisconnect: true, abort, logger, observer, observation, era: 'modern', ...modernLogLevel(msg) },
    );
  }

  /** A request refused before dispatch still leaves its span, metrics and audit record. */
  async function refuse(info: Parameters<Observer['rejected']>[0], e: GatewayError, id: RequestId, modern: boolean): Promise<TextReply> {
    await observer.rejected(info, e);
    return errorResponse(e, id, modern);
  }

  return async (req: HttpRequest): Promise<HttpReply> => {
    const blocked = guard(req);
    if (blocked) return blocked;
    // Identity comes before anything is parsed (MCP 2026-07-28, basic/transports/streamable-http (request headers) suggested order).
    const auth = await deps.authenticate(req.headers);
    if (!auth.ok) {
      const f = auth.error;
      return errorResponse({ kind: 'auth_failed', status: f.status, message: f.description }, undefined, true, f.wwwAuthenticate ? { 'www-authenticate': f.wwwAuthenticate } : undefined);
    }
    const principal = auth.value;
    if (req.method === 'POST') return await post(req, principal);
    if (req.method === 'GET' || req.method === 'DELETE') {
      const session = lookupSession(req, principal);
      if (isRefusal(session)) return session;
      if (!session) return errorResponse({ kind: 'method_not_allowed', method: req.method }, undefined, true, { allow: 'POST' });
      if (req.method === 'GET') return openLegacyStream(session, notifier, principal);
      // Its GET streams close too (onRemoved above).
      sessions.remove(session.id);
      return emptyReply(204);
    }
    return errorResponse({ kind: 'method_not_allowed', method: req.method }, undefined, true, { allow: 'GET, POST, DELETE' });
  };
}

/** The log level a 2026-07-28 request opted in to (already checked to be a LoggingLevel). */
function modernLogLevel(msg: JsonRpcRequest): { logLevel?: string } {
  const meta = msg.params?._meta;
  const level = isJsonObject(meta) ? meta[META_LOG_LEVEL] : undefined;
  return typeof level === 'string' ? { logLevel: level } : {};
}
