// The HTTP face of per-user authorization, a Hono sub-app under /oauth:
//   GET  /oauth/client-metadata.json   the gateway's client metadata document (its client_id)
//   GET  /oauth/connect?ticket=...     the confirmation page of a consent link
//   POST /oauth/connect                starts the authorization: binding cookie, then the
//                                      authorization server (same-origin form posts only)
//   GET  /oauth/callback               the redirect URI: checks state and binding, redeems the code
//   GET  /oauth/connections            the caller's own connections, and consent links for the
//                                      others (gateway credentials)
//   DELETE /oauth/connections/:upstream   the caller removes their own connection
// The connection routes authenticate with the gateway's identity (a header, never a cookie,
// so no other site can ride on them); the browser routes carry only sealed state.
import { Hono, type Context } from 'hono';
import { crossSiteReason, originsOf } from '../http/cross-site.ts';
import type { Authenticate } from '../identity/authenticate.ts';
import type { Principal } from '../identity/principal.ts';
import type { JsonObject } from '../protocol/message.ts';
import type { Logger } from '../telemetry/logger.ts';
import { CALLBACK_PATH, CLIENT_METADATA_PATH, clientMetadata } from './client-metadata-document.ts';
import { confirmPage, donePage, failedPage } from './consent-page.ts';
import { bindingHash } from './consent-state.ts';
import type { TokenVault } from './token-vault.ts';
import type { UserAuthConfig } from './user-auth-config.ts';
import { CONNECT_PATH, type UserAuthorization } from './user-authorization.ts';

export const CONNECTIONS_PATH = '/oauth/connections';
const COOKIE_PREFIX = 'gatehouse_oauth_';
const MAX_FORM_BYTES = 16 * 1024;
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; form-action 'self' https: http:; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // Not no-referrer: with it the browser sends `Origin: null` on the confirmation's form post,
  // which the origin check refuses. same-origin still keeps the ticket and code from other sites.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

export type UserAuthEvent = 'user_consent_started' | 'user_consent_completed' | 'user_consent_failed' | 'user_disconnected';

export interface UserAuthRoutesDeps {
  config: UserAuthConfig;
  authorization: UserAuthorization;
  vault: TokenVault;
  authenticate: Authenticate;
  /** Drops the user's open connection to the upstream, so no later call reuses it. */
  forget: (authContext: string, upstream: string) => Promise<void>;
  /** Names of the upstreams with auth type user. */
  upstreams: readonly string[];
  event: (name: UserAuthEvent, detail: JsonObject) => void;
  logger: Logger;
}

