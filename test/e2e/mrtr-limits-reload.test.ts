// A config reload that changes limits.inputTimeout and limits.maxSuspendedCallsPerPrincipal
// takes effect for the calls suspended after it (README, Reloading the configuration): a
// principal already holding two suspended calls is refused a third at once under the new cap
// of one, and another principal's call suspended after the reload is cancelled upstream at the
// new 300 ms deadline, leaving a suspended_call_cancelled audit event.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { auditEvents, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { APPROVER_KEY as CAROL, approvalsIdentityYaml, CALLER_KEY as BOB } from '../harness/approvals.ts';

const ALL = { sampling: {}, elicitation: { form: {} }, roots: {} };

let upstream: LegacyUpstream;
let gw: TestGateway;
let base: string;

beforeAll(async () => {
  upstream = await startLegacyUpstream({ name: 'l', askClient: true });
  base = `${approvalsIdentityYaml('http://gatehouse.test/mcp')}\napprovals:\n  keys: ["${'7'.repeat(64)}"]\nupstreams:\n  - { name: l, url: "${upstream.url}" }\n`;
  gw = await startTestGateway(base, process.env, { reload: true });
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

function ask(id: number, key: string) {
  return postJson(gw.url, modernBody(id, 'tools/call', { name: 'l__ask_client', arguments: { what: 'elicitation' } }, ALL), modernHeaders('tools/call', 'l__ask_client', { 'x-api-key': key }));
}

const cancels = (): number => upstream.received.filter((q) => (q.body as any)?.method === 'notifications/cancelled').length;

describe('reloading the suspension limits', () => {
  it('applies the new per-principal cap and input timeout to calls suspended after the reload', async () => {
    // Under the defaults (20 per principal, 2 minutes), Bob holds two suspended calls.
    expect((await ask(1, BOB)).json.result.resultType).toBe('input_required');
    expect((await ask(2, BOB)).json.result.resultType).toBe('input_required');

    writeFileSync(gw.config.file, `${base}limits: { inputTimeout: 300ms, maxSuspendedCallsPerPrincipal: 1 }\n`);
    await expect.poll(() => auditEvents(gw).some((e) => e.event === 'config_reload' && e.detail.result === 'applied'), { timeout: 10_000 }).toBe(true);

    // Bob is over the new cap: the upstream's question is refused at once, the call completes.
    const third = await ask(3, BOB);
    expect(third.json.result.resultType).toBe('complete');
    expect(third.json.result.content[0].text).toMatch(/too many calls are waiting/);

    // Carol's call is suspended under the new timeout, and cancelled upstream when it passes.
    const before = cancels();
    expect((await ask(4, CAROL)).json.result.resultType).toBe('input_required');
    await expect.poll(cancels, { timeout: 5000 }).toBe(before + 1);
    await expect
      .poll(() => auditEvents(gw).find((e) => e.event === 'suspended_call_cancelled')?.detail)
      .toMatchObject({ upstream: 'l', method: 'tools/call', name: 'ask_client', reason: 'inputTimeout', rounds: 1, principal: expect.stringContaining('approver') });
  });
});
