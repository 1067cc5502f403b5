// The gateway's own access token for one upstream, from the OAuth 2.0 client-credentials
// grant (RFC 6749 section 4.4), kept the way a user expects:
// - cached until shortly before `expires_in` runs out (the margin is 10 % of the lifetime,
//   at most 30 s); inside the margin the still-valid token is used while one request
//   fetches the next in the background, so calls wait for the token endpoint only when no
//   valid token is left;
// - single-flight: concurrent callers share one token request;
// - a token the upstream rejects (HTTP 401, RFC 6750 section 3.1 invalid_token) is dropped
//   so the next caller gets a fresh one, except one issued less than a second ago: its
//   successor would most likely be refused too, so the 401 stands;
// - after a failed token request, further attempts back off (1 s doubling to 30 s) and
//   fail fast in between, with the last reason; a still-valid token keeps being used.
// The token request itself is injected (oauth-token-request.ts over undici in production),
// and so is the clock, so all of this is testable without a network or waiting.
// Tokens and secrets never reach a log line or an error.

import { loggableUrl } from './failure-text.ts';
import type { GatewayError } from '../../protocol/errors.ts';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { IssuedToken } from './oauth-token-request.ts';

export type UpstreamUnavailable = Extract<GatewayError, { kind: 'upstream_unavailable' }>;

const MAX_MARGIN_MS = 30_000;
/** Lifetime assumed when the server gives no `expires_in` (RFC 6749 section 5.1 makes it optional). */
const UNSTATED_LIFETIME_MS = 3_600_000;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
const MIN_AGE_TO_REPLACE_MS = 1000;

export interface ClientCredentialsOptions {
  upstream: string;
  /** Named in errors, e.g. "https://auth.example.com/oauth/token". */
  tokenUrl: string;
  /** One token request; its failure reason holds no secret. */
  requestToken: () => Promise<Result<IssuedToken, string>>;
  logger: Logger;
  now?: () => number;
}

interface CachedToken {
  /** The Authorization header value, "Bearer <token>". */
  authorization: string;
  obtainedAt: number;
  /** Refresh from here on. */
  refreshAt: number;
  /** Not used from here on. */
  expiresAt: number;
}

export class ClientCredentialsToken {
  private readonly opts: ClientCredentialsOptions;
  private readonly now: () => number;
  private token: CachedToken | undefined;
  private inflight: Promise<Result<string, UpstreamUnavailable>> | undefined;
  private failure: { reason: string; retryAt: number; delayMs: number } | undefined;

  constructor(opts: ClientCredentialsOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  /** The Authorization header value to send now: "Bearer <access token>". */
  authorization(): Promise<Result<string, UpstreamUnavailable>> {
    const now = this.now();
    const t = this.token;
    if (t !== undefined && now < t.refreshAt) return Promise.resolve(ok(t.authorization));
    const backingOff = this.failure !== undefined && now < this.failure.retryAt;
    if (t !== undefined && now < t.expiresAt) {
      // refresh() reports failures as results; a rejection is a bug, logged.
      if (!backingOff) void this.refresh().catch((e: unknown) => this.opts.logger.error('token refresh failed', { error: (e as Error).message }));
      return Promise.resolve(ok(t.authorization));
    }
    if (this.inflight) return this.inflight;
    if (backingOff && this.failure) {
      const waitS = Math.ceil((this.failure.retryAt - now) / 1000);
      return Promise.resolve(err(this.unavailable(`${this.failure.reason}; next attempt in ${waitS} s`)));
    }
    return this.refresh();
  }

  /**
   * The upstream answered 401 to a request sent with `authorization`. Returns true when
   * a retry may carry a different token.
   */
  invalidate(authorization: string): boolean {
    const t = this.token;
    // Already replaced (another caller saw the 401 first, or it expired): retry with the current one.
    if (t === undefined || t.authorization !== authorization) return true;
    if (this.now() - t.obtainedAt < MIN_AGE_TO_REPLACE_MS) return false;
    this.token = undefined;
    this.opts.logger.info('upstream rejected the access token (401); getting a new one');
    return true;
  }

  private refresh(): Promise<Result<string, UpstreamUnavailable>> {
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchToken(): Promise<Result<string, UpstreamUnavailable>> {
    // The lifetime counts from before the request: the server's clock started no earlier.
    const started = this.now();
    const issued = await this.opts.requestToken();
    const now = this.now();
    if (!issued.ok) {
      const delayMs = this.failure === undefined ? FIRST_BACKOFF_MS : Math.min(this.failure.delayMs * 2, MAX_BACKOFF_MS);
      this.failure = { reason: issued.error, retryAt: now + delayMs, delayMs };
      this.opts.logger.warn('cannot get an access token for the upstream', { tokenUrl: loggableUrl(this.opts.tokenUrl), reason: issued.error, retryInMs: delayMs });
      const t = this.token;
      return t !== undefined && now < t.expiresAt ? ok(t.authorization) : err(this.unavailable(issued.error));
    }
    this.failure = undefined;
    const lifetime = issued.value.expiresInMs ?? UNSTATED_LIFETIME_MS;
    const expiresAt = started + lifetime;
    this.token = {
      authorization: `Bearer ${issued.value.accessToken}`,
      obtainedAt: now,
      refreshAt: expiresAt - Math.min(MAX_MARGIN_MS, lifetime / 10),
      expiresAt,
    };
    this.opts.logger.debug('access token obtained', { expiresInS: issued.value.expiresInMs === undefined ? null : lifetime / 1000 });
    return ok(this.token.authorization);
  }

  private unavailable(reason: string): UpstreamUnavailable {
    // The token URL is in the log line above, not here: this reason reaches clients.
    return { kind: 'upstream_unavailable', upstream: this.opts.upstream, reason: `cannot get an access token: ${reason}` };
  }
}
