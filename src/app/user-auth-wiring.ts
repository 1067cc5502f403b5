// Builds the upstreams reached as each caller when any upstream has `auth: { type: user }` or
// `{ type: token_exchange }`: for consent, the token store (memory or Redis), the vault that
// seals into it, the consent flow, the token source and the /oauth routes; for exchange, one
// exchange source per upstream, told of each OAuth caller's token. Nothing is built, and no
// route exists, when no upstream needs it.
import { Agent } from 'undici';
import { Redis } from 'ioredis';
import type { Hono } from 'hono';
import { createSealer } from '../approvals/sealed-token.ts';
import type { GatewayConfig, HttpUpstreamConfig, UpstreamConfig } from '../config/types.ts';
import type { Authenticate } from '../identity/authenticate.ts';
import type { AnswerBudget } from '../limits/answer-budget.ts';
import type { Call } from '../protocol/call.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { OAuthClient } from '../user-auth/client-registration.ts';
import { consentAccess } from '../user-auth/consent-access.ts';
import { exchangeAccess, type ExchangeAccess } from '../user-auth/exchange-access.ts';
import { createOAuthHttp } from '../user-auth/oauth-http.ts';
import { createRedisTokenStore } from '../user-auth/redis-token-store.ts';
import { createMemoryTokenStore, type TokenStore } from '../user-auth/token-store.ts';
import { createTokenVault, type TokenVault } from '../user-auth/token-vault.ts';
import type { UserAccess } from '../user-auth/user-access.ts';
import { userAuthRoutes, type UserAuthEvent } from '../user-auth/user-auth-routes.ts';
import { UserAuthorization } from '../user-auth/user-authorization.ts';
import type { UserToken } from '../user-auth/user-token.ts';
import { UserTokens } from '../user-auth/user-tokens.ts';
import { UserUpstream } from '../user-auth/user-upstream.ts';

/** Token and metadata requests: rare, small, and never behind tool calls. */
const OAUTH_TIMEOUT_MS = 10_000;
const BEARER = /^Bearer\s+(\S+)$/i;

export interface UserAuthRuntime {
  upstream(config: HttpUpstreamConfig, budget?: AnswerBudget): UserUpstream;
  /** The /oauth routes; undefined without consent upstreams. */
  routes(authenticate: Authenticate, event: (name: UserAuthEvent, detail: JsonObject) => void): Hono | undefined;
  noteCaller(call: Call): void;
  /** Whether users connect their own accounts here (the /oauth/connections routes exist). */
  hasConsent(): boolean;
  /** What every gateway generation gets of it: the routes and the caller hook. */
  sharedParts(authenticate: Authenticate, event: (name: UserAuthEvent, detail: JsonObject) => void): { noteCaller: (call: Call) => void; userAuthRoutes?: Hono };
  close(): Promise<void>;
}

/** The upstream for `u` when it is reached as each caller; undefined for any other. */
export function perUserUpstream(u: UpstreamConfig, runtime: UserAuthRuntime | undefined, budget?: AnswerBudget): UserUpstream | undefined {
  if (u.kind !== 'http' || (u.userAuth === undefined && u.tokenExchange === undefined)) return undefined;
  // Never a plain connection: it would reach the upstream without the caller's credential.
  if (runtime === undefined) throw new Error(`upstream "${u.name}": per-user authorization was not configured at start; restart the gateway to add it`);
  return runtime.upstream(u, budget);
}

export function openTokenStore(store: NonNullable<GatewayConfig['userAuth']>['store']): TokenStore {
  if (store.kind === 'memory') return createMemoryTokenStore();
  const redis = new Redis(store.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 2000, connectTimeout: 2000 });
  redis.on('error', () => undefined);
  return createRedisTokenStore(redis, store.prefix);
}

interface Consent {
  vault: TokenVault;
  authorization: UserAuthorization;
  access: UserAccess;
}

