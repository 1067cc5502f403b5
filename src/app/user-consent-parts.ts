// The parts of per-user consent (`auth: { type: user }`) that one `userAuth` section and one
// set of such upstreams make: the sealer and vault over the token store, the consent flow, the
// token source and the /oauth routes. A config reload that changes the section or those
// upstreams makes new parts over the same store (user-auth-wiring.ts), so users' tokens stay;
// what the upstreams hold points at "the parts in service now" (liveConsentAccess), never at
// one set of parts.
import { Redis } from 'ioredis';
import type { Hono } from 'hono';
import { createSealer } from '../approvals/sealed-token.ts';
import type { GatewayConfig, HttpUpstreamConfig } from '../config/types.ts';
import type { Authenticate } from '../identity/authenticate.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { OAuthClient } from '../user-auth/client-registration.ts';
import type { ClientOf } from '../user-auth/client-secrets.ts';
import { CONSENT_NOTE, consentAccess } from '../user-auth/consent-access.ts';
import type { OAuthHttp } from '../user-auth/oauth-http.ts';
import { createRedisTokenStore } from '../user-auth/redis-token-store.ts';
import { createMemoryTokenStore, type TokenStore } from '../user-auth/token-store.ts';
import { createTokenVault, type TokenVault } from '../user-auth/token-vault.ts';
import type { UserAccess } from '../user-auth/user-access.ts';
import type { UserAuthConfig } from '../user-auth/user-auth-config.ts';
import { userAuthRoutes, type UserAuthEvent } from '../user-auth/user-auth-routes.ts';
import { UserAuthorization } from '../user-auth/user-authorization.ts';
import type { UserToken } from '../user-auth/user-token.ts';
import { UserTokens } from '../user-auth/user-tokens.ts';

export interface ConsentParts {
  section: UserAuthConfig;
  configs: ReadonlyMap<string, HttpUpstreamConfig>;
  vault: TokenVault;
  access: UserAccess;
  routes: Hono;
}

export interface ConsentBuild {
  http: OAuthHttp;
  clientOf: ClientOf;
  authenticate: Authenticate;
  event: (name: UserAuthEvent, detail: JsonObject) => void;
  /** Drops the user's open connection to the upstream, so no later call reuses it. */
  forget: (authContext: string, upstream: string) => Promise<void>;
  logger: Logger;
  now: () => number;
}

export function openTokenStore(store: NonNullable<GatewayConfig['userAuth']>['store']): TokenStore {
  if (store.kind === 'memory') return createMemoryTokenStore();
  const redis = new Redis(store.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 2000, connectTimeout: 2000 });
  redis.on('error', () => undefined);
  return createRedisTokenStore(redis, store.prefix);
}

export function buildConsentParts(section: UserAuthConfig, configs: ReadonlyMap<string, HttpUpstreamConfig>, store: TokenStore, b: ConsentBuild): ConsentParts {
  if (!section.verifyConsentUser) {
    b.logger.warn('userAuth.verifyConsentUser is false: a consent link opened by someone other than the user it names is not refused, which weakens the phishing protection of MCP 2025-11-25 (client/elicitation, URL mode)', {});
  }
  const sealer = createSealer(section.keys);
  const vault = createTokenVault(section.keys, store, sealer);
  const authorization = new UserAuthorization({ config: section, upstreams: configs, sealer, vault, http: b.http, clientOf: b.clientOf, logger: b.logger, now: b.now });
  // The client a stored token was issued to: the configured one, or the public/registered one it names.
  const clientFor = async (upstream: string, token: UserToken): Promise<Result<OAuthClient, string>> => {
    const configured = configs.get(upstream)?.userAuth?.client;
    if (configured !== undefined && configured.id === token.clientId) return b.clientOf(configured);
    const registered = await vault.store.getClient(token.issuer);
    const r = registered === undefined ? undefined : (JSON.parse(registered) as { id?: string; secret?: string });
    const secret = r?.id === token.clientId ? r.secret : undefined;
    return ok({ id: token.clientId, secret, auth: secret === undefined ? 'none' : 'client_secret_basic' });
  };
  const tokens = new UserTokens({ vault, http: b.http, clientFor, logger: b.logger, now: b.now });
  const routes = userAuthRoutes({ config: section, authorization, vault, authenticate: b.authenticate, event: b.event, logger: b.logger, upstreams: [...configs.keys()], forget: b.forget });
  return { section, configs, vault, access: consentAccess(tokens, authorization), routes };
}

/** The consent access of whichever parts are in service when it is used. */
export function liveConsentAccess(current: () => ConsentParts | undefined): UserAccess {
  const gone = (upstream: string) => ({ kind: 'upstream_unavailable' as const, upstream, reason: 'this upstream is no longer configured for per-user authorization' });
  const parts = (upstream: string): ConsentParts | undefined => {
    const c = current();
    return c?.configs.has(upstream) === true ? c : undefined;
  };
  return {
    kind: 'consent',
    note: CONSENT_NOTE,
    ready: (upstream) => parts(upstream)?.access.ready(upstream) ?? Promise.resolve(err(gone(upstream).reason)),
    current: (authContext, upstream) => parts(upstream)?.access.current(authContext, upstream) ?? Promise.resolve(err(gone(upstream))),
    rejected: (authContext, upstream, sent) => parts(upstream)?.access.rejected(authContext, upstream, sent) ?? Promise.resolve(false),
    missing: (caller, upstream) => parts(upstream)?.access.missing(caller, upstream) ?? err(gone(upstream)),
  };
}
