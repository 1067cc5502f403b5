// The consent link is honoured only for the gateway user it names (MCP 2025-11-25,
// client/elicitation, URL mode security: phishing protection). Bob, playing the attacker,
// sends Alice his own consent link; Alice opens it in her browser and signs in as herself:
// refused before the authorization server is ever reached, nothing stored for either, an audit
// record and a log line without secrets. A browser that does not sign in, or signs in with a
// bad key, gets nothing either; a mistyped key may be corrected on the same page, and a link
// opened in the console's own tab uses the credential the console holds there. With
// userAuth.verifyConsentUser off, the page asks for no credential, and the gateway warns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient } from '../fixtures/clients.ts';
import type { ConsentBrowser } from '../harness/consent-browser.ts';
import { auditEvents } from '../harness/gateway.ts';
import { KEYS, startUserAuthBed, useConsentBed, type UserAuthBed } from '../harness/user-auth-bed.ts';

let bed: UserAuthBed;
let browser: ConsentBrowser;

useConsentBed({ audit: true }, (b) => ({ bed, browser } = b));

async function linkFor(b: UserAuthBed, key: string): Promise<string> {
  const c = await connectLegacyClient(b.gw.url, { headers: { authorization: `Bearer ${key}` }, capabilities: { elicitation: { url: {} } } });
  const e = (await c.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).catch((x: unknown) => x)) as McpError;
  await c.close();
  if ((e as { data?: unknown }).data === undefined) throw new Error(`no consent error: ${JSON.stringify(e)}`);
  return (e.data as { elicitations: { url: string }[] }).elicitations[0]?.url as string;
}

const connections = async (b: UserAuthBed, key: string): Promise<unknown[]> => {
  const res = await fetch(`${b.publicUrl}/oauth/connections`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { connections: unknown[] }).connections;
};

const ticketOf = (link: string): string => new URL(link).searchParams.get('ticket') as string;

const post = (headers: Record<string, string>, body: string): Promise<Response> =>
  fetch(`${bed.publicUrl}/oauth/connect`, { method: 'POST', headers, body, redirect: 'manual' });

const failures = () => auditEvents(bed.gw).filter((e) => e.event === 'user_consent_failed');
const starts = () => auditEvents(bed.gw).filter((e) => e.event === 'user_consent_started');

