// The ONE place where a gateway error becomes a JSON-RPC code and an HTTP status
// (docs/architecture.md §4). Statuses follow MCP 2026-07-28, basic/index (error codes) / MCP 2026-07-28, basic/transports/streamable-http (responses); where the spec leaves the status
// open (unknown tool, internal errors) we answer 200 with the JSON-RPC error body.
import type { JsonObject, JsonRpcErrorObject, JsonValue } from './message.ts';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Gateway-specific codes live outside -32768..-32000 (MCP 2026-07-28, basic/index (error codes), range policy). */
export const UPSTREAM_UNAVAILABLE = -31001;
export const UPSTREAM_TIMEOUT = -31002;
export const UNAUTHORIZED = -31003;
export const CONSENT_REQUIRED = -31004;
/** MCP 2025-11-25, client/elicitation (URL mode): the request needs a URL elicitation first. Legacy only. */
export const URL_ELICITATION_REQUIRED = -32042;
export const APPROVAL_REQUIRED = -31010;
export const APPROVAL_DECLINED = -31011;
export const RATE_LIMITED = -31029;
export const OVER_CAPACITY = -31030;

export type GatewayError =
  | { kind: 'parse_error'; message: string }
  | { kind: 'invalid_request'; message: string }
  | { kind: 'header_mismatch'; message: string }
  | { kind: 'missing_capability'; message: string; required: JsonObject }
  | { kind: 'unsupported_version'; requested: string; supported: readonly string[] }
  | { kind: 'missing_meta'; key: string }
  | { kind: 'method_not_found'; method: string }
  | { kind: 'invalid_params'; message: string; data?: JsonValue }
  /** `reason` reaches the client verbatim: words only, never the upstream's URL, host or a
   * system error (those go to the log; src/upstream/failure-text.ts). */
  | { kind: 'upstream_unavailable'; upstream: string; reason: string }
  | { kind: 'upstream_timeout'; upstream: string; timeoutMs: number }
  /** `status`: the HTTP status the upstream answered with, when it said one (HTTP upstreams). */
  | { kind: 'upstream_error'; upstream: string; error: JsonRpcErrorObject; status?: number }
  | { kind: 'internal'; message: string }
  | { kind: 'session_not_found' }
  | { kind: 'forbidden_origin'; origin: string }
  | { kind: 'forbidden_host'; host: string }
  | { kind: 'body_too_large'; limit: number }
  | { kind: 'headers_too_large'; message: string; limit: 'maxHeaderCount' | 'maxHeaderBytes' }
  /** The body did not arrive within limits.bodyTimeout (a client trickling it). */
  | { kind: 'body_timeout'; timeoutMs: number }
  /** A request nested deeper than limits.maxJsonDepth: refused before anything walks it. */
  | { kind: 'too_deep'; limit: number }
  /** An upstream's result nested deeper than limits.maxJsonDepth: executed upstream, not forwarded. */
  | { kind: 'upstream_answer_too_deep'; upstream: string; limit: number }
  | { kind: 'method_not_allowed'; method: string }
  | { kind: 'unsupported_media_type'; contentType: string }
  | { kind: 'auth_failed'; status: 400 | 401 | 403 | 503; message: string }
  | { kind: 'rate_limited'; ruleId: string; retryAfterMs: number }
  | { kind: 'rate_limiter_unavailable' }
  /** A configured limit (its key under `limits`, or under `upstreams[]` / `approvals`) is
   * full right now: nothing was done, the same request may succeed after `retryAfterMs`. */
  | { kind: 'over_capacity'; limit: string; message: string; retryAfterMs: number }
  | { kind: 'approval_required'; message: string; data?: JsonValue }
  /** The caller has not connected their account at a per-user upstream (user-auth/). `url`: the
   * consent page. `elicit`: the client declared URL elicitation (2025-11-25: answered -32042). */
  | { kind: 'consent_required'; upstream: string; url: string; elicitationId: string; elicit: boolean }
  | { kind: 'audit_unavailable' };

export interface MappedError {
  status: number;
  error: JsonRpcErrorObject;
}

/** Codes a 2026-07-28 implementation must not emit, or that are reserved and undefined. */
function sanitizeUpstreamCode(code: number, modern: boolean): number {
  if (code === -32002) return modern ? INVALID_PARAMS : code;
  const definedReserved = code === HEADER_MISMATCH || code === MISSING_REQUIRED_CLIENT_CAPABILITY || code === UNSUPPORTED_PROTOCOL_VERSION;
  if (code <= -32020 && code >= -32099 && !definedReserved) return INTERNAL_ERROR;
  return code;
}

/**
 * The status of an upstream's JSON-RPC error toward the client. A 2026-07-28 client gets the
 * upstream's own error status, or, when there was none (stdio, an error inside an SSE
 * stream), the status 2026-07-28 gives the code (basic/transports/streamable-http: 400 for
 * -32020, -32021, -32022; 404 for -32601). A 2025-11-25 client gets 200: that era reads the
 * error from the body, and a 404 there would tell it that its session is gone.
 */
function upstreamErrorStatus(code: number, status: number | undefined, modern: boolean): number {
  if (!modern) return 200;
  if (status !== undefined && status >= 400 && status <= 599) return status;
  if (code === HEADER_MISMATCH || code === MISSING_REQUIRED_CLIENT_CAPABILITY || code === UNSUPPORTED_PROTOCOL_VERSION) return 400;
  return code === METHOD_NOT_FOUND ? 404 : 200;
}

