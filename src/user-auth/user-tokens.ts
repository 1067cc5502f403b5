// A user's current access token for an upstream, from the vault: refreshed shortly before it
// expires (the margin is 10 % of its lifetime, at most 60 s), one refresh at a time per
// (principal, upstream) however many calls wait on it; on another replica the same refresh
// finds the token already renewed in the shared store. A refresh the server refuses with
// `invalid_grant` (RFC 6749 section 5.2: revoked or expired grant) removes the tokens, so the
// next call asks for consent again. Other refresh failures keep the tokens and report the
// upstream unavailable, naming it, never the token.
import { err, ok, type Result } from '../protocol/result.ts';
import type { UpstreamUnavailable } from '../upstream/http/upstream-credentials.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { OAuthClient } from './client-registration.ts';
import type { OAuthHttp } from './oauth-http.ts';
import { refreshTokens } from './token-requests.ts';
import { loggableUrl } from '../upstream/http/failure-text.ts';
import type { TokenVault } from './token-vault.ts';
import type { UserToken } from './user-token.ts';

const MAX_MARGIN_MS = 60_000;
/** A token the upstream refuses within this long of being issued is not refreshed at once. */
const MIN_AGE_TO_REPLACE_MS = 1000;

export type TokenAnswer = { kind: 'token'; accessToken: string } | { kind: 'none' };

export interface UserTokensDeps {
  vault: TokenVault;
  http: OAuthHttp;
  /** The client a stored token was issued to (configured, metadata document or registered). */
  clientFor(upstream: string, token: UserToken): Promise<Result<OAuthClient, string>>;
  logger: Logger;
  now: () => number;
}

export class UserTokens {
  private readonly refreshing = new Map<string, Promise<Result<TokenAnswer, UpstreamUnavailable>>>();

  constructor(private readonly d: UserTokensDeps) {}

  async current(principal: string, upstream: string): Promise<Result<TokenAnswer, UpstreamUnavailable>> {
    try {
      return await this.currentOrThrow(principal, upstream);
    } catch (e) {
      // The store (Redis) cannot be reached: fail closed, naming the upstream, never another user's token.
      this.d.logger.error('token store unavailable', { upstream, error: (e as Error).message });
      return err({ kind: 'upstream_unavailable', upstream, reason: 'the store of user tokens cannot be reached right now' });
    }
  }

  private async currentOrThrow(principal: string, upstream: string): Promise<Result<TokenAnswer, UpstreamUnavailable>> {
    const t = await this.d.vault.read(principal, upstream);
    if (t === undefined) return ok({ kind: 'none' });
    const now = this.d.now();
    const margin = Math.min(MAX_MARGIN_MS, (t.expiresAt - t.obtainedAt) / 10);
    if (now < t.expiresAt - margin) return ok({ kind: 'token', accessToken: t.accessToken });
    if (t.refreshToken === undefined) {
      if (now < t.expiresAt) return ok({ kind: 'token', accessToken: t.accessToken });
      await this.d.vault.remove(principal, upstream);
      return ok({ kind: 'none' });
    }
    return this.refresh(principal, upstream, t);
  }

  /** The upstream answered 401 to `sent`: true when a retry may carry another token. */
  async rejected(principal: string, upstream: string, sent: string): Promise<boolean> {
    const t = await this.d.vault.read(principal, upstream).catch(() => undefined);
    if (t === undefined) return false;
    if (t.accessToken !== sent) return true;
    if (this.d.now() - t.obtainedAt < MIN_AGE_TO_REPLACE_MS) return false;
    if (t.refreshToken === undefined) {
      await this.d.vault.remove(principal, upstream);
      return false;
    }
    const r = await this.refresh(principal, upstream, t);
    return r.ok && r.value.kind === 'token';
  }

  private refresh(principal: string, upstream: string, t: UserToken): Promise<Result<TokenAnswer, UpstreamUnavailable>> {
    const key = `${upstream}\u0000${principal}`;
    let flight = this.refreshing.get(key);
    if (flight === undefined) {
      flight = this.doRefresh(principal, upstream, t).finally(() => this.refreshing.delete(key));
      this.refreshing.set(key, flight);
    }
    return flight;
  }

  private async doRefresh(principal: string, upstream: string, t: UserToken): Promise<Result<TokenAnswer, UpstreamUnavailable>> {
    const unavailable = (reason: string): Result<TokenAnswer, UpstreamUnavailable> => err({ kind: 'upstream_unavailable', upstream, reason: `cannot refresh your access token: ${reason}` });
    const client = await this.d.clientFor(upstream, t);
    if (!client.ok) return unavailable(client.error);
    const started = this.d.now();
    const got = await refreshTokens(this.d.http, t.tokenEndpoint, client.value, t.refreshToken as string, t.resource);
    if (!got.ok) {
      if (got.error.kind === 'invalid_grant') {
        // Another replica may have refreshed first with the same (rotated) refresh token.
        const now = await this.d.vault.read(principal, upstream);
        if (now !== undefined && now.refreshToken !== t.refreshToken) return ok({ kind: 'token', accessToken: now.accessToken });
        this.d.logger.info('refresh refused (invalid_grant): the user must consent again', { upstream, principal });
        await this.d.vault.remove(principal, upstream);
        return ok({ kind: 'none' });
      }
      this.d.logger.warn('token refresh failed', { upstream, principal, tokenUrl: loggableUrl(t.tokenEndpoint), reason: got.error.reason });
      // A token not yet expired still serves while the server cannot be reached.
      return this.d.now() < t.expiresAt ? ok({ kind: 'token', accessToken: t.accessToken }) : unavailable(got.error.reason);
    }
    const g = got.value;
    const next: UserToken = {
      ...t,
      accessToken: g.accessToken,
      // RFC 6749 section 6: the server may issue a new refresh token (rotation) or keep the old one.
      refreshToken: g.refreshToken ?? t.refreshToken,
      expiresAt: started + (g.expiresInMs ?? 3_600_000),
      obtainedAt: this.d.now(),
      scope: g.scope ?? t.scope,
    };
    await this.d.vault.write(principal, upstream, next);
    return ok({ kind: 'token', accessToken: next.accessToken });
  }
}
