// An approval by the calling user (MRTR, 2026-07-28) is good for the rule it was asked under.
// When the policy is reloaded so that the call now needs another approver (the console), a
// sealed state the user got earlier must not let the user approve the call themself; when the
// rule is replaced by another one, the state is not carried over either. Real gateway, real
// upstream, real policy directory reloaded by the watcher.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { ALICE_KEY as ALICE, IDENTITY_YAML, policyDir } from '../harness/policy-env.ts';

const ELICIT = { elicitation: { form: {} } };
const APPROVE = { 'io.gatehouse/approval': { action: 'accept', content: { decision: 'approve' } } };

const USER_RULE = `rules:
  - { id: add-needs-ok, effect: approve, when: { tool: [up__add] }, approval: { approver: user } }
`;
const CONSOLE_RULE = `rules:
  - { id: add-needs-ok, effect: approve, when: { tool: [up__add] }, approval: { approver: console } }
`;
const RENAMED_RULE = `rules:
  - { id: add-needs-ok-v2, effect: approve, when: { tool: [up__add] }, approval: { approver: user } }
`;

let upstream: ModernUpstream;
let gw: TestGateway;
// Rewritten by the tests, and watched.
const dir = policyDir({ 'rules.yaml': USER_RULE });
let nextId = 1;

const calls = (): number => upstream.received.filter((r) => (r.body as { method?: string })?.method === 'tools/call').length;
const call = (args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  postJson(gw.url, modernBody(nextId++, 'tools/call', { name: 'up__add', arguments: args, ...extra }, ELICIT), modernHeaders('tools/call', 'up__add', { 'x-api-key': ALICE }));

async function setPolicy(text: string, settled: (r: Awaited<ReturnType<typeof call>>) => boolean): Promise<void> {
  writeFileSync(join(dir, 'rules.yaml'), text);
  await expect.poll(async () => settled(await call({ a: 0, b: 0 })), { message: 'the policy to reload', timeout: 5000 }).toBe(true);
}

async function ask(args: Record<string, unknown>): Promise<string> {
  const r = await call(args);
  expect(r.json.result.resultType).toBe('input_required');
  return r.json.result.requestState as string;
}

useGatewayBed({
  upstream: () => startModernUpstream({ name: 'up' }),
  config: (up) => `
${IDENTITY_YAML}
policy: { dir: "${dir}", watch: true }
upstreams:
  - { name: up, url: "${up.url}" }
`,
  ready: (bed) => ({ upstream, gw } = bed),
});

describe('a user approval state across a policy reload', () => {
  it('does not let the user approve a call the new policy sends to the console', async () => {
    const state = await ask({ a: 1, b: 2 });
    await setPolicy(CONSOLE_RULE, (r) => r.json.error?.data?.approver === 'console');
    const before = calls();
    const retry = await call({ a: 1, b: 2 }, { requestState: state, inputResponses: APPROVE });
    expect(retry.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('policy rule') });
    expect(calls()).toBe(before);
  });

  it('does not carry an approval over to a rule that replaced the one it was asked under', async () => {
    await setPolicy(USER_RULE, (r) => r.json.result?.resultType === 'input_required');
    const state = await ask({ a: 3, b: 4 });
    await setPolicy(RENAMED_RULE, (r) => r.json.result?.resultType === 'input_required' && r.json.result.inputRequests['io.gatehouse/approval'].params.message.includes('add-needs-ok-v2'));
    const before = calls();
    const retry = await call({ a: 3, b: 4 }, { requestState: state, inputResponses: APPROVE });
    expect(retry.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('policy rule') });
    expect(calls()).toBe(before);
  });

  it('still runs the call when the rule in force is the one the user answered', async () => {
    const state = await ask({ a: 20, b: 22 });
    const before = calls();
    const retry = await call({ a: 20, b: 22 }, { requestState: state, inputResponses: APPROVE });
    expect(retry.json.result.content).toEqual([{ type: 'text', text: '42' }]);
    expect(calls()).toBe(before + 1);
  });
});
