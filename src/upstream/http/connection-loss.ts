// What a failed upstream connection means, and when a request may go again.
//
// A pooled keep-alive connection can be closed by the upstream at the moment the gateway
// reuses it (the server's idle timeout crossing our request). The request then fails with a
// reset or "other side closed" although the upstream is healthy. undici already re-sends a
// request that was never written to the socket; one that was written may have reached the
// upstream, so it goes again only when sending it twice is harmless (docs/architecture.md §4: retry of
// idempotent list/read methods only, never tools/call). The pool's keep-alive timeout
// (http-upstream.ts) keeps the race rare; this covers the rest.
//
// A lost connection says nothing certain about the upstream as a whole, unlike a connection
// that cannot be made (refused, unresolvable, unreachable, TLS failure): the first fails one
// call, the second marks the upstream down.
import type { CredentialsFailed } from './exchange-interceptor.ts';
import type { ExchangeOutcome } from './http-exchange.ts';

/** Errors of a connection that was up: reset by the peer, closed under a request. */
const LOST_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

/** Requests that change nothing upstream, so that sending one twice is harmless. Not
 * `initialize`: to a legacy upstream each one may open a session, and the first one's would
 * be left open, never used nor deleted. */
const IDEMPOTENT_METHODS = new Set([
  'ping',
  'server/discover',
  'tools/list',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
]);

export function errorCode(e: Error): string | undefined {
  const own = (e as Error & { code?: unknown }).code;
  if (typeof own === 'string') return own;
  const cause = (e as Error & { cause?: { code?: unknown } }).cause?.code;
  return typeof cause === 'string' ? cause : undefined;
}

/** The connection broke under the request (as opposed to: could not be made). */
export function isLostConnection(e: Error): boolean {
  const code = errorCode(e);
  return code !== undefined && LOST_CONNECTION_CODES.has(code);
}

/** May a request of this method ever go twice (if its connection is lost before any answer)? */
export function resendable(method: unknown): boolean {
  return typeof method === 'string' && IDEMPOTENT_METHODS.has(method);
}

/** May this failed request go once more, on another connection? */
export function mayResend(method: string, outcome: ExchangeOutcome | CredentialsFailed): boolean {
  return outcome.kind === 'network_error' && !outcome.responded && isLostConnection(outcome.error) && IDEMPOTENT_METHODS.has(method);
}
