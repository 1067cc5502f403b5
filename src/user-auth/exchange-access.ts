// The `exchange` way of reaching an upstream as each caller (user-access.ts; RFC 8693 OAuth
// 2.0 Token Exchange): the caller's own access token, already validated by the identity ring,
// is the subject token of a token request at the upstream's authorization server, which
// answers with a token for this upstream (its `audience` / `resource`). The caller's token
// goes to that authorization server only, never to the upstream (no passthrough). Exchanged
// tokens are kept in memory per caller and subject token until shortly before they expire;
// concurrent calls of one caller share one exchange.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { UpstreamUnavailable } from '../upstream/http/upstream-credentials.ts';
import type { HttpUpstreamConfig } from '../config/types.ts';
import type { OAuthHttp } from './oauth-http.ts';
import { exchangeToken } from './token-exchange-request.ts';
import type { ClientOf } from './client-secrets.ts';
import { loggableUrl } from '../upstream/http/failure-text.ts';
import type { UserAccess } from './user-access.ts';
import type { TokenAnswer } from './user-tokens.ts';

/** Callers whose subject token and exchanged token are kept; the least recently used go first. */
export const MAX_EXCHANGE_CALLERS = 10_000;
const MAX_MARGIN_MS = 30_000;
const UNSTATED_LIFETIME_MS = 300_000;

interface Exchanged {
  subject: string;
  accessToken: string;
  refreshAt: number;
}

export interface ExchangeAccess extends UserAccess {
  /** The upstream config it was made for (a reload that changes it makes a new one). */
  readonly config: HttpUpstreamConfig;
  /** The caller's current subject token (from the identity ring); only OAuth callers have one. */
  noteSubject(authContext: string, subjectToken: string): void;
}

export function exchangeAccess(config: HttpUpstreamConfig, d: { http: OAuthHttp; logger: Logger; now: () => number; clientOf: ClientOf }): ExchangeAccess {
  const ex = config.tokenExchange;
  if (ex === undefined) throw new Error('exchangeAccess: not a token_exchange upstream');
  const subjects = new LRUCache<string, string>({ max: MAX_EXCHANGE_CALLERS });
  const tokens = new LRUCache<string, Exchanged>({ max: MAX_EXCHANGE_CALLERS });
  const inflight = new Map<string, Promise<Result<TokenAnswer, UpstreamUnavailable>>>();
  const digest = (s: string): string => createHash('sha256').update(s).digest('base64url');
  const exchange = async (authContext: string, subject: string): Promise<Result<TokenAnswer, UpstreamUnavailable>> => {
    const started = d.now();
    const client = await d.clientOf(ex.client);
    const got = client.ok ? await exchangeToken(d.http, ex, client.value, subject, ex.resource ?? config.url) : client;
    if (!got.ok) {
      d.logger.warn('token exchange failed', { upstream: config.name, principal: authContext, tokenUrl: loggableUrl(ex.tokenUrl), reason: got.error });
      return err({ kind: 'upstream_unavailable', upstream: config.name, reason: `cannot exchange your token for one for this upstream: ${got.error}` });
    }
    const lifetime = got.value.expiresInMs ?? UNSTATED_LIFETIME_MS;
    tokens.set(authContext, { subject: digest(subject), accessToken: got.value.accessToken, refreshAt: started + lifetime - Math.min(MAX_MARGIN_MS, lifetime / 10) });
    return ok({ kind: 'token', accessToken: got.value.accessToken });
  };
  return {
    config,
    kind: 'exchange',
    note: "reached with a token exchanged for each caller's own OAuth token (RFC 8693); callers without one (API keys, anonymous) are refused",
    ready: async () => ok(undefined),
    noteSubject: (authContext, subjectToken) => void subjects.set(authContext, subjectToken),
    async current(authContext) {
      const subject = subjects.get(authContext);
      if (subject === undefined) return ok({ kind: 'none' });
      const kept = tokens.get(authContext);
      if (kept !== undefined && kept.subject === digest(subject) && d.now() < kept.refreshAt) return ok({ kind: 'token', accessToken: kept.accessToken });
      let flight = inflight.get(authContext);
      if (flight === undefined) {
        flight = exchange(authContext, subject).finally(() => inflight.delete(authContext));
        inflight.set(authContext, flight);
      }
      return flight;
    },
    async rejected(authContext, _upstream, sent) {
      const kept = tokens.get(authContext);
      if (kept === undefined || kept.accessToken !== sent) return kept !== undefined;
      tokens.delete(authContext);
      return true;
    },
    missing: (_caller, upstream) =>
      err({ kind: 'upstream_unavailable', upstream, reason: 'this upstream is reached with a token exchanged for your own OAuth access token: call the gateway with one (an API key cannot be exchanged)' }),
  };
}
