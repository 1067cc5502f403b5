// The /mcp endpoint behind the HTTP ring's layers (observe, guards, identity), serving both
// live eras on one URL (MCP 2026-07-28, basic/versioning): a POST with `initialize` or a
// known Mcp-Session-Id is 2025-11-25 (legacy, sessions); any other POST is 2026-07-28
// (modern, stateless, checked per request). GET and DELETE exist only for legacy sessions.
// Every refusal here is a value (http/replies.ts `refuse`) that the observe layer records.
import type { LimitsConfig } from '../config/limits-config.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { ResourceListen, TaskListen } from './listen-streams.ts';
import type { Principal } from '../identity/principal.ts';
import type { HeaderLookup } from '../headers/param-headers.ts';
import type { HttpReply, HttpRequest } from '../http/http-io.ts';
import type { Observer } from '../http/observer.ts';
import { emptyReply, refuse } from '../http/replies.ts';
import type { Gateway } from '../mcp/method-table.ts';
import { isRequest } from '../protocol/message.ts';
import { parseMessage } from '../protocol/parse.ts';
import { SUPPORTED_MODERN_VERSIONS, type Era } from '../protocol/versions.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import { ClientRequests } from './client-requests.ts';
import { createLegacyEndpoint } from './legacy-endpoint.ts';
import type { LegacySessions } from './legacy-sessions.ts';
import { openLegacyStream, type StreamLifetime } from './listen-streams.ts';
import { resumeLegacyStream } from './resumed-stream.ts';
import { ReplayBuffers } from './sse-replay.ts';
import { SessionChannels } from './session-channels.ts';
import { createModernEndpoint } from './modern-endpoint.ts';
import type { Notifier } from './notifier.ts';

export interface EndpointDeps {
  config: GatewayConfig;
  gateway: Gateway;
  sessions: LegacySessions;
  notifier: Notifier;
  logger: Logger;
  observer: Observer;
  /** The virtual server this endpoint serves; undefined: the default endpoint. */
  server?: string;
  /** Where each request reads the limits, when a config reload can change them; config.limits otherwise. */
  liveLimits?: () => LimitsConfig;
  /** A listen stream's resourceSubscriptions; unset: none are honoured. */
  listenResources?: ResourceListen;
  /** A listen stream's taskIds (the tasks extension); unset: none are honoured. */
  listenTasks?: TaskListen['listen'];
}

/** `application/json` with optional parameters; not `application/json-seq` and the like. */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;
const CLOSE_CONNECTION = { connection: 'close' };

