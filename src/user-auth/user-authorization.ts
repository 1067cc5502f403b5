// The consent of one user for one upstream, from the link their MCP client shows to the
// token in the vault (MCP 2025-11-25, basic/authorization; OAuth 2.1 authorization code with
// PKCE): `consentLink` seals a ticket; `start` (the browser opened the link and confirmed)
// discovers the upstream's authorization server, picks the client, makes the PKCE pair and
// the sealed state, and says where to send the browser; `complete` (the callback) checks the
// state — sealed by this gateway, unexpired, used once, in the browser that started — and
// redeems the code with the verifier and the RFC 8707 resource. An attacker's own code put
// into another user's callback fails at the token endpoint: it was issued for the attacker's
// PKCE challenge, not for the verifier in that user's state.
import type { Sealer } from '../approvals/sealed-token.ts';
import type { HttpUpstreamConfig } from '../config/types.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import { discoverAuthorization, type Discovered } from './authorization-discovery.ts';
import { CALLBACK_PATH } from './client-metadata-document.ts';
import { resolveClient } from './client-registration.ts';
import { bindingMatches, newBinding, newNonce, openState, openTicket, sealState, sealTicket } from './consent-state.ts';
import type { OAuthHttp } from './oauth-http.ts';
import type { ClientOf } from './client-secrets.ts';
import { createPkce } from './pkce.ts';
import { redeemCode } from './token-requests.ts';
import type { TokenVault } from './token-vault.ts';
import type { UserAuthConfig } from './user-auth-config.ts';

export const CONNECT_PATH = '/oauth/connect';
/** A failed discovery is tried again after this long, not on every call. */
const DISCOVERY_RETRY_MS = 5_000;

export interface UserAuthorizationDeps {
  config: UserAuthConfig;
  upstreams: ReadonlyMap<string, HttpUpstreamConfig>;
  sealer: Sealer;
  vault: TokenVault;
  http: OAuthHttp;
  /** A configured client with its secret read now (client-secrets.ts). */
  clientOf: ClientOf;
  logger: Logger;
  now: () => number;
}

export interface Started {
  /** Where the browser goes: the authorization endpoint with every parameter. */
  location: string;
  /** Goes in the binding cookie of this browser. */
  bindingCookie: string;
  upstream: string;
}

export class UserAuthorization {
  private readonly discovered = new Map<string, { result: Promise<Result<Discovered, string>> }>();

  constructor(private readonly d: UserAuthorizationDeps) {}

  get redirectUri(): string {
    return `${this.d.config.publicUrl}${CALLBACK_PATH}`;
  }

  consentLink(principal: string, subject: string, upstream: string): string {
    const ticket = sealTicket(this.d.sealer, { principal, subject, upstream, expiresAt: this.d.now() + this.d.config.consentTimeoutMs });
    return `${this.d.config.publicUrl}${CONNECT_PATH}?ticket=${encodeURIComponent(ticket)}`;
  }

  /** The ticket's content, for the confirmation page. */
  readTicket(ticket: string): ReturnType<typeof openTicket> {
    return openTicket(this.d.sealer, ticket, this.d.now());
  }

  /** The authorization server of `upstream`, discovered once and kept (a failure for a few seconds). */
  discovery(upstream: string): Promise<Result<Discovered, string>> {
    const config = this.d.upstreams.get(upstream);
    if (config?.userAuth === undefined) return Promise.resolve(err(`upstream "${upstream}" does not use per-user authorization`));
    const kept = this.discovered.get(upstream);
    if (kept !== undefined) return kept.result;
    const result = discoverAuthorization(this.d.http, config.url, config.userAuth.resource).then((r) => {
      if (!r.ok) {
        this.d.logger.warn('cannot discover the authorization server of an upstream', { upstream, reason: r.error });
        const entry = this.discovered.get(upstream);
        if (entry?.result === result) setTimeout(() => this.discovered.get(upstream)?.result === result && this.discovered.delete(upstream), DISCOVERY_RETRY_MS).unref();
      }
      return r;
    });
    this.discovered.set(upstream, { result });
    return result;
  }

