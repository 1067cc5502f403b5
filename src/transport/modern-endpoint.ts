// 2026-07-28 on /mcp: every request stands alone, its version, capabilities and client info
// in `_meta`, checked against its headers (modern-checks.ts) before it is dispatched.
// Closing the response stream is the cancellation (MCP 2026-07-28, basic/patterns/cancellation).
import { Cancellation } from '../protocol/cancellation.ts';
import type { Principal } from '../identity/principal.ts';
import type { HeaderLookup } from '../headers/param-headers.ts';
import type { HttpReply, HttpRequest } from '../http/http-io.ts';
import { emptyReply, refuse } from '../http/replies.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest } from '../protocol/message.ts';
import { isJsonObject, isNotification, isRequest } from '../protocol/message.ts';
import { META_LOG_LEVEL } from '../protocol/meta-keys.ts';
import { ALL_SUPPORTED_VERSIONS, SUPPORTED_MODERN_VERSIONS } from '../protocol/versions.ts';
import { openListenStream, type StreamLifetime } from './listen-streams.ts';
import type { EndpointDeps } from './mcp-endpoint.ts';
import { checkModernRequest } from './modern-checks.ts';
import { dispatch } from './respond.ts';
import { clientDeclaresTasks } from '../tasks/task-shapes.ts';

export interface ModernEndpoint {
  message(req: HttpRequest, msg: JsonRpcMessage, headers: HeaderLookup, principal: Principal): HttpReply | Promise<HttpReply>;
}

export function createModernEndpoint(deps: EndpointDeps): ModernEndpoint {
  const { gateway, notifier, observer, logger } = deps;
  // Read when a stream opens: a reload's streamMaxLifetime applies to the streams opened after it.
  const lifetime = (): StreamLifetime => {
    const l = deps.liveLimits?.() ?? deps.config.limits;
    return { maxLifetimeMs: l.streamMaxLifetimeMs, idleTimeoutMs: l.streamIdleTimeoutMs, now: Date.now, ...(deps.server === undefined ? {} : { server: deps.server }) };
  };
  return {
    message(req, msg, headers, principal) {
      if (isNotification(msg)) return emptyReply(202);
      if (!isRequest(msg)) return refuse({ error: { kind: 'invalid_request', message: 'clients must not send responses in 2026-07-28' }, era: 'modern', principal });
      const meta = isJsonObject(msg.params?._meta) ? msg.params._meta : undefined;
      const refused = (error: GatewayError): HttpReply => refuse({ error, era: 'modern', method: msg.method, rpcId: msg.id, principal, ...(meta ? { meta } : {}) });
      const checked = checkModernRequest(msg, headers, SUPPORTED_MODERN_VERSIONS, ALL_SUPPORTED_VERSIONS);
      if (!checked.ok) return refused(checked.error);
      if (msg.method === 'subscriptions/listen') {
        const tasks = deps.listenTasks && { declared: clientDeclaresTasks('modern', checked.value.clientCapabilities), listen: deps.listenTasks };
        return openListenStream(msg, notifier, principal, lifetime(), deps.listenResources, tasks);
      }
      if (!gateway.knows(msg.method, 'modern')) return refused({ kind: 'method_not_found', method: msg.method });
      const admitted = observer.admit();
      if (!admitted.ok) return refused(admitted.error);
      const observation = observer.begin({ method: msg.method, era: 'modern', rpcId: msg.id, headers, meta, protocolVersion: checked.value.protocolVersion });
      const abort = new Cancellation();
      req.onAbort(() => abort.abort());
      const m = checked.value;
      return dispatch(
        gateway,
        {
          era: 'modern',
          id: msg.id,
          method: msg.method,
          params: msg.params ?? {},
          protocolVersion: m.protocolVersion,
          clientCapabilities: m.clientCapabilities,
          ...(m.clientInfo ? { clientInfo: m.clientInfo } : {}),
          principal,
          authContext: principal.authContext,
          headers,
        },
        { cancelOnDisconnect: true, abort, logger, observer, observation, era: 'modern', ...modernLogLevel(msg) },
      );
    },
  };
}

/** The log level a 2026-07-28 request opted in to (already checked to be a LoggingLevel). */
function modernLogLevel(msg: JsonRpcRequest): { logLevel?: string } {
  const meta: JsonObject | undefined = isJsonObject(msg.params?._meta) ? msg.params._meta : undefined;
  const level = meta ? meta[META_LOG_LEVEL] : undefined;
  return typeof level === 'string' ? { logLevel: level } : {};
}