export function createMcpEndpoint(deps: EndpointDeps): (req: HttpRequest, principal: Principal) => Promise<HttpReply> {
  const { config, sessions, notifier } = deps;
  const limits = deps.liveLimits ?? ((): LimitsConfig => config.limits);
  // A session that ends here (DELETE, idle) takes its GET streams with it; one with a GET
  // stream open is in use, so it does not go idle.
  sessions.onRemoved((id) => notifier.closeSession(id));
  sessions.busyWhile((id) => notifier.hasStream(id));
  const clientRequests = new ClientRequests();
  // Resumable legacy streams (sse-replay.ts) end with their session too.
  const replay = new ReplayBuffers();
  sessions.onRemoved((id) => replay.dropSession(id));
  // The way to each session outside its calls (a per-client upstream session's requests).
  const channels = new SessionChannels(notifier, clientRequests, sessions);
  const legacy = createLegacyEndpoint({ ...deps, clientRequests, replay, channels });
  // Read when a stream opens: a reload's streamMaxLifetime applies to the streams opened after it.
  const lifetime = (): StreamLifetime => {
    const l = limits();
    return { maxLifetimeMs: l.streamMaxLifetimeMs, idleTimeoutMs: l.streamIdleTimeoutMs, now: Date.now, ...(deps.server === undefined ? {} : { server: deps.server }) };
  };
  const modern = createModernEndpoint(deps);

  // Not async functions: a small POST's reply is on its way with no promise of the endpoint's
  // own beyond the body read's (one more turn per async layer showed in every profile).
  function post(req: HttpRequest, principal: Principal): Promise<HttpReply> {
    const contentType = req.header('content-type');
    const era = legacy.eraOf(req);
    if (contentType !== undefined && !JSON_CONTENT_TYPE.test(contentType)) {
      return Promise.resolve(refuse({ error: { kind: 'unsupported_media_type', contentType: contentType.slice(0, 100) }, era, principal }));
    }
    const { maxBodyBytes, bodyTimeoutMs, maxJsonDepth } = limits();
    const body = req.readBody(maxBodyBytes, bodyTimeoutMs);
    return body instanceof Promise ? body.then((b) => withBody(req, principal, era, maxJsonDepth, b)) : withBody(req, principal, era, maxJsonDepth, body);
  }

  function withBody(req: HttpRequest, principal: Principal, era: Era, maxJsonDepth: number, body: Result<string, GatewayError>): Promise<HttpReply> {
    // The rest of an oversized or late body is not worth reading: the connection closes after the 413 or 408.
    if (!body.ok) return Promise.resolve(refuse({ error: body.error, era, principal }, body.error.kind === 'body_too_large' || body.error.kind === 'body_timeout' ? CLOSE_CONNECTION : undefined));
    const parsed = parseMessage(body.value, maxJsonDepth);
    if (!parsed.ok) return Promise.resolve(refuse({ error: parsed.error.error, era, principal, ...(parsed.error.id !== undefined ? { rpcId: parsed.error.id } : {}) }));
    const msg = parsed.value;
    const headers: HeaderLookup = req.header;
    const session = legacy.lookup(req, principal);
    if (session !== undefined && !session.ok) {
      // Only a known session id selects legacy (MCP 2026-07-28, basic/transports/streamable-http
      // (backwards compatibility)). A stale one on a request that names a modern version is
      // ignored, as 2026-07-28 servers do; any other request with an unknown id gets
      // 2025-11-25's 404, which tells it to re-initialize.
      if (session.error.kind === 'over_capacity' || !namesModernVersion(headers)) {
        return Promise.resolve(refuse({ error: session.error, era: 'legacy', principal, ...legacy.describe(msg) }));
      }
    } else if (session) return promised(legacy.message(msg, session.value, headers, principal));
    // An initialize that names 2026-07-28 in its header is a modern request for a method that
    // era does not have (404 / -32601, as both SDK servers answer), not a legacy handshake.
    if (isRequest(msg) && msg.method === 'initialize' && !namesModernVersion(headers)) return legacy.initialize(msg, headers, principal);
    return promised(modern.message(req, msg, headers, principal));
  }

  return (req, principal) => {
    if (req.method === 'POST') return post(req, principal);
    return Promise.resolve(other(req, principal));
  };

  /** GET and DELETE of a legacy session; other methods are not allowed. */
  function other(req: HttpRequest, principal: Principal): HttpReply {
    if (req.method === 'GET' || req.method === 'DELETE') {
      const session = legacy.lookup(req, principal);
      if (session !== undefined && !session.ok) return refuse({ error: session.error, era: 'legacy', principal });
      if (!session) return refuse({ error: { kind: 'method_not_allowed', method: req.method }, era: 'modern', principal }, { allow: 'POST' });
      // A GET with Last-Event-ID continues a resumable call stream; any other opens the session's stream.
      if (req.method === 'GET') return resumeLegacyStream(session.value, req.header('last-event-id'), replay, notifier, principal, lifetime()) ?? openLegacyStream(session.value, notifier, principal, lifetime());
      // Its GET streams close too (onRemoved above), and the calls still running in it are cancelled.
      legacy.cancelCalls(session.value.id);
      sessions.remove(session.value.id);
      return emptyReply(204);
    }
    return refuse({ error: { kind: 'method_not_allowed', method: req.method.slice(0, 20) }, era: 'modern', principal }, { allow: 'GET, POST, DELETE' });
  }
}

function promised(reply: HttpReply | Promise<HttpReply>): Promise<HttpReply> {
  return reply instanceof Promise ? reply : Promise.resolve(reply);
}

function namesModernVersion(headers: HeaderLookup): boolean {
  return SUPPORTED_MODERN_VERSIONS.includes(headers('mcp-protocol-version')?.trim() ?? '');
}
