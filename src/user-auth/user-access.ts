// How a per-user upstream gets each caller's token, and what it does for a caller who has
// none: the two ways a gateway reaches an upstream as the caller (user-upstream.ts).
// - consent (auth type user): the user's own tokens from the vault; no token means the user
//   must consent, so calls answer consent_required and lists offer the connect tool;
// - exchange (auth type token_exchange, RFC 8693): a token exchanged for the caller's own;
//   a caller without an OAuth token (API key, anonymous) cannot be served.
import type { GatewayError } from '../protocol/errors.ts';
import type { Result } from '../protocol/result.ts';
import type { UpstreamUnavailable } from '../upstream/http/upstream-credentials.ts';
import type { UpstreamRequest } from '../upstream/upstream.ts';
import type { TokenAnswer } from './user-tokens.ts';

export type Caller = NonNullable<UpstreamRequest['principal']>;

export interface UserAccess {
  readonly kind: 'consent' | 'exchange';
  /** Checked at start, so a misconfiguration shows in /readyz at boot. */
  ready(upstream: string): Promise<Result<unknown, string>>;
  current(authContext: string, upstream: string): Promise<Result<TokenAnswer, UpstreamUnavailable>>;
  /** The upstream answered 401 to `sent`: true when a retry may carry another token. */
  rejected(authContext: string, upstream: string, sent: string): Promise<boolean>;
  /** The answer to a call by a caller without a token. */
  missing(caller: Caller | undefined, upstream: string): Result<never, GatewayError>;
  /** What /readyz and the log say about callers. */
  readonly note: string;
}