export function mapError(e: GatewayError, modern = true): MappedError {
  switch (e.kind) {
    case 'parse_error':
      return { status: 400, error: { code: PARSE_ERROR, message: `Parse error: ${e.message}` } };
    case 'invalid_request':
      return { status: 400, error: { code: INVALID_REQUEST, message: `Invalid request: ${e.message}` } };
    case 'header_mismatch':
      return { status: 400, error: { code: HEADER_MISMATCH, message: `Header mismatch: ${e.message}` } };
    case 'missing_capability':
      return {
        status: 400,
        error: { code: MISSING_REQUIRED_CLIENT_CAPABILITY, message: e.message, data: { requiredCapabilities: e.required } },
      };
    case 'unsupported_version':
      return {
        status: 400,
        error: {
          code: UNSUPPORTED_PROTOCOL_VERSION,
          message: `Unsupported protocol version: ${e.requested}`,
          data: { supported: [...e.supported], requested: e.requested },
        },
      };
    case 'missing_meta':
      return { status: 400, error: { code: INVALID_PARAMS, message: `Invalid params: missing _meta key "${e.key}"` } };
    case 'method_not_found':
      // 404 in 2026-07-28 (basic/transports/streamable-http); in a 2025-11-25 session a 404
      // means "session gone" and makes the client re-initialize, so there it is 200.
      return { status: modern ? 404 : 200, error: { code: METHOD_NOT_FOUND, message: `Method not found: ${e.method}` } };
    case 'invalid_params':
      return { status: 200, error: { code: INVALID_PARAMS, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } };
    case 'upstream_unavailable':
      return {
        status: 200,
        error: { code: UPSTREAM_UNAVAILABLE, message: `Upstream "${e.upstream}" is unavailable: ${e.reason}`, data: { upstream: e.upstream } },
      };
    case 'upstream_timeout':
      return {
        status: 200,
        error: { code: UPSTREAM_TIMEOUT, message: `Upstream "${e.upstream}" did not answer within ${e.timeoutMs} ms`, data: { upstream: e.upstream } },
      };
    case 'upstream_error':
      return { status: upstreamErrorStatus(e.error.code, e.status, modern), error: { ...e.error, code: sanitizeUpstreamCode(e.error.code, modern) } };
    case 'internal':
      return { status: 500, error: { code: INTERNAL_ERROR, message: `Internal error: ${e.message}` } };
    case 'session_not_found':
      return { status: 404, error: { code: INVALID_REQUEST, message: 'Session not found: send a new initialize request' } };
    case 'forbidden_origin':
      return { status: 403, error: { code: INVALID_REQUEST, message: `Origin not allowed: ${e.origin}` } };
    case 'forbidden_host':
      return { status: 403, error: { code: INVALID_REQUEST, message: `Host not allowed: ${e.host} (see allowedHosts)` } };
    case 'body_too_large':
      return { status: 413, error: { code: INVALID_REQUEST, message: `Request body exceeds ${e.limit} bytes` } };
    case 'headers_too_large':
      return { status: 431, error: { code: INVALID_REQUEST, message: e.message } };
    case 'body_timeout':
      return { status: 408, error: { code: INVALID_REQUEST, message: `Request body not received within ${e.timeoutMs} ms (limits.bodyTimeout)` } };
    case 'too_deep':
      return { status: 400, error: { code: INVALID_REQUEST, message: `Invalid request: JSON nested deeper than ${e.limit} levels (limits.maxJsonDepth)` } };
    case 'upstream_answer_too_deep':
      return {
        status: 200,
        error: {
          code: UPSTREAM_UNAVAILABLE,
          message: `Upstream "${e.upstream}" answered with JSON nested deeper than ${e.limit} levels (limits.maxJsonDepth); Gatehouse did not forward it`,
          data: { upstream: e.upstream },
        },
      };
    case 'method_not_allowed':
      return { status: 405, error: { code: INVALID_REQUEST, message: `HTTP method ${e.method} not allowed here` } };
    case 'rate_limited':
      return {
        status: 429,
        error: {
          code: RATE_LIMITED,
          message: `Rate limit exceeded (rule ${e.ruleId}); retry after ${Math.ceil(e.retryAfterMs / 1000)} s`,
          data: { retryAfterMs: e.retryAfterMs, rule: e.ruleId },
        },
      };
    case 'over_capacity':
      return { status: 503, error: { code: OVER_CAPACITY, message: e.message, data: { limit: e.limit, retryAfterMs: e.retryAfterMs } } };
    case 'rate_limiter_unavailable':
      return { status: 503, error: { code: RATE_LIMITED, message: 'Rate limits cannot be checked right now; try again shortly' } };
    case 'approval_required':
      return { status: 200, error: { code: APPROVAL_REQUIRED, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } };
    case 'consent_required': {
      const message = `Upstream "${e.upstream}" needs you to connect your account there first: open the consent link, then call again`;
      // 2025-11-25 only: 2026-07-28 implementations must not emit -32042 (they get input_required instead).
      if (e.elicit && !modern) {
        return { status: 200, error: { code: URL_ELICITATION_REQUIRED, message, data: { elicitations: [{ mode: 'url', elicitationId: e.elicitationId, url: e.url, message }] } } };
      }
      return { status: 200, error: { code: CONSENT_REQUIRED, message, data: { upstream: e.upstream, url: e.url } } };
    }
    case 'audit_unavailable':
      return { status: 503, error: { code: INTERNAL_ERROR, message: 'The audit trail cannot record calls right now, so none are accepted; try again shortly' } };
    case 'auth_failed':
      return { status: e.status, error: { code: UNAUTHORIZED, message: e.message } };
    case 'unsupported_media_type':
      return { status: 415, error: { code: INVALID_REQUEST, message: `Content-Type must be application/json, got "${e.contentType}"` } };
  }
}