export function userAuthRoutes(d: UserAuthRoutesDeps): Hono {
  const app = new Hono();
  const secure = d.config.publicUrl.startsWith('https:');
  const html = (c: Context, body: string, status: 200 | 400 | 403 = 200): Response => {
    for (const [k, v] of Object.entries(PAGE_HEADERS)) c.header(k, v);
    return c.html(body, status);
  };

  app.get(CLIENT_METADATA_PATH, (c) => c.json(clientMetadata(d.config.publicUrl)));

  app.get(CONNECT_PATH, (c) => {
    const ticket = c.req.query('ticket') ?? '';
    const t = d.authorization.readTicket(ticket);
    if (!t.ok) return html(c, failedPage(t.error), 400);
    return html(c, confirmPage({ upstream: t.value.upstream, subject: t.value.subject, ticket, action: CONNECT_PATH }));
  });

  app.post(CONNECT_PATH, async (c) => {
    // A cross-site form could otherwise start someone else's consent in this browser.
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== new URL(d.config.publicUrl).origin) return html(c, failedPage('cross-site requests are refused'), 403);
    const site = c.req.header('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return html(c, failedPage('cross-site requests are refused'), 403);
    if (Number(c.req.header('content-length') ?? 0) > MAX_FORM_BYTES) return html(c, failedPage('the form is too large'), 400);
    const form = new URLSearchParams(await c.req.text());
    const started = await d.authorization.start(form.get('ticket') ?? '').catch((e: unknown) => ({ ok: false as const, error: `the gateway cannot start it right now (${(e as Error).message})` }));
    if (!started.ok) {
      d.event('user_consent_failed', { stage: 'start', reason: started.error });
      return html(c, failedPage(started.error), 400);
    }
    d.event('user_consent_started', { upstream: started.value.upstream });
    // Per flow, so two consents in one browser do not overwrite each other; Lax: the callback
    // is a top-level navigation from the authorization server.
    const name = cookieName(bindingHash(started.value.bindingCookie));
    const maxAge = Math.ceil(d.config.consentTimeoutMs / 1000);
    c.header('set-cookie', `${name}=${started.value.bindingCookie}; Path=${CALLBACK_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
    c.header('cache-control', 'no-store');
    return c.redirect(started.value.location, 303);
  });

  app.get(CALLBACK_PATH, async (c) => {
    const q = c.req.query();
    const cookies = parseCookies(c.req.header('cookie'));
    const pick = (k: string): string | undefined => (typeof q[k] === 'string' ? q[k] : undefined);
    const candidates = Object.entries(cookies).filter(([k]) => k.startsWith(COOKIE_PREFIX));
    // The cookie of this flow is named after the binding hash that the state holds.
    const outcome = await d.authorization
      .complete({ code: pick('code'), state: pick('state'), error: pick('error'), iss: pick('iss') }, (hash) => cookies[cookieName(hash)])
      .catch((e: unknown) => ({ ok: false as const, error: `the gateway cannot complete it right now (${(e as Error).message})` }));
    for (const [k] of candidates) c.header('set-cookie', `${k}=; Path=${CALLBACK_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`, { append: true });
    if (!outcome.ok) {
      d.event('user_consent_failed', { stage: 'callback', reason: outcome.error });
      return html(c, failedPage(outcome.error), 400);
    }
    d.event('user_consent_completed', { upstream: outcome.value.upstream, subject: outcome.value.subject });
    return html(c, donePage(outcome.value.upstream, outcome.value.subject));
  });

  const caller = async (c: Context): Promise<Principal | Response> => {
    const auth = await d.authenticate(c.req.raw.headers);
    if (!auth.ok) {
      if (auth.error.wwwAuthenticate !== '') c.header('www-authenticate', auth.error.wwwAuthenticate);
      return c.json({ error: auth.error.error, message: auth.error.description }, auth.error.status);
    }
    if (auth.value.method === 'anonymous') return c.json({ error: 'missing_credentials', message: 'authenticate with your gateway credentials' }, 401);
    return auth.value;
  };

  app.get(CONNECTIONS_PATH, async (c) => {
    const who = await caller(c);
    if (who instanceof Response) return who;
    const mine = (await d.vault.list()).filter((l) => l.principal === who.authContext);
    // The fallback for clients that cannot show a consent link: a fresh one per upstream not yet connected.
    const pending = d.upstreams.filter((u) => !mine.some((l) => l.upstream === u)).map((u) => ({ upstream: u, connect: d.authorization.consentLink(who.authContext, who.subject, u) }));
    return c.json({ subject: who.subject, connections: mine.map((l) => ({ upstream: l.upstream, expiresAt: new Date(l.expiresAt).toISOString(), scope: l.scope ?? null, refreshable: l.refreshable })), pending });
  });

  app.delete(`${CONNECTIONS_PATH}/:upstream`, async (c) => {
    // The credential is a header, so no other site can send this; a browser still says where
    // a request came from, and one from elsewhere is refused all the same (as the console's decisions).
    const crossSite = crossSiteReason(c.req.raw.headers, originsOf(c.req.url, d.config.publicUrl));
    if (crossSite !== undefined) return c.json({ error: 'csrf', message: crossSite }, 403);
    const who = await caller(c);
    if (who instanceof Response) return who;
    const upstream = c.req.param('upstream');
    const removed = await d.vault.remove(who.authContext, upstream);
    await d.forget(who.authContext, upstream);
    d.event('user_disconnected', { upstream, principal: who.authContext, by: 'user', removed });
    return c.json({ upstream, removed });
  });

  return app;
}

const cookieName = (hash: string): string => COOKIE_PREFIX + hash.slice(0, 16).replace(/[^A-Za-z0-9]/g, 'x');

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}
