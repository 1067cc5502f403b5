// Approval by someone else, through the whole gateway: a signed webhook whose receiver
// answers later on the signed callback, and the approvals console in a real headless
// Chromium. The client's call waits (progress keeps its stream alive), and nothing reaches
// the upstream before the decision; timeouts fail closed.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signBody, verifySignature } from '../../src/approvals/webhook-signature.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { rulesDir, startApprovalsGateway } from '../harness/approvals-gateway.ts';
import { freePort } from '../harness/free-port.ts';
import { APPROVER_KEY as APPROVER, approvalsIdentityYaml, CALLER_KEY as CALLER } from '../harness/approvals.ts';

const CHROMIUM = '/usr/bin/chromium';
const SECRET = 'webhook-shared-secret-0123456789abcdef';

let upstream: ModernUpstream;
let gw: TestGateway;
let hook: Server;
const hookRequests: { body: string; signature: string; parsed: { id: string; callbackUrl: string; call: { name: string; arguments: unknown } } }[] = [];
let context: BrowserContext;
let profile: string;

const calls = (): number => upstream.received.filter((r) => (r.body as { method?: string })?.method === 'tools/call').length;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` (.ci/run does).`);
  upstream = await startModernUpstream({ name: 'up' });
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hookRequests.push({ body, signature: String(req.headers['gatehouse-signature']), parsed: JSON.parse(body) });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const hookPort = (hook.address() as { port: number }).port;
  const port = await freePort();
  const dir = rulesDir('gatehouse-approval-channels-', `rules:
  - { id: add-webhook, effect: approve, when: { tool: [up__add] }, approval: { approver: webhook, timeout: 20s } }
  - { id: echo-console, effect: approve, when: { tool: [up__echo] }, approval: { approver: console, timeout: 30s } }
  - { id: slow-webhook-quick, effect: approve, when: { tool: [up__slow] }, approval: { approver: webhook, timeout: 1s } }
`);
  ({ gw } = await startApprovalsGateway({
    identity: approvalsIdentityYaml(`http://127.0.0.1:${port}/mcp`),
    policyDir: dir,
    upstreamUrl: upstream.url,
    key: '1'.repeat(64),
    approvals: `  webhook: { url: "http://127.0.0.1:${hookPort}/hook", secret: "${SECRET}" }`,
    port,
  }));
  profile = mkdtempSync(join(tmpdir(), 'gatehouse-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await gw?.close();
  await upstream?.close();
  await new Promise((r) => hook?.close(r));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const call = (id: number, tool: string, args: Record<string, unknown>) =>
  postJson(gw.url, modernBody(id, 'tools/call', { name: tool, arguments: args }), modernHeaders('tools/call', tool, { 'x-api-key': CALLER }));

describe('webhook approver', () => {
  it('posts a signed request, holds the call, and runs it when the signed callback approves', async () => {
    const before = calls();
    const pending = call(1, 'up__add', { a: 20, b: 22 });
    const req = await vi.waitUntil(() => hookRequests.find((h) => h.parsed.call.name === 'up__add'), { timeout: 10_000, interval: 25 });
    expect(verifySignature(SECRET, req.signature, req.body, Date.now() / 1000).ok).toBe(true);
    expect(req.parsed.call.arguments).toEqual({ a: 20, b: 22 });
    expect(req.parsed.callbackUrl).toBe(`${new URL(gw.url).origin}/approvals/${req.parsed.id}`);
    expect(calls()).toBe(before);
    const decision = JSON.stringify({ id: req.parsed.id, decision: 'approve', by: 'oncall' });
    const cb = await fetch(req.parsed.callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'gatehouse-signature': signBody(SECRET, decision, Date.now() / 1000) }, body: decision });
    expect(cb.status).toBe(200);
    expect((await pending).json.result.content).toEqual([{ type: 'text', text: '42' }]);
    expect(calls()).toBe(before + 1);
  });

  it('refuses an unsigned callback and fails closed when nobody answers in time', async () => {
    const before = calls();
    const pending = call(2, 'up__slow', { ms: 1 });
    const req = await vi.waitUntil(() => hookRequests.find((h) => h.parsed.call.name === 'up__slow'), { timeout: 10_000, interval: 25 });
    const forged = await fetch(req.parsed.callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: req.parsed.id, decision: 'approve' }) });
    expect(forged.status).toBe(401);
    const r = await pending;
    expect(r.json.error.code).toBe(-31010);
    expect(r.json.error.message).toContain('expired');
    expect(calls()).toBe(before);
  });
});

describe('console approver in Chromium', () => {
  it('an approver sees the waiting call at /approvals and approves it; the call then runs', async () => {
    const before = calls();
    const pending = call(3, 'up__echo', { message: 'approved by a person' });
    const page = await context.newPage();
    await page.goto(`${new URL(gw.url).origin}/approvals`);
    await page.getByLabel('API key or token').fill(APPROVER);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const cardLoc = page.locator('li.approval', { hasText: 'up__echo' });
    await expect.poll(() => cardLoc.count(), { timeout: 10_000 }).toBe(1);
    expect(await cardLoc.locator('pre').textContent()).toContain('approved by a person');
    expect(calls()).toBe(before);
    await cardLoc.getByRole('button', { name: /^Approve/ }).click();
    const r = await pending;
    expect(r.json.result.structuredContent).toEqual({ message: 'approved by a person' });
    expect(calls()).toBe(before + 1);
    await page.close();
  });

  it('a caller who is not an approver cannot see the pending list', async () => {
    const r = await fetch(`${new URL(gw.url).origin}/approvals/api/pending`, { headers: { authorization: `Bearer ${CALLER}` } });
    expect(r.status).toBe(403);
  });
});

describe('the record of approvals', () => {
  it('audits every request for approval and every decision, and ties the call record to the approval id', () => {
    const recs = readFileSync(join(gw.config.audit.dir, gw.config.audit.file), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const requested = recs.filter((r) => r.event === 'approval_requested');
    const decided = recs.filter((r) => r.event === 'approval_decided');
    expect(requested.map((r) => r.detail.channel).sort()).toEqual(['console', 'webhook', 'webhook']);
    expect(decided.map((r) => [r.detail.channel, r.detail.decision, r.detail.by]).sort()).toEqual([
      ['console', 'approved', 'carol'],
      ['webhook', 'approved', 'oncall'],
      ['webhook', 'expired', 'gatehouse'],
    ]);
    const echoCall = recs.find((r) => r.type === 'request' && r.name === 'up__echo')!;
    expect(echoCall.approval).toMatchObject({ channel: 'console', decision: 'approved', approver: 'carol' });
    expect(decided.some((r) => r.detail.id === echoCall.approval.id)).toBe(true);
  });
});

