// The HTTP face of per-user authorization, a Hono sub-app under /oauth:
//   GET  /oauth/client-metadata.json   the gateway's client metadata document (its client_id)
//   GET  /oauth/connect?ticket=...     the confirmation page of a consent link
//   POST /oauth/connect                checks that the browser signed in as the user the ticket
//                                      names (consent-user.ts), then starts the authorization:
//                                      binding cookie, and where the authorization server is
//   GET  /oauth/assets/*.js            the confirmation page's scripts (the console's sign-in)
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
import { CONSENT_JS, SIGN_IN_JS } from '../approvals/console-assets.ts';
import { confirmPage, donePage, failedPage } from './consent-page.ts';
import { checkConsentUser } from './consent-user.ts';
import { bindingHash } from './consent-state.ts';
import type { TokenVault } from './token-vault.ts';
import type { UserAuthConfig } from './user-auth-config.ts';
import { CONNECT_PATH, type UserAuthorization } from './user-authorization.ts';

export const CONNECTIONS_PATH = '/oauth/connections';
const ASSETS_PATH = '/oauth/assets';
const COOKIE_PREFIX = 'gatehouse_oauth_';
const MAX_FORM_BYTES = 16 * 1024;
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  // The confirmation page's own scripts, and its one request (the POST below), are all it may load.
  'content-security-policy': "default-src 'none'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // same-origin: the ticket and the code never reach other sites in a Referer.
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
    return html(c, confirmPage({ upstream: t.value.upstream, subject: t.value.subject, ticket, action: CONNECT_PATH, verify: d.config.verifyConsentUser }));
  });

  app.post(CONNECT_PATH, async (c) => {
    // Answered as JSON to the confirmation page's script (consent.js). Another site must not
    // start a consent in this browser: what a browser marks as cross-site is refused, and a
    // plain form can send neither JSON nor the credential header that the check below needs.
    const refuse = (status: 400 | 401 | 403 | 415 | 503, error: string, message: string, detail: JsonObject = {}): Response => {
      d.event('user_consent_failed', { stage: 'start', reason: message, error, ...detail });
      c.header('cache-control', 'no-store');
      return c.json({ error, message }, status);
    };
    const crossSite = crossSiteReason(c.req.raw.headers, originsOf(c.req.url, d.config.publicUrl));
    if (crossSite !== undefined) return refuse(403, 'csrf', crossSite);
    if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) return refuse(415, 'unsupported_media_type', 'expected a JSON body from the confirmation page');
    if (Number(c.req.header('content-length') ?? 0) > MAX_FORM_BYTES) return refuse(400, 'too_large', 'the request is too large');
    const text = await c.req.text();
    if (text.length > MAX_FORM_BYTES) return refuse(400, 'too_large', 'the request is too large');
    const ticket = ticketOf(text);
    const t = d.authorization.readTicket(ticket);
    if (!t.ok) return refuse(400, 'invalid_link', t.error);
    const about: JsonObject = { upstream: t.value.upstream, principal: t.value.principal };
    if (d.config.verifyConsentUser) {
      const who = await checkConsentUser(d.authenticate, c.req.raw.headers, t.value);
      if (!who.ok) {
        const signedIn: JsonObject = who.error.signedIn === undefined ? {} : { signedInAs: who.error.signedIn.authContext };
        if (who.error.error === 'other_user') d.logger.warn('consent link opened by another gateway user: refused', { ...about, ...signedIn });
        return refuse(who.error.status, who.error.error, who.error.message, { ...about, ...signedIn });
      }
    }
    const started = await d.authorization.start(ticket).catch((e: unknown) => ({ ok: false as const, error: `the gateway cannot start it right now (${(e as Error).message})` }));
    if (!started.ok) return refuse(400, 'not_started', started.error, about);
    d.event('user_consent_started', { upstream: started.value.upstream, principal: t.value.principal, userVerified: d.config.verifyConsentUser });
    // Per flow, so two consents in one browser do not overwrite each other; Lax: the callback
    // is a top-level navigation from the authorization server.
    const name = cookieName(bindingHash(started.value.bindingCookie));
    const maxAge = Math.ceil(d.config.consentTimeoutMs / 1000);
    c.header('set-cookie', `${name}=${started.value.bindingCookie}; Path=${CALLBACK_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
    c.header('cache-control', 'no-store');
    return c.json({ location: started.value.location });
  });

  app.get(`${ASSETS_PATH}/sign-in.js`, (c) => c.body(SIGN_IN_JS, 200, { 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff' }));
  app.get(`${ASSETS_PATH}/consent.js`, (c) => c.body(CONSENT_JS, 200, { 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff' }));

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

/** The ticket of the confirmation page's JSON body; '' when there is none (refused as invalid). */
function ticketOf(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    const t = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).ticket : undefined;
    return typeof t === 'string' ? t : '';
  } catch {
    return '';
  }
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
