// The approvals console end to end in a real headless Chromium (Debian's `chromium`, driven
// by playwright-core): an approver signs in with an API key, sees the pending call with its
// details, and approves or denies it; the waiting request() resolves at once. A visitor who
// is not an approver is refused. Attacker-controlled arguments stay text.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalOutcome, ApprovalRequest } from '../../src/approvals/approval.ts';
import { CONSOLE_CSP } from '../../src/approvals/console-routes.ts';
import { digestJson } from '../../src/audit/digest.ts';
import { approvalDraft, APPROVER_KEYS, startApprovalsServer, type ApprovalsServer } from '../harness/approvals.ts';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = join(process.cwd(), '.scratch', 'approvals-console.png');
const HOSTILE = {
  path: '/srv/data/<img src=x onerror="window.__pwned=1">',
  note: '</pre><script>window.__pwned=2</script>',
  options: { recursive: true, dryRun: false, keep: ['a', 'b'] },
};

let server: ApprovalsServer;
let context: BrowserContext;
let profile: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` (.ci/run installs it). This test must not be skipped.`);
  }
  server = await startApprovalsServer();
  profile = mkdtempSync(join(tmpdir(), 'gatehouse-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 900 },
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

function ask(draft = approvalDraft({ channel: 'console', arguments: HOSTILE, argumentsDigest: digestJson(HOSTILE) }), timeoutMs = 120_000): { outcome: Promise<ApprovalOutcome>; created: Promise<ApprovalRequest> } {
  let created!: (r: ApprovalRequest) => void;
  const createdP = new Promise<ApprovalRequest>((r) => (created = r));
  const outcome = server.service.request(draft, { signal: new AbortController().signal, onCreated: created, timeoutMs });
  return { outcome, created: createdP };
}

async function signIn(page: Page, key: string): Promise<void> {
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${server.url}/approvals`);
  await page.getByLabel('API key or token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const card = (page: Page, id: string) => page.locator(`li[data-id="${id}"]`);

describe('approvals console in Chromium', () => {
  it('serves the page with a strict CSP and the script as its own resource', async () => {
    const res = await fetch(`${server.url}/approvals`);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(await res.text()).not.toMatch(/<script>|<style|\son\w+=/);
    const js = await fetch(`${server.url}/approvals/assets/console.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    // One page URL, so its relative asset URLs always resolve (also under a mount prefix).
    const slash = await fetch(`${server.url}/approvals/`);
    expect(slash.url).toBe(`${server.url}/approvals`);
  });

  it('an approver signs in, sees the call with its details, and approves it: the waiting call resolves', async () => {
    const first = ask();
    const second = ask(approvalDraft({ channel: 'console', principal: { subject: 'frank', authContext: 'key:frank', groups: ['analysts'] }, upstream: 'db', name: 'db__drop_table', upstreamName: 'drop_table', arguments: { table: 'invoices', cascade: true }, argumentsDigest: digestJson({ table: 'invoices', cascade: true }), ruleId: 'db-writes' }));
    const own = ask(approvalDraft({ channel: 'console', principal: { subject: 'carol', authContext: 'key:carol', groups: ['finance'] }, name: 'files__chmod', upstreamName: 'chmod', arguments: { mode: '0777' }, argumentsDigest: digestJson({ mode: '0777' }) }));
    const a = await first.created;
    const b = await second.created;
    const c = await own.created;

    const page = await context.newPage();
    await signIn(page, APPROVER_KEYS.carol);
    await expect.poll(() => card(page, a.id).count()).toBe(1);
    await expect.poll(() => page.locator('li.approval').count()).toBe(3);
    await expect.poll(() => page.locator('#session-subject').textContent()).toBe('carol');

    const shown = card(page, a.id);
    expect(await shown.locator('h3').textContent()).toBe('files__delete');
    const facts = await shown.locator('dl').innerText();
    expect(facts).toContain('bob (groups: dev)');
    expect(facts).toContain('files');
    expect(facts).toContain('delete · tools/call');
    expect(facts).toContain('deletes-need-approval');
    expect(await shown.locator('pre').textContent()).toBe(JSON.stringify(HOSTILE, null, 2));
    await expect.poll(() => shown.locator('.countdown').textContent()).toMatch(/^[12]:\d\d$/);
    // The arguments stayed text: no element was made from them and no script ran.
    expect(await page.locator('li.approval img, li.approval script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // carol's own call is listed but only another approver may approve it.
    expect(await card(page, c.id).getByRole('button', { name: /^Approve/ }).isDisabled()).toBe(true);
    expect(await card(page, c.id).innerText()).toContain('Your own call');

    mkdirSync(join(process.cwd(), '.scratch'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await shown.getByRole('button', { name: 'Approve files__delete for bob' }).click();
    expect(await first.outcome).toMatchObject({ decision: 'approved', by: 'carol', channel: 'console' });
    await expect.poll(() => card(page, a.id).count()).toBe(0);
    await expect.poll(() => page.locator('#status').textContent()).toBe('Approved files__delete for bob.');

    await card(page, b.id).getByRole('button', { name: /^Deny/ }).click();
    expect(await second.outcome).toMatchObject({ decision: 'denied', by: 'carol', channel: 'console' });
    await expect.poll(() => page.locator('#status').textContent()).toBe('Denied db__drop_table for frank.');

    // carol may deny her own call.
    await card(page, c.id).getByRole('button', { name: /^Deny/ }).click();
    expect(await own.outcome).toMatchObject({ decision: 'denied', by: 'carol' });
    await expect.poll(() => page.locator('#empty').isVisible()).toBe(true);
    expect(server.events.filter((e) => e.event === 'approval_decided').map((e) => (e.detail as { by: string }).by)).toEqual(['carol', 'carol', 'carol']);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows bidi controls and other invisible characters as visible marks, and flags the call', async () => {
    // "\u202Eevil\u202C" displays as "live" when rendered raw.
    const args = { '\u202Eevil\u202C': 'rm -rf /\u200B', note: 'a\u0007b' };
    const pending = ask(approvalDraft({ channel: 'console', name: 'files__\u202Eeteled\u202C', arguments: args, argumentsDigest: digestJson(args) }));
    const { id } = await pending.created;
    // The API itself is inert: the characters travel as JSON escapes, and the fields are named.
    const api = await fetch(`${server.url}/approvals/api/pending`, { headers: { authorization: `Bearer ${APPROVER_KEYS.carol}` } });
    const raw = await api.text();
    expect(raw).not.toMatch(/[\u202a-\u202e\u200b]/);
    expect(raw).toContain('\\u202e');
    const listed = (JSON.parse(raw) as { approvals: { id: string; name: string; hiddenCharacters: string[] }[] }).approvals.find((x) => x.id === id)!;
    expect(listed.name).toBe('files__\u202Eeteled\u202C');
    expect(listed.hiddenCharacters).toEqual(['name', 'arguments']);

    const page = await context.newPage();
    await signIn(page, APPROVER_KEYS.carol);
    await expect.poll(() => card(page, id).count()).toBe(1);
    const shown = card(page, id);
    expect(await shown.locator('h3').textContent()).toBe('files__⟨U+202E⟩eteled⟨U+202C⟩');
    expect(await shown.locator('h3').getAttribute('class')).toContain('hidden-chars');
    const code = (await shown.locator('pre').textContent())!;
    expect(code).toContain('"⟨U+202E⟩evil⟨U+202C⟩": "rm -rf /⟨U+200B⟩"');
    expect(code).not.toMatch(/[\u202a-\u202e\u200b]/);
    expect(await shown.locator('.warning').textContent()).toMatch(/^Warning: name, arguments contain invisible or direction-changing characters/);
    expect(await shown.getByRole('button', { name: /^Deny/ }).getAttribute('aria-label')).toBe('Deny files__⟨U+202E⟩eteled⟨U+202C⟩ for bob');
    await page.screenshot({ path: SCREENSHOT.replace('.png', '-hidden-characters.png'), fullPage: true });
    await shown.getByRole('button', { name: /^Deny/ }).click();
    expect(await pending.outcome).toMatchObject({ decision: 'denied', by: 'carol' });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('an approver by group sees new calls appear without reloading', async () => {
    const page = await context.newPage();
    await signIn(page, APPROVER_KEYS.dave);
    await expect.poll(() => page.locator('#empty').isVisible()).toBe(true);
    const pending = ask();
    const { id } = await pending.created;
    await expect.poll(() => card(page, id).count(), { timeout: 10_000 }).toBe(1);
    await card(page, id).getByRole('button', { name: /^Approve/ }).click();
    expect(await pending.outcome).toMatchObject({ decision: 'approved', by: 'dave' });
    await page.close();
  });

  it('someone who is not an approver is refused with 403 and sees no calls', async () => {
    const pending = ask();
    const { id } = await pending.created;
    const page = await context.newPage();
    await signIn(page, APPROVER_KEYS.eve);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Access denied \(403\): this identity is not an approver/);
    expect(await page.locator('#queue').isVisible()).toBe(false);
    expect(await page.locator('li.approval').count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.screenshot({ path: SCREENSHOT.replace('.png', '-403.png') });

    // The same refusal without the page; and a wrong key is 401.
    const api = await fetch(`${server.url}/approvals/api/pending`, { headers: { authorization: `Bearer ${APPROVER_KEYS.eve}` } });
    expect(api.status).toBe(403);
    const wrong = await fetch(`${server.url}/approvals/api/pending`, { headers: { authorization: 'Bearer not-a-key' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const decide = await fetch(`${server.url}/approvals/${id}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${APPROVER_KEYS.eve}`, 'content-type': 'application/json', 'gatehouse-console': 'decide' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decide.status).toBe(403);
    expect((await server.service.get(id))?.outcome).toBeUndefined();
    await server.service.decide(id, 'denied', 'carol', 'console');
    await pending.outcome;
    await page.close();
  });

  it('refuses decisions without the console header or from another origin', async () => {
    const pending = ask();
    const { id } = await pending.created;
    const headers = { authorization: `Bearer ${APPROVER_KEYS.carol}`, 'content-type': 'application/json', 'gatehouse-console': 'decide' };
    const post = (h: Record<string, string>, body = JSON.stringify({ decision: 'approve' })) => fetch(`${server.url}/approvals/${id}/decision`, { method: 'POST', headers: h, body });
    const { 'gatehouse-console': _omit, ...noHeader } = headers;
    expect((await post(noHeader)).status).toBe(403);
    expect((await post({ ...headers, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ ...headers, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ ...headers, 'content-type': 'text/plain' })).status).toBe(403);
    expect((await server.service.get(id))?.outcome).toBeUndefined();
    const same = await post({ ...headers, origin: server.url, 'sec-fetch-site': 'same-origin' });
    expect(same.status).toBe(200);
    expect(await pending.outcome).toMatchObject({ decision: 'approved', by: 'carol' });
    expect((await post(headers)).status).toBe(409);
  });
});
