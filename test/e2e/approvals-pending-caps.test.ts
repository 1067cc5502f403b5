// One principal cannot fill the approval queue for everyone: past approvals.maxPendingPerPrincipal
// its next call needing approval is refused at once (503, Retry-After, a JSON-RPC error naming
// the limit, an audit record, a count in /metrics), nothing is run, and another principal's
// call is still sent to the approvers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { rulesDir, startApprovalsGateway } from '../harness/approvals-gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { ALICE, BOB, IDENTITY_YAML } from '../harness/policy-env.ts';

let upstream: ModernUpstream;
let gw: TestGateway;
let auditDir: string;
const aborts: AbortController[] = [];

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  const dir = rulesDir('gatehouse-pending-caps-', 'rules:\n  - { id: add-console, effect: approve, when: { tool: [up__add] }, approval: { approver: console, timeout: 1m } }\n');
  auditDir = join(dir, 'trail');
  ({ gw } = await startApprovalsGateway({
    identity: IDENTITY_YAML,
    policyDir: dir,
    upstreamUrl: upstream.url,
    key: '5'.repeat(64),
    approvals: '  maxPending: 10\n  maxPendingPerPrincipal: 2',
    extra: `audit: { dir: "${auditDir}" }`,
  }));
});

afterAll(async () => {
  for (const a of aborts) a.abort();
  await gw?.close();
  await upstream?.close();
});

let nextId = 1;

/** A call that waits for a person; aborted when the tests end. */
function held(who: Record<string, string>, a: number): void {
  const abort = new AbortController();
  aborts.push(abort);
  const body = modernBody(nextId++, 'tools/call', { name: 'up__add', arguments: { a, b: 1 } });
  fetch(gw.url, { method: 'POST', headers: modernHeaders('tools/call', 'up__add', who), body: JSON.stringify(body), signal: abort.signal }).catch(() => undefined);
}

const requested = (): Record<string, any>[] =>
  readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.event === 'approval_requested');

describe('pending approvals per principal', () => {
  it('refuses a principal past its share while another is still asked for', async () => {
    held(ALICE, 1);
    held(ALICE, 2);
    await expect.poll(() => requested().length).toBe(2);
    const third = await postJson(gw.url, modernBody(nextId++, 'tools/call', { name: 'up__add', arguments: { a: 3, b: 1 } }), modernHeaders('tools/call', 'up__add', ALICE));
    expect(third.status).toBe(503);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(third.json.error).toMatchObject({ code: -31030, data: { limit: 'maxPendingPerPrincipal' } });
    expect(third.json.error.message).toContain('approvals.maxPendingPerPrincipal');
    // Bob is still asked for: his call waits for a person, it is not refused.
    held(BOB, 4);
    await expect.poll(() => requested().map((r) => r.detail.subject)).toEqual(['alice', 'alice', 'bob']);
    expect(upstream.received.filter((r) => (r.body as { method?: string }).method === 'tools/call')).toHaveLength(0);
    expect(await metricValue(gw.url, 'gatehouse_limit_hits_total', { limit: 'maxPendingPerPrincipal' })).toBe(1);
    const record = readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((r) => r.type === 'request' && r.errorCode === -31030);
    expect(record).toMatchObject({ method: 'tools/call', name: 'up__add', principal: { subject: 'alice' }, outcome: 'error' });
  });
});
