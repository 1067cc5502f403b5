// How a failed exchange with an HTTP upstream is put into words, for whom. The configured URL
// may carry a secret (`?api_key=${ENV}`, user:password@) and, like system errors, names
// internal hosts and ports, so each reader gets only what it needs:
// - clients: a generic reason; errors.ts names the upstream by its configured name;
// - /readyz and `lastError`: the URL's origin and the system error (ECONNREFUSED, ...);
// - the log: origin and path and the system error; never userinfo, query or fragment.
import type { ExchangeOutcome } from './http-exchange.ts';
import { isLostConnection } from './connection-loss.ts';

/** A network error in words, with its system code (ECONNREFUSED, ...) when there is one. */
export function describeNetworkError(e: Error): string {
  const cause = (e as Error & { cause?: { code?: string } }).cause;
  return cause?.code ? `${e.message} (${cause.code})` : e.message;
}

/** An exchange that got no answer to read. */
export type Unanswered = Extract<ExchangeOutcome, { kind: 'network_error' | 'timeout' | 'aborted' | 'too_large' | 'over_budget' }>;

export interface Wording {
  /** For clients (the upstream_unavailable reason). */
  reason: string;
  /** For /readyz and status(). */
  status: string;
  /** For the log. */
  log: string;
}

/** The URL without userinfo, path, query or fragment. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** The URL without userinfo, query or fragment. */
export function loggableUrl(url: string): string {
  const u = new URL(url);
  return u.origin + u.pathname;
}

export class FailureText {
  private readonly origin: string;
  private readonly logUrl: string;

  constructor(
    url: string,
    private readonly timeoutMs: number,
  ) {
    this.origin = originOf(url);
    this.logUrl = loggableUrl(url);
  }

  /** The upstream could not be reached (the probe, or the check after a lost connection). */
  unreachable(o: Unanswered): Wording {
    const detail = this.detail(o);
    return { reason: reasonOf(o), status: `cannot reach ${this.origin}: ${detail}`, log: `cannot reach ${this.logUrl}: ${detail}` };
  }

  /** Where and why one call failed, for the log. */
  forLog(o: Unanswered): string {
    return `${this.logUrl}: ${this.detail(o)}`;
  }

  /** Why, without where: the system error, which may name a host, so never for clients. */
  detail(o: Unanswered): string {
    switch (o.kind) {
      case 'network_error':
        return describeNetworkError(o.error);
      case 'timeout':
        return `no answer within ${this.timeoutMs} ms`;
      case 'aborted':
        return 'cancelled';
      case 'too_large':
      case 'over_budget':
        return reasonOf(o);
    }
  }
}

/** The generic reason a client is told. */
export function reasonOf(o: Unanswered): string {
  switch (o.kind) {
    case 'network_error':
      return o.responded || isLostConnection(o.error) ? 'connection lost' : 'connection failed';
    case 'timeout':
      return 'timed out';
    case 'aborted':
      return 'the request was cancelled';
    case 'too_large':
      return `the answer exceeds the ${o.limit}-byte limit (limits.maxUpstreamAnswerBytes)`;
    case 'over_budget':
      return `the answers in flight hold all of the ${o.limit}-byte memory budget (limits.maxInflightAnswerBytes)`;
  }
}
