// The console's fallback for clients that cannot show a consent link (no URL elicitation): a
// signed-in user opens the gateway console in Chromium, sees a Connect link for each per-user
// upstream they have not connected, clicks it, consents at the authorization server
// (oidc-provider), and their retried call then runs with their own token. They see only their
// own connections, and disconnect from the same page; the disconnect refuses other sites.
import { describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import type { ConsentBrowser, Person } from '../harness/consent-browser.ts';
import { KEYS, useConsentBed, type UserAuthBed } from '../harness/user-auth-bed.ts';

let bed: UserAuthBed;
let browser: ConsentBrowser;
const pageErrors: string[] = [];

useConsentBed({}, (b) => ({ bed, browser } = b));

/** A client that declared no URL elicitation: it can only report the consent error. */
const client = (key: string): Promise<LegacyClient> => connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${key}` } });

async function callError(c: LegacyClient, name: string): Promise<McpError> {
  const e = await c.callTool({ name, arguments: {} }).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

async function openConsole(person: Person, key: string): Promise<Page> {
  const page = await person.context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await page.goto(`${bed.publicUrl}/approvals`);
  await page.getByLabel('API key or token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#connections').waitFor();
  return page;
}

const row = (page: Page, upstream: string) => page.locator(`#connection-list li[data-upstream="${upstream}"]`);

describe('consent from the gateway console', () => {
  let alicePerson: Person;
  let alicePage: Page;

  it('a user without a token connects from the console and the retried call runs as them', async () => {
    const alice = await client(KEYS.alice);
    const refused = await callError(alice, 'protected__gatehouse_connect');
    expect(refused.code).toBe(-31004);
    expect(bed.upstream.calls).toHaveLength(0);

    alicePerson = await browser.person(KEYS.alice);
    alicePage = await openConsole(alicePerson, KEYS.alice);
    await expect.poll(() => alicePage.locator('#session-subject').textContent()).toBe('alice');
    // Not an approver (no approvals console here): the queue stays hidden, the connections show.
    expect(await alicePage.locator('#queue').isHidden()).toBe(true);
    expect(await row(alicePage, 'protected').getAttribute('data-state')).toBe('pending');
    const connect = alicePage.getByRole('link', { name: 'Connect protected' });
    expect(await connect.getAttribute('href')).toMatch(new RegExp(`^${bed.publicUrl}/oauth/connect\\?ticket=`));
    expect(await connect.getAttribute('rel')).toBe('noopener noreferrer');

    const [tab] = await Promise.all([alicePerson.context.waitForEvent('page'), connect.click()]);
    await tab.waitForLoadState();
    expect(await tab.locator('#subject').textContent()).toBe('alice');
    expect(await alicePerson.consentOn(tab, 'alice-at-upstream')).toContain('is connected for alice');
    await tab.close();

    // The console sees the connection on its next refresh, without a reload.
    await expect.poll(() => row(alicePage, 'protected').getAttribute('data-state'), { timeout: 10_000 }).toBe('connected');
    expect(await row(alicePage, 'protected').locator('.state').textContent()).toMatch(/^Connected; renewed automatically/);

    const res = await alice.callTool({ name: 'protected__whoami', arguments: {} });
    expect(res.content).toEqual([{ type: 'text', text: 'alice-at-upstream' }]);
    expect(bed.upstream.calls).toEqual([{ sub: 'alice-at-upstream', tool: 'whoami' }]);
    await alice.close();
  }, 90_000);

  it("a second user sees only their own Connect link, never the first user's connection", async () => {
    const bobPerson = await browser.person(KEYS.bob);
    const bobPage = await openConsole(bobPerson, KEYS.bob);
    await expect.poll(() => bobPage.locator('#session-subject').textContent()).toBe('bob');
    expect(await row(bobPage, 'protected').getAttribute('data-state')).toBe('pending');
    expect(await bobPage.getByRole('button', { name: /Disconnect/ }).count()).toBe(0);
    // Bob's link names bob: opening it shows the gateway user it would connect.
    const href = (await bobPage.getByRole('link', { name: 'Connect protected' }).getAttribute('href')) as string;
    const confirm = await bobPerson.context.newPage();
    await confirm.goto(href);
    expect(await confirm.locator('#subject').textContent()).toBe('bob');
    await confirm.close();
    // The API behind the page answers the same: bob's view holds nothing of alice's.
    const api = (await (await fetch(`${bed.publicUrl}/oauth/connections`, { headers: { authorization: `Bearer ${KEYS.bob}` } })).json()) as { subject: string; connections: unknown[]; pending: { upstream: string }[] };
    expect(api.subject).toBe('bob');
    expect(api.connections).toEqual([]);
    expect(api.pending.map((p) => p.upstream)).toEqual(['protected']);
    const me = await fetch(`${bed.publicUrl}/approvals/api/me`, { headers: { authorization: `Bearer ${KEYS.bob}` } });
    expect(await me.json()).toEqual({ subject: 'bob', approver: false, connections: true, why: 'the approvals console is not configured' });
    expect((await fetch(`${bed.publicUrl}/approvals/api/me`)).status).toBe(401);
    await bobPage.close();
  }, 60_000);

  it('refuses a disconnect from another site, and disconnects from the console', async () => {
    const cross = await fetch(`${bed.publicUrl}/oauth/connections/protected`, { method: 'DELETE', headers: { authorization: `Bearer ${KEYS.alice}`, origin: 'https://evil.example' } });
    // The gateway's Origin guard refuses another origin before any route sees it.
    expect(cross.status).toBe(403);
    const site = await fetch(`${bed.publicUrl}/oauth/connections/protected`, { method: 'DELETE', headers: { authorization: `Bearer ${KEYS.alice}`, 'sec-fetch-site': 'cross-site' } });
    expect(site.status).toBe(403);
    expect(((await site.json()) as { message: string }).message).toBe('cross-site requests are refused');
    // Still connected after both refusals.
    expect(await row(alicePage, 'protected').getAttribute('data-state')).toBe('connected');

    await alicePage.getByRole('button', { name: 'Disconnect protected' }).click();
    await expect.poll(() => alicePage.locator('#status').textContent()).toBe('Disconnected protected.');
    await expect.poll(() => row(alicePage, 'protected').getAttribute('data-state')).toBe('pending');
    const alice = await client(KEYS.alice);
    expect((await callError(alice, 'protected__whoami')).code).toBe(-31004);
    await alice.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
