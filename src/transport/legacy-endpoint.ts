// 2025-11-25 on /mcp: `initialize` seals a session into its id (legacy-sessions.ts); the
// session's later messages are dispatched with the state it carries. A disconnect is not a
// cancel in this era; only notifications/cancelled is (2025-11-25, basic/utilities/cancellation).
import type { ReplayBuffers } from './sse-replay.ts';
import type { Principal } from '../identity/principal.ts';
import type { HeaderLookup } from '../headers/param-headers.ts';
import type { HttpReply, HttpRequest, TextReply } from '../http/http-io.ts';
import { emptyReply, errorResponse, jsonResponse, refuse, type Refusal } from '../http/replies.ts';
import { NO_RECORD, type Call } from '../protocol/call.ts';
import { Cancellation } from '../protocol/cancellation.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest, RequestId } from '../protocol/message.ts';
import { isJsonObject, isNotification, isRequest, isResponse } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { ALL_SUPPORTED_VERSIONS, LEGACY_VERSION, SUPPORTED_LEGACY_VERSIONS } from '../protocol/versions.ts';
import type { ClientRequests } from './client-requests.ts';
import { GATEWAY_SERVER_INFO } from '../protocol/implementation.ts';
import { sealedOwner, type LegacySession } from './legacy-sessions.ts';
import type { EndpointDeps } from './mcp-endpoint.ts';
import { withSessionLogLevel } from './request-notifications.ts';
import { dispatch } from './respond.ts';
import type { SessionChannels } from './session-channels.ts';

const SESSION_HEADER = 'mcp-session-id';
/** initialize is answered here: never cancelled, no notifications. */
const NEVER_ABORTED = new AbortController().signal;
const NO_NOTIFICATIONS = (): void => undefined;
const SESSION_NOT_FOUND: Result<never, GatewayError> = err({ kind: 'session_not_found' });

export interface LegacyEndpoint {
  /** The era a request's headers select before its body is read. */
  eraOf(req: HttpRequest): 'modern' | 'legacy';
  /** The caller's session, if the request names one: an error for an unknown id or someone
   * else's (the same 404 for both, so ids cannot be probed or borrowed). */
  lookup(req: HttpRequest, principal: Principal): Result<LegacySession, GatewayError> | undefined;
  /** The method and id of a message, for the record of its refusal. */
  describe(msg: JsonRpcMessage): Pick<Refusal, 'method' | 'rpcId' | 'meta'>;
  initialize(msg: JsonRpcRequest, headers: HeaderLookup, principal: Principal): Promise<TextReply>;
  message(msg: JsonRpcMessage, session: LegacySession, headers: HeaderLookup, principal: Principal): HttpReply | Promise<HttpReply>;
  /** The client ended its session (DELETE): the calls still running in it are cancelled, as a
   * notifications/cancelled for each would (nobody is left to take their answers). */
  cancelCalls(sessionId: string): void;
}