export function createUserAuth(config: GatewayConfig, logger: Logger, now: () => number = Date.now): UserAuthRuntime | undefined {
  const http_ = config.upstreams.flatMap((u) => (u.kind === 'http' ? [u] : []));
  // Mutable: a config reload may add or change such upstreams (the userAuth section itself is boot-only).
  const consentConfigs = new Map<string, HttpUpstreamConfig>(http_.flatMap((u) => (u.userAuth !== undefined ? [[u.name, u] as const] : [])));
  const exchangeConfigs = http_.filter((u) => u.tokenExchange !== undefined);
  if (consentConfigs.size === 0 && exchangeConfigs.length === 0) return undefined;
  const log = logger.child({ component: 'user-auth' });
  const agent = new Agent({ connections: 4, keepAliveTimeout: 4000 });
  const http = createOAuthHttp(agent, OAUTH_TIMEOUT_MS);
  const consent = consentConfigs.size > 0 && config.userAuth !== undefined ? buildConsent(config.userAuth, consentConfigs, http, log, now) : undefined;
  const exchanges = new Map<string, ExchangeAccess>(exchangeConfigs.map((u) => [u.name, exchangeAccess(u, { http, logger: log, now })]));
  const made = new Map<string, UserUpstream>();
  const runtime: UserAuthRuntime = {
    upstream(c, budget) {
      if (c.tokenExchange !== undefined && exchanges.get(c.name)?.config !== c) exchanges.set(c.name, exchangeAccess(c, { http, logger: log, now }));
      if (c.userAuth !== undefined) consentConfigs.set(c.name, c);
      const access = c.tokenExchange !== undefined ? exchanges.get(c.name) : consent?.access;
      if (access === undefined) throw new Error(`upstream "${c.name}": auth type user needs the userAuth section at start; restart the gateway to take it`);
      const u = new UserUpstream(c, { access, withoutConsent: config.userAuth?.withoutConsent ?? 'show', logger, ...(budget ? { budget } : {}) });
      made.set(c.name, u);
      return u;
    },
    routes: (authenticate, event) =>
      consent === undefined || config.userAuth === undefined
        ? undefined
        : userAuthRoutes({
            config: config.userAuth,
            authorization: consent.authorization,
            vault: consent.vault,
            authenticate,
            event,
            logger: log,
            upstreams: [...consentConfigs.keys()],
            forget: async (authContext, upstream) => made.get(upstream)?.forget(authContext),
          }),
    hasConsent: () => consent !== undefined && config.userAuth !== undefined,
    noteCaller(call) {
      // Only a validated OAuth token is a subject token; an API key is never sent anywhere.
      if (exchanges.size === 0 || call.principal.method !== 'jwt') return;
      const token = BEARER.exec(call.headers('authorization') ?? '')?.[1];
      if (token !== undefined) for (const x of exchanges.values()) x.noteSubject(call.authContext, token);
    },
    sharedParts(authenticate, event) {
      const userAuthRoutes = runtime.routes(authenticate, event);
      return { noteCaller: (call) => runtime.noteCaller(call), ...(userAuthRoutes ? { userAuthRoutes } : {}) };
    },
    async close() {
      await consent?.vault.store.close();
      await agent.destroy().catch(() => undefined);
    },
  };
  return runtime;
}

function buildConsent(ua: NonNullable<GatewayConfig['userAuth']>, configs: ReadonlyMap<string, HttpUpstreamConfig>, http: ReturnType<typeof createOAuthHttp>, log: Logger, now: () => number): Consent {
  const sealer = createSealer(ua.keys);
  const vault = createTokenVault(ua.keys, openTokenStore(ua.store), sealer);
  const authorization = new UserAuthorization({ config: ua, upstreams: configs, sealer, vault, http, logger: log, now });
  // The client a stored token was issued to: the configured one, or the public/registered one it names.
  const clientFor = async (upstream: string, token: UserToken): Promise<Result<OAuthClient, string>> => {
    const configured = configs.get(upstream)?.userAuth?.client;
    if (configured !== undefined && configured.id === token.clientId) {
      return ok({ id: configured.id, secret: configured.secret, auth: configured.secret === undefined ? 'none' : configured.auth });
    }
    const registered = await vault.store.getClient(token.issuer);
    const r = registered === undefined ? undefined : (JSON.parse(registered) as { id?: string; secret?: string });
    const secret = r?.id === token.clientId ? r.secret : undefined;
    return ok({ id: token.clientId, secret, auth: secret === undefined ? 'none' : 'client_secret_basic' });
  };
  const tokens = new UserTokens({ vault, http, clientFor, logger: log, now });
  return { vault, authorization, access: consentAccess(tokens, authorization) };
}
