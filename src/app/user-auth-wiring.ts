// The upstreams reached as each caller (`auth: { type: user }` and `{ type: token_exchange }`),
// across config reloads. One runtime for the gateway's life: `reconfigure` takes each config
// going into service — at start and at every reload that is applied — and makes what it
// needs: for consent, new parts (user-consent-parts.ts) over the token store that stays open,
// so users' tokens survive; for exchange, one exchange source per upstream, kept while its
// config is the same. The upstreams and the /oauth routes always reach the parts in service
// now, so a reload that adds, changes or removes such an upstream (or changes `userAuth`) takes
// effect at once; the routes answer 404 while no upstream needs consent. Changing the token
// store itself is refused by the reload (config/live-changes.ts): the tokens live in it.
import { Agent } from 'undici';
import { Hono } from 'hono';
import { sameValue } from '../config/live-changes.ts';
import type { GatewayConfig, HttpUpstreamConfig, UpstreamConfig } from '../config/types.ts';
import type { Authenticate } from '../identity/authenticate.ts';
import type { AnswerBudget } from '../limits/answer-budget.ts';
import type { Call } from '../protocol/call.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import { clientSecrets } from '../user-auth/client-secrets.ts';
import { exchangeAccess, type ExchangeAccess } from '../user-auth/exchange-access.ts';
import { createOAuthHttp } from '../user-auth/oauth-http.ts';
import type { TokenStore } from '../user-auth/token-store.ts';
import type { UserAccess } from '../user-auth/user-access.ts';
import type { UserAuthEvent } from '../user-auth/user-auth-routes.ts';
import { UserUpstream } from '../user-auth/user-upstream.ts';
import { buildConsentParts, liveConsentAccess, openTokenStore, type ConsentParts } from './user-consent-parts.ts';

export { openTokenStore } from './user-consent-parts.ts';

/** Token and metadata requests: rare, small, and never behind tool calls. */
const OAUTH_TIMEOUT_MS = 10_000;
const BEARER = /^Bearer\s+(\S+)$/i;

type UserAuthSection = NonNullable<GatewayConfig['userAuth']>;

export interface UserAuthRuntime {
  upstream(config: HttpUpstreamConfig, budget?: AnswerBudget): UserUpstream;
  /** Puts what `config` asks for in service; call it as the config goes into service. */
  reconfigure(config: GatewayConfig): void;
  noteCaller(call: Call): void;
  /** Whether users connect their own accounts now (the /oauth/connections routes answer). */
  hasConsent(): boolean;
  /** What every gateway generation gets of it: the /oauth routes and the caller hook. */
  sharedParts(authenticate: Authenticate, event: (name: UserAuthEvent, detail: JsonObject) => void): { noteCaller: (call: Call) => void; userAuthRoutes: Hono };
  close(): Promise<void>;
}

/** The upstream for `u` when it is reached as each caller; undefined for any other. */
export function perUserUpstream(u: UpstreamConfig, runtime: UserAuthRuntime, budget?: AnswerBudget): UserUpstream | undefined {
  if (u.kind !== 'http' || (u.userAuth === undefined && u.tokenExchange === undefined)) return undefined;
  return runtime.upstream(u, budget);
}