export function createLegacyEndpoint(deps: EndpointDeps & { clientRequests: ClientRequests; replay: ReplayBuffers; channels: SessionChannels }): LegacyEndpoint {
  const { gateway, sessions, observer, logger, clientRequests } = deps;
  /** In-flight requests by session, then id (ids are strings or integers, so 1 and "1" stay
   * apart), so notifications/cancelled can abort them. */
  const inflight = new Map<string, Map<RequestId, Cancellation>>();

  const describe = (msg: JsonRpcMessage): Pick<Refusal, 'method' | 'rpcId' | 'meta'> => {
    if (!isRequest(msg)) return isNotification(msg) ? { method: msg.method } : {};
    const meta = msg.params?._meta;
    return isJsonObject(meta) ? { method: msg.method, rpcId: msg.id, meta } : { method: msg.method, rpcId: msg.id };
  };

  async function initialize(msg: JsonRpcRequest, headers: HeaderLookup, principal: Principal): Promise<TextReply> {
    const p = msg.params ?? {};
    const clientInfo = isJsonObject(p.clientInfo) ? p.clientInfo : undefined;
    const refused = (error: GatewayError): TextReply => refuse({ error, era: 'legacy', method: msg.method, rpcId: msg.id, principal });
    const admitted = observer.admit();
    if (!admitted.ok) return refused(admitted.error);
    const requested = typeof p.protocolVersion === 'string' ? p.protocolVersion : LEGACY_VERSION;
    // Version negotiation of 2025-11-25: answer with the client's version when we speak it.
    const version = SUPPORTED_LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSION;
    const caps = isJsonObject(p.capabilities) ? p.capabilities : {};
    const created = sessions.create(version, caps, clientInfo, principal.authContext, deps.server);
    if (!created.ok) return refused(created.error);
    const session = created.value;
    const instructions = gateway.instructions();
    const result: JsonObject = {
      protocolVersion: version,
      capabilities: gateway.legacyCapabilities(),
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
    const finished = observer.finish(call, ok(result), NO_RECORD, observation, Buffer.byteLength(reply.body!));
    if (finished !== true && !(await finished)) return errorResponse({ kind: 'audit_unavailable' }, { id: msg.id, era: 'legacy' });
    return reply;
  }

  function message(msg: JsonRpcMessage, session: LegacySession, headers: HeaderLookup, principal: Principal): HttpReply | Promise<HttpReply> {
    const version = headers('mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_LEGACY_VERSIONS.includes(version.trim())) {
      return refuse({ error: { kind: 'unsupported_version', requested: version.trim().slice(0, 100), supported: ALL_SUPPORTED_VERSIONS }, era: 'legacy', principal, ...describe(msg) });
    }
    if (!isRequest(msg)) {
      if (isNotification(msg)) {
        if (msg.method === 'notifications/cancelled') {
          const requestId = msg.params?.requestId;
          if (typeof requestId === 'string' || typeof requestId === 'number') inflight.get(session.id)?.get(requestId)?.abort();
        }
      } else if (isResponse(msg)) {
        // The answer to a request the gateway sent on a call's stream (approval, or an upstream's question).
        clientRequests.answer(session.id, msg);
      }
      // Responses to server requests and other notifications are accepted (202).
      return emptyReply(202);
    }
    if (msg.method === 'initialize') return refuse({ error: { kind: 'invalid_request', message: 'session already initialized' }, era: 'legacy', principal, ...describe(msg) });
    if (msg.method === 'logging/setLevel' && typeof msg.params?.level === 'string') sessions.setLogLevel(session.id, msg.params.level);
    const meta = isJsonObject(msg.params?._meta) ? msg.params._meta : undefined;
    const admitted = observer.admit();
    if (!admitted.ok) return refuse({ error: admitted.error, era: 'legacy', principal, ...describe(msg) });
    const observation = observer.begin({ method: msg.method, era: 'legacy', rpcId: msg.id, headers, meta, protocolVersion: session.protocolVersion, sessionId: session.id });
    const abort = new Cancellation();
    const sessionId = session.id;
    let calls = inflight.get(sessionId);
    if (calls === undefined) inflight.set(sessionId, (calls = new Map()));
    calls.set(msg.id, abort);
    const id = msg.id;
    const inSession = calls;
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
        sessionId: session.id,
        principal,
        authContext: principal.authContext,
        headers,
      },
      {
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
        asker: { requests: clientRequests, sessionId: session.id },
        channel: deps.channels.of(session),
        replay: { buffers: deps.replay, sessionId: session.id },
      },
    );
  }

  return {
    eraOf: (req) => (req.header(SESSION_HEADER) === undefined ? 'modern' : 'legacy'),
    lookup(req, principal) {
      const id = req.header(SESSION_HEADER);
      if (id === undefined) return undefined;
      const session = sessions.open(id.trim());
      // Full (over_capacity) or unknown: said as it is; someone else's: the same 404 as unknown.
      if (!session.ok) return session;
      // A session is bound to the endpoint that made it: on any other, its id is unknown (404).
      return session.value.owner === sealedOwner(principal.authContext) && session.value.server === deps.server ? session : SESSION_NOT_FOUND;
    },
    describe,
    initialize,
    message,
    cancelCalls(sessionId) {
      const calls = inflight.get(sessionId);
      if (calls) for (const call of [...calls.values()]) call.abort();
    },
  };
}
