// The upstream ring's seam for cross-cutting concerns of one HTTP upstream: an interceptor
// wraps the next exchange, `(next) => exchange`, and a chain is composed once per connection
// (upstream-connection.ts). Credentials, timeouts and the idempotent resend are interceptors;
// a circuit breaker or a concurrency cap is one more file of this shape.
//
// Why at this level rather than undici's own `(dispatch) => dispatch` interceptors: each of
// these decides on what the exchange came to (a 401, a connection lost before any answer, a
// JSON-RPC method that may go twice), which only exists once the response is read; undici's
// interceptors see raw bytes and handler callbacks.
import type { ExchangeInput, ExchangeOutcome } from './http-exchange.ts';
import type { UpstreamUnavailable } from './upstream-credentials.ts';

/** No request was sent: the credentials could not be had (e.g. the token endpoint failed). */
export interface CredentialsFailed {
  kind: 'credentials_failed';
  error: UpstreamUnavailable;
}

export type Sent = ExchangeOutcome | CredentialsFailed;
export type Exchange = (input: ExchangeInput) => Promise<Sent>;
export type ExchangeInterceptor = (next: Exchange) => Exchange;

/** Composes `interceptors` (outermost first) over `exchange`, once. */
export function composeExchange(interceptors: readonly ExchangeInterceptor[], exchange: Exchange): Exchange {
  return interceptors.reduceRight<Exchange>((next, intercept) => intercept(next), exchange);
}

/** The configured timeout, unless the request brings its own. The input is the one the
 * connection built for this exchange (upstream-connection.ts), so it is completed in place. */
export function timeoutInterceptor(timeoutMs: number | undefined): ExchangeInterceptor {
  if (timeoutMs === undefined) return (next) => next;
  return (next) => (input) => {
    if (input.timeoutMs === undefined) input.timeoutMs = timeoutMs;
    return next(input);
  };
}