export function createUserAuth(config: GatewayConfig, logger: Logger, now: () => number = Date.now): UserAuthRuntime {
  const log = logger.child({ component: 'user-auth' });
  const agent = new Agent({ connections: 4, keepAliveTimeout: 4000 });
  const http = createOAuthHttp(agent, OAUTH_TIMEOUT_MS);
  const clientOf = clientSecrets(log, now);
  let exchanges = new Map<string, ExchangeAccess>();
  let withoutConsent: UserAuthSection['withoutConsent'] = 'show';
  let consent: ConsentParts | undefined;
  let store: { config: UserAuthSection['store']; store: TokenStore } | undefined;
  /** The newest upstream made per name, for a user's disconnect. */
  const made = new Map<string, UserUpstream>();
  let build: { authenticate: Authenticate; event: (name: UserAuthEvent, detail: JsonObject) => void } | undefined;
  let latest = config;
  const consentNow = (): ConsentParts | undefined => consent;
  const consentLive = liveConsentAccess(consentNow);

  const exchangeLive = (name: string): UserAccess => {
    const x = (): ExchangeAccess | undefined => exchanges.get(name);
    const gone = { kind: 'upstream_unavailable' as const, upstream: name, reason: 'this upstream is no longer configured for token exchange' };
    return {
      kind: 'exchange',
      note: "reached with a token exchanged for each caller's own OAuth token (RFC 8693); callers without one (API keys, anonymous) are refused",
      ready: (u) => x()?.ready(u) ?? Promise.resolve(err(gone.reason)),
      current: (a, u) => x()?.current(a, u) ?? Promise.resolve(err(gone)),
      rejected: (a, u, sent) => x()?.rejected(a, u, sent) ?? Promise.resolve(false),
      missing: (caller, u) => x()?.missing(caller, u) ?? err(gone),
    };
  };

  const storeFor = (section: UserAuthSection): TokenStore => {
    if (store !== undefined && sameValue(store.config, section.store)) return store.store;
    // Only when no section was in service (the reload refuses a change of a store in use).
    const old = store?.store;
    if (old !== undefined) void old.close().catch(() => undefined);
    store = { config: section.store, store: openTokenStore(section.store) };
    return store.store;
  };

  const reconfigureConsent = (next: GatewayConfig): void => {
    const configs = new Map(next.upstreams.flatMap((u) => (u.kind === 'http' && u.userAuth !== undefined ? [[u.name, u] as const] : [])));
    if (next.userAuth === undefined || configs.size === 0 || build === undefined) {
      if (consent !== undefined) log.info('per-user consent no longer in use: /oauth routes answer 404', {});
      consent = undefined;
      return;
    }
    if (consent !== undefined && sameValue(consent.section, next.userAuth) && sameValue([...consent.configs.values()], [...configs.values()])) return;
    consent = buildConsentParts(next.userAuth, configs, storeFor(next.userAuth), {
      http,
      clientOf,
      ...build,
      forget: async (authContext, upstream) => made.get(upstream)?.forget(authContext),
      logger: log,
      now,
    });
  };

  const runtime: UserAuthRuntime = {
    upstream(c, budget) {
      const access = c.tokenExchange !== undefined ? exchangeLive(c.name) : consentLive;
      const u = new UserUpstream(c, { access, withoutConsent: () => withoutConsent, logger, ...(budget ? { budget } : {}) });
      made.set(c.name, u);
      return u;
    },
    reconfigure(next) {
      latest = next;
      withoutConsent = next.userAuth?.withoutConsent ?? 'show';
      const nextExchanges = new Map<string, ExchangeAccess>();
      for (const u of next.upstreams) {
        if (u.kind !== 'http' || u.tokenExchange === undefined) continue;
        const kept = exchanges.get(u.name);
        nextExchanges.set(u.name, kept !== undefined && sameValue(kept.config, u) ? kept : exchangeAccess(u, { http, logger: log, now, clientOf }));
      }
      exchanges = nextExchanges;
      reconfigureConsent(next);
    },
    hasConsent: () => consent !== undefined,
    noteCaller(call) {
      // Only a validated OAuth token is a subject token; an API key is never sent anywhere.
      if (exchanges.size === 0 || call.principal.method !== 'jwt') return;
      const token = BEARER.exec(call.headers('authorization') ?? '')?.[1];
      if (token !== undefined) for (const x of exchanges.values()) x.noteSubject(call.authContext, token);
    },
    sharedParts(authenticate, event) {
      build = { authenticate, event };
      reconfigureConsent(latest);
      const routes = new Hono();
      // The routes of the parts in service now; none (404, as any unknown path) without consent.
      routes.use('/oauth/*', async (c, next) => {
        const parts = consent;
        if (parts === undefined) return next();
        return parts.routes.fetch(c.req.raw, c.env);
      });
      return { noteCaller: (call) => runtime.noteCaller(call), userAuthRoutes: routes };
    },
    async close() {
      await store?.store.close();
      await agent.destroy().catch(() => undefined);
    },
  };
  runtime.reconfigure(config);
  return runtime;
}
