// The HTTP face of approvals, as a Hono sub-app the server mounts:
//   GET  /approvals                   the console page (static HTML, no data in it)
//   GET  /approvals/assets/...        its scripts, style and icon (separate files: the CSP
//                                     allows no inline script or style); connections.js shows
//                                     a signed-in user their own per-user upstream connections
//                                     from the /oauth/connections routes (user-auth-routes.ts)
//   GET  /approvals/api/me            who signed in, and whether they see the queue or their connections
//   GET  /approvals/api/pending       pending console approvals (JSON; approvers only)
//   POST /approvals/:id/decision      a console decision (approvers only, CSRF-checked)
//   POST /approvals/:id               a webhook callback (signed with the shared secret)
// Approvers authenticate with the gateway's own identity (a header, never a cookie, so a
// cross-site page cannot ride on a session); decisions additionally need a custom header
// and a JSON body (both force a CORS preflight this app never grants) and a same-origin
// Origin / Sec-Fetch-Site when the browser sends them. Everything shown is data rendered
// with textContent in the page, never markup. Body limits beyond the callback's own cap,
// request ids and tracing are the HTTP ring's.
import { Hono, type Context } from 'hono';
import { limitBody } from '../http/body-limit.ts';
import { crossSiteReason, originsOf } from '../http/cross-site.ts';
import { escapeHiddenCharacters, valueHasHiddenCharacters } from '../protocol/hidden-characters.ts';
import type { Authenticate } from '../identity/authenticate.ts';
import type { Principal } from '../identity/principal.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { ApprovalRequest } from './approval.ts';
import type { ApprovalsConfig, ConsoleConfig } from './approvals-config.ts';
import type { ApprovalService, DecideError } from './approval-service.ts';
import { CONNECTIONS_JS, CONSOLE_CSS, CONSOLE_HTML, CONSOLE_ICON, CONSOLE_JS, SIGN_IN_JS } from './console-assets.ts';
import { parseWireDecision } from './wire-decision.ts';
import { REPLAY_WINDOW_MS, SIGNATURE_HEADER, verifySignature } from './webhook-signature.ts';

/** Sent by the console's script on every decision; a cross-site form or image cannot set it. */
export const CONSOLE_CSRF_HEADER = 'Gatehouse-Console';
export const CONSOLE_CSRF_VALUE = 'decide';
const MAX_CALLBACK_BYTES = 64 * 1024;
const ID_PATTERN = /^[A-Za-z0-9_-]{24}$/;

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export interface ApprovalRoutesDeps {
  service: ApprovalService;
  config: ApprovalsConfig;
  authenticate: Authenticate;
  logger: Logger;
  now?: () => number;
  /** Whether any upstream is reached with each user's own account now (the page then shows
   * a signed-in user their connections); none when absent. */
  connections?: () => boolean;
}

