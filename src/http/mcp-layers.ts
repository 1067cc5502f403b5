// The layers in front of the MCP endpoint, in order (MCP 2026-07-28,
// basic/transports/streamable-http, request headers: checks before any parsing): observe
// (outermost: every request, refused ones included, leaves a span, metrics and an audit
// record), headers that must come once (400), Origin and Host (403, the DNS-rebinding
// defence), header count and size (431), then identity (401/403 with WWW-Authenticate), which hands the endpoint its principal.
import type { GatewayConfig } from '../config/types.ts';
import type { Authenticate, AuthFailure } from '../identity/authenticate.ts';
import type { Result } from '../protocol/result.ts';
import { UNAUTHENTICATED_PRINCIPAL, type Principal } from '../identity/principal.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Endpoint, Layer } from './compose.ts';
import { checkHeaderLimits, checkHost, checkOrigin, checkSingletonHeaders } from './http-guards.ts';
import type { HttpReply, HttpRequest, TextReply } from './http-io.ts';
import type { Observer } from './observer.ts';
import { refuse, type Refusal } from './replies.ts';

const SESSION_HEADER = 'mcp-session-id';
/** What a client is told of an exception inside the gateway; the details go to the log. */
const INTERNAL_FAILURE: GatewayError = { kind: 'internal', message: 'the gateway failed to complete this request' };

/** Before the body is read the era is a guess from the headers: a session id means 2025-11-25. */
export function eraOf(req: HttpRequest): 'modern' | 'legacy' {
  return req.header(SESSION_HEADER) === undefined ? 'modern' : 'legacy';
}

export function observeLayer(observer: Observer, logger: Logger, path: string): Layer {
  const record = (req: HttpRequest, r: Refusal, arrival: { startedAt: number; wallMs: number }): Promise<void> =>
    observer.rejected(
      { method: r.method ?? `${req.method} ${path}`, era: r.era, rpcId: r.rpcId, headers: req.header, principal: r.principal ?? UNAUTHENTICATED_PRINCIPAL, meta: r.meta },
      r.error,
      arrival,
    );
  // Not an async function: on the path of every request, one `then` is the whole cost. The
  // arrival's wall-clock time is only needed for a refusal's record, so it is worked out then.
  const settled = (req: HttpRequest, startedAt: number, reply: HttpReply): HttpReply | Promise<HttpReply> => {
    const refusal = (reply as TextReply & { refusal?: Refusal }).refusal;
    if (refusal === undefined) return reply;
    const arrival = { startedAt, wallMs: Date.now() - (performance.now() - startedAt) };
    return record(req, refusal, arrival).then(() => reply);
  };
  const failed = (req: HttpRequest, startedAt: number, e: unknown): HttpReply | Promise<HttpReply> => {
    // A bug (errors are values inside): its stack is what finds it; the client gets a fixed text.
    logger.error('request failed', { error: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });
    return settled(req, startedAt, refuse({ error: INTERNAL_FAILURE, era: eraOf(req) }));
  };
  return (req, next) => {
    const startedAt = performance.now();
    let answer: Promise<HttpReply>;
    try {
      answer = next(req);
    } catch (e) {
      return Promise.resolve(failed(req, startedAt, e));
    }
    return answer.then(
      (reply) => settled(req, startedAt, reply),
      (e: unknown) => failed(req, startedAt, e),
    );
  };
}

export function guardLayer(config: GatewayConfig): Layer {
  const { allowedOrigins, limits } = config;
  // Host only once configured: browsers send Origin on every POST, which is the check above,
  // and a gateway behind a proxy sees the proxy's public name (docs: allowedHosts).
  // A virtual server's own `host` is one the operator named for this gateway: allowed too.
  const hosts = { allowed: [...config.allowedHosts, ...config.servers.flatMap((s) => (s.host === undefined ? [] : [s.host]))], enforce: config.allowedHosts.length > 0 };
  return (req, next) => {
    // Repeats first: until they are refused, every other check could read the other copy.
    const single = checkSingletonHeaders(req.rawHeaders);
    if (!single.ok) return Promise.resolve(refuse({ error: single.error, era: eraOf(req) }));
    const origin = checkOrigin(req.header('origin'), allowedOrigins);
    if (!origin.ok) return Promise.resolve(refuse({ error: origin.error, era: eraOf(req) }));
    const host = checkHost(req.header('host'), hosts);
    if (!host.ok) return Promise.resolve(refuse({ error: host.error, era: eraOf(req) }));
    const sized = checkHeaderLimits(req.rawHeaders, limits.maxHeaderCount, limits.maxHeaderBytes);
    if (!sized.ok) return Promise.resolve(refuse({ error: sized.error, era: eraOf(req) }));
    return next(req);
  };
}

/** Identity comes before anything is parsed; the endpoint gets the principal it established. */
export function withIdentity(authenticate: Authenticate, endpoint: (req: HttpRequest, principal: Principal) => Promise<HttpReply>): Endpoint {
  const after = (req: HttpRequest, auth: Result<Principal, AuthFailure>): Promise<HttpReply> => {
    if (auth.ok) return endpoint(req, auth.value);
    const f = auth.error;
    return Promise.resolve(refuse({ error: { kind: 'auth_failed', status: f.status, message: f.description }, era: eraOf(req) }, f.wwwAuthenticate ? { 'www-authenticate': f.wwwAuthenticate } : undefined));
  };
  // No promise hop for the callers whose identity is known at once (anonymous, API keys).
  return (req) => {
    const auth = authenticate(req.headers);
    return auth instanceof Promise ? auth.then((a) => after(req, a)) : after(req, auth);
  };
}
