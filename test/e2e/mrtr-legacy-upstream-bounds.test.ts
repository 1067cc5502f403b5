// The bounds and the failure answers of a 2025-11-25 upstream's call suspended for a
// 2026-07-28 client's input (README, Protocol eras: bridging; Limits): no retry within
// limits.inputTimeout cancels the call upstream (and leaves an audit event); limits.maxSuspendedCallsPerPrincipal
// refuses the upstream's request at once; a state used by another principal, or brought to
// another replica, is refused with -32602 saying why; and the gateway's own approval question
// and the upstream's questions in the same call both reach the client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { auditEvents, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { APPROVER_KEY as CAROL, approvalsIdentityYaml, CALLER_KEY as BOB } from '../harness/approvals.ts';
import { policyDir } from '../harness/policy-env.ts';
import { metricValue } from '../harness/metrics.ts';

const ALL = { sampling: {}, elicitation: { form: {} }, roots: {} };
const KEYS = `approvals:\n  keys: ["${'7'.repeat(64)}"]\n`;

let upstream: LegacyUpstream;
/** inputTimeout 300ms. */
let quick: TestGateway;
/** One suspended call per principal; the same state key as `quick` (another replica). */
let capped: TestGateway;
/** Calls to ask_client need the calling user's approval. */
let approving: TestGateway;

beforeAll(async () => {
  upstream = await startLegacyUpstream({ name: 'l', askClient: true });
  const base = `${approvalsIdentityYaml('http://gatehouse.test/mcp')}\n${KEYS}upstreams:\n  - { name: l, url: "${upstream.url}" }\n`;
  quick = await startTestGateway(`${base}limits: { inputTimeout: 300ms }\n`);
  capped = await startTestGateway(`${base}limits: { maxSuspendedCallsPerPrincipal: 1 }\n`);
  const rules = `rules:\n  - { id: ask-needs-ok, effect: approve, when: { tool: [l__ask_client] }, approval: { approver: user } }\n`;
  approving = await startTestGateway(`${base}policy: { dir: "${policyDir({ 'rules.yaml': rules })}" }\n`);
  await Promise.all([quick.waitUp(), capped.waitUp(), approving.waitUp()]);
});

afterAll(async () => {
  await Promise.all([quick?.close(), capped?.close(), approving?.close()]);
  await upstream?.close();
});

function ask(gw: TestGateway, id: number, key: string, extra: Record<string, unknown> = {}, what = 'elicitation') {
  return postJson(gw.url, modernBody(id, 'tools/call', { name: 'l__ask_client', arguments: { what }, ...extra }, ALL), modernHeaders('tools/call', 'l__ask_client', { 'x-api-key': key }));
}

function answering(first: { json: any }, answer: Record<string, unknown> = { action: 'accept', content: { name: 'ok' } }): Record<string, unknown> {
  const [key] = Object.keys(first.json.result.inputRequests);
  return { inputResponses: { [key!]: answer }, requestState: first.json.result.requestState };
}

const cancels = (): number => upstream.received.filter((q) => (q.body as any)?.method === 'notifications/cancelled').length;

describe('limits.inputTimeout', () => {
  it('no retry in time: the upstream call is cancelled, counted, and its state then gets -32602', async () => {
    const before = cancels();
    const first = await ask(quick, 1, BOB);
    expect(first.json.result.resultType).toBe('input_required');
    await expect.poll(cancels, { timeout: 5000 }).toBe(before + 1);
    expect(await metricValue(quick.url, 'gatehouse_limit_hits_total', { limit: 'inputTimeout' })).toBe(1);
    await expect.poll(() => auditEvents(quick).filter((e) => e.event === 'suspended_call_cancelled').map((e) => e.detail)).toEqual([
      { upstream: 'l', method: 'tools/call', name: 'ask_client', principal: expect.any(String), reason: 'inputTimeout', rounds: 1 },
    ]);
    const late = await ask(quick, 2, BOB, answering(first));
    expect(late.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/waited too long|no longer waiting/) });
  });
});

describe('limits.maxSuspendedCallsPerPrincipal', () => {
  it('a second call of the same principal waiting for input is refused upstream at once; another principal is still asked', async () => {
    const first = await ask(capped, 10, BOB);
    expect(first.json.result.resultType).toBe('input_required');
    const second = await ask(capped, 11, BOB);
    expect(second.json.result.resultType).toBe('complete');
    expect(second.json.result.content[0].text).toMatch(/^error -32603: .*too many calls are waiting/);
    expect(await metricValue(capped.url, 'gatehouse_limit_hits_total', { limit: 'maxSuspendedCallsPerPrincipal' })).toBe(1);
    const carol = await ask(capped, 12, CAROL);
    expect(carol.json.result.resultType).toBe('input_required');

    // Carol cannot continue Bob's call; Bob can, and then has his place back.
    const stolen = await ask(capped, 13, CAROL, answering(first));
    expect(stolen.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/another principal/) });
    const done = await ask(capped, 14, BOB, answering(first));
    expect(JSON.parse(done.json.result.content[0].text)).toEqual({ action: 'accept', content: { name: 'ok' } });
    await ask(capped, 15, CAROL, answering(carol));
    const again = await ask(capped, 16, BOB);
    expect(again.json.result.resultType).toBe('input_required');
    await ask(capped, 17, BOB, answering(again));
  });
});

describe('several replicas', () => {
  it('a retry that reaches another replica is told which replica holds the call, and loses nothing there', async () => {
    const first = await ask(capped, 20, BOB);
    const elsewhere = await ask(quick, 21, BOB, answering(first));
    expect(elsewhere.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/held by another Gatehouse replica \(.+\); route every request of one principal/) });
    const home = await ask(capped, 22, BOB, answering(first));
    expect(JSON.parse(home.json.result.content[0].text)).toEqual({ action: 'accept', content: { name: 'ok' } });
  });
});

describe('the gateway\'s approval and the upstream\'s questions in one call', () => {
  it('the 2.x client approves, then answers the upstream, and gets the result; the approval covers the retries', async () => {
    const client = await connectModernClient(approving.url, { capabilities: ALL, headers: { 'x-api-key': BOB } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (req) => {
      const message = String((req.params as { message?: unknown }).message);
      asked.push(message.startsWith('Approve this call?') ? 'approval' : message);
      const content: Record<string, string> = message.startsWith('Approve this call?') ? { decision: 'approve' } : { name: 'both' };
      return { action: 'accept', content };
    });
    client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' }));
    const r = await client.callTool({ name: 'l__ask_client', arguments: { what: 'sequence' } });
    expect((r.content as Array<{ text: string }>).map((c) => JSON.parse(c.text))).toMatchObject([{ content: { name: 'both' } }, { content: { text: 'sampled' } }]);
    expect(asked).toEqual(['approval', 'Your name?']);
    await client.close();
  });
});