describe('who opens a consent link', () => {
  it("refuses Bob's link opened by Alice's browser signed in as Alice, storing nothing and reaching no authorization server", async () => {
    const bobsLink = await linkFor(bed, KEYS.bob);
    const alice = await browser.person(KEYS.alice);
    const page = await alice.context.newPage();
    const visited: string[] = [];
    page.on('request', (r) => visited.push(r.url()));
    await page.goto(bobsLink);
    expect(await page.locator('#subject').textContent()).toBe('bob');
    const outcome = await alice.consentOn(page, 'alice-at-upstream');
    expect(outcome).toBe('This link was made for the gateway user "bob", but you signed in as "alice": nothing was connected. Do not use consent links that someone else sent you; call the tool from your own client for a link of your own.');
    expect(await page.locator('h1').textContent()).toBe('Not connected');
    // The browser never left the gateway, and holds no binding cookie for a callback.
    expect(visited.every((u) => u.startsWith(bed.publicUrl))).toBe(true);
    expect(await alice.context.cookies(bed.publicUrl + '/oauth/callback')).toEqual([]);
    await page.close();

    expect(await connections(bed, KEYS.alice)).toEqual([]);
    expect(await connections(bed, KEYS.bob)).toEqual([]);
    expect(starts()).toEqual([]);
    await expect.poll(() => failures().length).toBe(1);
    expect(failures()[0]?.detail).toEqual({ stage: 'start', error: 'other_user', reason: expect.stringContaining('made for the gateway user "bob"'), upstream: 'protected', principal: 'key:bob', signedInAs: 'key:alice' });
    expect(bed.gw.logs.some((l) => l.msg === 'consent link opened by another gateway user: refused' && l.principal === 'key:bob' && l.signedInAs === 'key:alice')).toBe(true);
    const everything = JSON.stringify(auditEvents(bed.gw)) + JSON.stringify(bed.gw.logs);
    for (const secret of [KEYS.alice, KEYS.bob, ticketOf(bobsLink)]) expect(everything).not.toContain(secret);

    // Alice's own link still goes through in the same browser: the refusal granted and spent nothing.
    expect(await alice.consent(await linkFor(bed, KEYS.alice), 'alice-at-upstream')).toContain('is connected for alice');
    expect(await connections(bed, KEYS.alice)).toHaveLength(1);
    expect(await connections(bed, KEYS.bob)).toEqual([]);
    await fetch(`${bed.publicUrl}/oauth/connections/protected`, { method: 'DELETE', headers: { authorization: `Bearer ${KEYS.alice}` } });
  }, 90_000);

  it('tells a person whose key is wrong, asks for a key before sending anything, and goes on from the same page', async () => {
    const link = await linkFor(bed, KEYS.alice);
    const before = failures().length;
    const typo = await browser.person('alice-key-mistyped');
    expect(await typo.consent(link, 'alice-at-upstream')).toBe('Sign-in failed: the credentials are not valid');
    await expect.poll(() => failures().length).toBe(before + 1);
    expect(failures().at(-1)?.detail).toMatchObject({ error: 'sign_in_failed', upstream: 'protected', principal: 'key:alice' });

    const none = await browser.person(undefined);
    const page = await none.context.newPage();
    await page.goto(link);
    // The browser's own check of the required field aside, the script refuses an empty one too.
    await page.locator('#credential').evaluate((f) => ((f as HTMLInputElement).required = false));
    await page.click('#continue');
    await expect.poll(() => page.locator('#alert').textContent()).toBe('Sign in with your gateway API key or token first.');
    await page.fill('#credential', KEYS.alice);
    expect(await none.consentOn(page, 'alice-at-upstream')).toContain('is connected for alice');
    await page.close();
    await fetch(`${bed.publicUrl}/oauth/connections/protected`, { method: 'DELETE', headers: { authorization: `Bearer ${KEYS.alice}` } });
  }, 90_000);

  it("uses the console's credential when the link is opened in the console's own tab", async () => {
    const person = await browser.person(undefined);
    const page = await person.context.newPage();
    await page.goto(`${bed.publicUrl}/approvals`);
    await page.getByLabel('API key or token').fill(KEYS.alice);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#session-subject').textContent()).toBe('alice');
    await page.goto(await linkFor(bed, KEYS.alice));
    expect(await page.locator('#credential').inputValue()).toBe('');
    expect(await person.consentOn(page, 'alice-at-upstream')).toContain('is connected for alice');
    await page.close();
    await fetch(`${bed.publicUrl}/oauth/connections/protected`, { method: 'DELETE', headers: { authorization: `Bearer ${KEYS.alice}` } });
  }, 90_000);

  it('grants nothing to a request without the credential, a form post, or another site, and audits each', async () => {
    const ticket = ticketOf(await linkFor(bed, KEYS.alice));
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ ticket });
    const before = failures().length;

    const anonymous = await post(json, body);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'not_signed_in', message: 'sign in with your gateway API key or token first' });
    expect(anonymous.headers.get('set-cookie')).toBeNull();

    // What the confirmation page posted before it checked the user, and what a cross-site form can send.
    const form = await post({ 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ ticket }).toString());
    expect(form.status).toBe(415);
    const cross = await post({ ...json, authorization: `Bearer ${KEYS.alice}`, 'sec-fetch-site': 'cross-site' }, body);
    expect(cross.status).toBe(403);
    expect(((await cross.json()) as { message: string }).message).toBe('cross-site requests are refused');
    const noTicket = await post({ ...json, authorization: `Bearer ${KEYS.alice}` }, '{}');
    expect(noTicket.status).toBe(400);
    expect(((await noTicket.json()) as { message: string }).message).toBe('the consent link is malformed');

    await expect.poll(() => failures().length).toBe(before + 4);
    expect(failures().slice(before).map((f) => f.detail.error)).toEqual(['not_signed_in', 'unsupported_media_type', 'csrf', 'invalid_link']);
    expect(await connections(bed, KEYS.alice)).toEqual([]);

    // The right user, from the gateway's own page or any client: where to send the browser, and its binding cookie.
    const right = await post({ ...json, 'x-api-key': KEYS.alice }, body);
    expect(right.status).toBe(200);
    expect(((await right.json()) as { location: string }).location).toMatch(new RegExp(`^${bed.upstream.issuer}`));
    expect(right.headers.get('set-cookie')).toMatch(/^gatehouse_oauth_\w+=[^;]+; Path=\/oauth\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/);
  }, 60_000);
});

describe('with userAuth.verifyConsentUser off', () => {
  let open: UserAuthBed;
  beforeAll(async () => {
    open = await startUserAuthBed({ userAuth: 'verifyConsentUser: false' });
    await open.gw.waitUp();
  }, 60_000);
  afterAll(async () => {
    await open?.close();
  });

  it('warns at start, asks for no credential, and connects whoever opens the link', async () => {
    expect(open.gw.logs.some((l) => l.level === 'warn' && String(l.msg).startsWith('userAuth.verifyConsentUser is false'))).toBe(true);
    const person = await browser.person(undefined);
    const page = await person.context.newPage();
    await page.goto(await linkFor(open, KEYS.alice));
    expect(await page.locator('#credential').count()).toBe(0);
    expect(await person.consentOn(page, 'alice-at-upstream')).toContain('is connected for alice');
    expect(await connections(open, KEYS.alice)).toHaveLength(1);
  }, 90_000);
});