  async start(ticket: string): Promise<Result<Started, string>> {
    const t = this.readTicket(ticket);
    if (!t.ok) return t;
    const config = this.d.upstreams.get(t.value.upstream);
    if (config?.userAuth === undefined) return err('the consent link names an upstream that is not configured for per-user authorization');
    const found = await this.discovery(t.value.upstream);
    if (!found.ok) return err(`upstream "${t.value.upstream}": ${found.error}`);
    const { server, resource } = found.value;
    const client = await resolveClient({ http: this.d.http, store: this.d.vault.store, publicUrl: this.d.config.publicUrl, clientOf: this.d.clientOf }, config.userAuth, server);
    if (!client.ok) return err(`upstream "${t.value.upstream}": ${client.error}`);
    const pkce = createPkce();
    const binding = newBinding();
    const scope = config.userAuth.scope ?? found.value.scope;
    const state = sealState(this.d.sealer, {
      principal: t.value.principal,
      subject: t.value.subject,
      upstream: t.value.upstream,
      expiresAt: this.d.now() + this.d.config.consentTimeoutMs,
      nonce: newNonce(),
      verifier: pkce.verifier,
      binding: binding.hash,
      clientId: client.value.id,
      issuer: server.issuer,
      tokenEndpoint: server.tokenEndpoint,
      resource,
      scope,
    });
    const url = new URL(server.authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.value.id);
    url.searchParams.set('redirect_uri', this.redirectUri);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', pkce.challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('resource', resource);
    if (scope !== undefined) url.searchParams.set('scope', scope);
    return ok({ location: url.href, bindingCookie: binding.cookie, upstream: t.value.upstream });
  }

  /** The callback: `query` as received; `cookieFor` finds this browser's binding cookie by its hash. */
  async complete(
    query: { code?: string; state?: string; error?: string; iss?: string },
    cookieFor: (bindingHash: string) => string | undefined,
  ): Promise<Result<{ upstream: string; subject: string }, string>> {
    if (query.state === undefined) return err('the callback has no state');
    const s = openState(this.d.sealer, query.state, this.d.now());
    if (!s.ok) return s;
    const st = s.value;
    if (!bindingMatches(cookieFor(st.binding), st.binding)) return err('this authorization was started in another browser (or its cookie is gone): open the consent link again here');
    // RFC 9207: where the server names itself, it must be the one the request went to (mix-up defence).
    if (query.iss !== undefined && query.iss !== st.issuer) return err('the callback comes from another authorization server than the one asked');
    if (!(await this.d.vault.store.consumeOnce(`state:${st.nonce}`, Math.max(1, st.expiresAt - this.d.now())))) return err('this authorization was already completed (the state is single-use)');
    if (query.error !== undefined) return err(`the authorization server refused: ${query.error.replace(/[^\x20-\x7E]/g, '?').slice(0, 100)}`);
    if (query.code === undefined) return err('the callback has no code');
    const config = this.d.upstreams.get(st.upstream);
    if (config?.userAuth === undefined) return err('the upstream is no longer configured for per-user authorization');
    const found = await this.discovery(st.upstream);
    if (!found.ok) return err(`upstream "${st.upstream}": ${found.error}`);
    const client = await resolveClient({ http: this.d.http, store: this.d.vault.store, publicUrl: this.d.config.publicUrl, clientOf: this.d.clientOf }, config.userAuth, found.value.server);
    if (!client.ok || client.value.id !== st.clientId) return err(`upstream "${st.upstream}": the client changed during the authorization: start again`);
    const started = this.d.now();
    const granted = await redeemCode(this.d.http, st.tokenEndpoint, client.value, { code: query.code, verifier: st.verifier, redirectUri: this.redirectUri, resource: st.resource });
    if (!granted.ok) {
      this.d.logger.warn('authorization code not redeemed', { upstream: st.upstream, principal: st.principal, reason: granted.error.reason });
      return err(`upstream "${st.upstream}": ${granted.error.reason}`);
    }
    const g = granted.value;
    const stored = await this.d.vault.write(st.principal, st.upstream, {
      accessToken: g.accessToken,
      refreshToken: g.refreshToken,
      expiresAt: started + (g.expiresInMs ?? 3_600_000),
      obtainedAt: this.d.now(),
      scope: g.scope ?? st.scope,
      clientId: st.clientId,
      issuer: st.issuer,
      tokenEndpoint: st.tokenEndpoint,
      resource: st.resource,
    }).then(
      () => undefined,
      (e: unknown) => (e as Error).message,
    );
    if (stored !== undefined) {
      this.d.logger.error('tokens not stored', { upstream: st.upstream, principal: st.principal, reason: stored });
      return err(`the tokens cannot be stored: ${stored}`);
    }
    this.d.logger.info('user connected an upstream', { upstream: st.upstream, principal: st.principal });
    return ok({ upstream: st.upstream, subject: st.subject });
  }
}