export function approvalRoutes(deps: ApprovalRoutesDeps): Hono {
  const { service, config } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'approvals.http' });
  const app = new Hono();

  app.use('/approvals', secure);
  app.use('/approvals/*', secure);
  // Callbacks are read before their signature can be checked: bounded while they stream in.
  app.use('/approvals/*', limitBody(MAX_CALLBACK_BYTES));

  app.get('/approvals', (c) => c.body(CONSOLE_HTML, 200, { 'content-type': 'text/html; charset=utf-8' }));
  // Relative asset URLs resolve against the page's path, so the page has exactly one.
  app.get('/approvals/', (c) => c.redirect('../approvals', 308));
  app.get('/approvals/assets/console.js', (c) => c.body(CONSOLE_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/approvals/assets/sign-in.js', (c) => c.body(SIGN_IN_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/approvals/assets/connections.js', (c) => c.body(CONNECTIONS_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/approvals/assets/console.css', (c) => c.body(CONSOLE_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/approvals/assets/favicon.svg', (c) => c.body(CONSOLE_ICON, 200, { 'content-type': 'image/svg+xml' }));

  /** Whoever signed in with gateway credentials, or the response that refuses the request. */
  const signedIn = async (c: Context, hint: string): Promise<Principal | Response> => {
    const auth = await deps.authenticate(c.req.raw.headers);
    if (!auth.ok) {
      if (auth.error.wwwAuthenticate !== '') c.header('www-authenticate', auth.error.wwwAuthenticate);
      return problem(c, auth.error.status, auth.error.error, auth.error.description);
    }
    if (auth.value.method === 'anonymous') {
      c.header('www-authenticate', 'Bearer');
      return problem(c, 401, 'missing_credentials', hint);
    }
    return auth.value;
  };

  /** The approver, or the response that refuses the request. */
  const approver = async (c: Context): Promise<Principal | Response> => {
    const consoleConfig = config.console;
    if (consoleConfig === undefined) return problem(c, 404, 'not_found', 'the approvals console is not configured');
    const who = await signedIn(c, "sign in with an approver's credentials");
    if (who instanceof Response) return who;
    if (!isApprover(who, consoleConfig)) {
      log.warn('console access refused: not an approver', { subject: who.subject });
      return problem(c, 403, 'forbidden', 'this identity is not an approver');
    }
    return who;
  };

  // Who signed in and what the page may show them: the queue (approvers) and their own
  // upstream connections (any signed-in user, when per-user upstreams exist). Asked first, so
  // the page never polls what it would be refused.
  app.get('/approvals/api/me', async (c) => {
    const who = await signedIn(c, 'sign in with your gateway credentials');
    if (who instanceof Response) return who;
    const approver = config.console !== undefined && isApprover(who, config.console);
    const connections = deps.connections?.() ?? false;
    if (!approver && !connections) log.warn('console access refused: not an approver', { subject: who.subject });
    const why = config.console === undefined ? 'the approvals console is not configured' : 'this identity is not an approver';
    return c.json({ subject: who.subject, approver, connections, ...(approver ? {} : { why }) });
  });

  app.get('/approvals/api/pending', async (c) => {
    const who = await approver(c);
    if (who instanceof Response) return who;
    let pending: ApprovalRequest[];
    try {
      pending = await service.pending('console');
    } catch {
      return problem(c, 503, 'unavailable', 'the approval store is unavailable');
    }
    const selfApproval = config.console?.allowSelfApproval === true;
    const body = JSON.stringify({
      serverTime: now(),
      approver: who.subject,
      approvals: pending.map((r) => {
        const shown = {
          principal: { subject: r.principal.subject, groups: r.principal.groups },
          method: r.method,
          upstream: r.upstream,
          name: r.name,
          upstreamName: r.upstreamName,
          arguments: r.arguments,
          ruleId: r.ruleId,
        };
        return {
          id: r.id,
          ...shown,
          argumentsDigest: r.argumentsDigest,
          createdAt: r.createdAt,
          expiresAt: r.expiresAt,
          ownCall: !selfApproval && r.principal.subject === who.subject,
          // Fields holding characters that would act instead of showing (a bidi override that
          // makes "\u202Eevil" read "live"): the page marks them; the JSON escapes them.
          hiddenCharacters: Object.entries(shown).filter(([, v]) => valueHasHiddenCharacters(v)).map(([k]) => k),
        };
      }),
    });
    return c.body(escapeHiddenCharacters(body), 200, { 'content-type': 'application/json; charset=UTF-8' });
  });

  app.post('/approvals/:id/decision', async (c) => {
    const csrf = checkSameOrigin(c, config.publicUrl);
    if (csrf !== undefined) return problem(c, 403, 'csrf', csrf);
    const who = await approver(c);
    if (who instanceof Response) return who;
    const id = c.req.param('id');
    if (!ID_PATTERN.test(id)) return problem(c, 404, 'not_found', 'no pending approval with this id');
    const body = await c.req.json().catch(() => undefined);
    const parsed = parseWireDecision(body);
    if (!parsed.ok) return problem(c, 400, 'invalid_request', parsed.error);
    const result = await service.decide(id, parsed.value.decision, who.subject, 'console', parsed.value.reason);
    return result.ok ? c.json({ outcome: result.value }) : refusal(c, result.error);
  });

  app.post('/approvals/:id', async (c) => {
    const webhook = config.webhook;
    if (webhook === undefined) return problem(c, 404, 'not_found', 'the webhook approval channel is not configured');
    const id = c.req.param('id');
    if (!ID_PATTERN.test(id)) return problem(c, 404, 'not_found', 'no pending approval with this id');
    const raw = await c.req.text();
    const verified = verifySignature(webhook.secret, c.req.header(SIGNATURE_HEADER), raw, now() / 1000);
    if (!verified.ok) {
      log.warn('webhook callback refused', { approvalId: id, reason: verified.error });
      return problem(c, 401, 'invalid_signature', `${SIGNATURE_HEADER} is ${verified.error}`);
    }
    let fresh: boolean;
    try {
      fresh = await service.consumeOnce(`webhook-callback:${verified.value.signature}`, REPLAY_WINDOW_MS);
    } catch {
      return problem(c, 503, 'unavailable', 'the approval store is unavailable');
    }
    if (!fresh) {
      log.warn('webhook callback refused', { approvalId: id, reason: 'replayed' });
      return problem(c, 401, 'invalid_signature', 'this signed callback was already received (sign each callback afresh)');
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return problem(c, 400, 'invalid_request', 'the body is not JSON');
    }
    const parsed = parseWireDecision(body);
    if (!parsed.ok) return problem(c, 400, 'invalid_request', parsed.error);
    // The signature covers the body, not the URL: the body must name the approval it decides.
    if (parsed.value.id !== id) return problem(c, 400, 'invalid_request', '"id" must be the approval id of the URL');
    const result = await service.decide(id, parsed.value.decision, parsed.value.by ?? 'webhook', 'webhook', parsed.value.reason);
    return result.ok ? c.json({ outcome: result.value }) : refusal(c, result.error);
  });

  return app;
}

export function isApprover(principal: Principal, console: ConsoleConfig): boolean {
  if (principal.method === 'anonymous') return false;
  return console.approvers.subjects.includes(principal.subject) || principal.groups.some((g) => console.approvers.groups.includes(g));
}

async function secure(c: Context, next: () => Promise<void>): Promise<void> {
  await next();
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
}

/** Why a decision request may be cross-site, or undefined when it is not. */
function checkSameOrigin(c: Context, publicUrl: string | undefined): string | undefined {
  if (c.req.header(CONSOLE_CSRF_HEADER) !== CONSOLE_CSRF_VALUE) return `the ${CONSOLE_CSRF_HEADER} header is required`;
  if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) return 'expected Content-Type: application/json';
  return crossSiteReason(c.req.raw.headers, originsOf(c.req.url, publicUrl));
}

function refusal(c: Context, error: DecideError): Response {
  switch (error.kind) {
    case 'not_found':
    case 'wrong_channel':
      return problem(c, 404, 'not_found', 'no pending approval with this id for this channel');
    case 'already_decided':
      return c.json({ error: 'already_decided', message: `already ${error.outcome.decision}`, outcome: error.outcome }, 409);
    case 'expired':
      return problem(c, 410, 'expired', 'the approval expired before the decision');
    case 'self_approval':
      return problem(c, 403, 'self_approval', 'approvers may not approve their own calls; another approver must');
    case 'unavailable':
      return problem(c, 503, 'unavailable', 'the approval store is unavailable');
  }
}

function problem(c: Context, status: 400 | 401 | 403 | 404 | 409 | 410 | 503, error: string, message: string): Response {
  return c.json({ error, message }, status);
}
