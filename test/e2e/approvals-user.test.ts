// Approval by the calling user, end to end: a modern SDK 2.x client answering the MRTR
// elicitation, a legacy SDK 1.x client answering elicitation/create, raw HTTP for every
// refusal (tampered, replayed, re-targeted, other principal, expired), and a client that
// cannot elicit. Nothing may reach the upstream before "approve".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { useMovableClock } from '../harness/movable-clock.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { ALICE_KEY as ALICE, BOB_KEY as BOB, IDENTITY_YAML, policyDir } from '../harness/policy-env.ts';

const ELICIT = { elicitation: { form: {} } };
// An approval's expiry passes on this clock, not in a sleep.
const clock = useMovableClock();

let upstream: ModernUpstream;
let gw: TestGateway;

const calls = (): number => upstream.received.filter((r) => (r.body as { method?: string })?.method === 'tools/call').length;

const RULES = `rules:
  - { id: read, effect: allow, when: { tool: [up__echo] } }
  - { id: add-needs-ok, effect: approve, when: { tool: [up__add] }, approval: { approver: user } }
  - { id: slow-needs-ok, effect: approve, when: { tool: [up__slow] }, approval: { approver: user, timeout: 1s } }
`;

useGatewayBed({
  upstream: () => startModernUpstream({ name: 'up' }),
  config: (up) => `
${IDENTITY_YAML}
policy: { dir: "${policyDir({ 'rules.yaml': RULES })}" }
upstreams:
  - { name: up, url: "${up.url}" }
`,
  ready: (bed) => ({ upstream, gw } = bed),
});

const raw = (id: number, args: Record<string, unknown>, key = ALICE, extra: Record<string, unknown> = {}, tool = 'up__add') =>
  postJson(gw.url, modernBody(id, 'tools/call', { name: tool, arguments: args, ...extra }, ELICIT), modernHeaders('tools/call', tool, { 'x-api-key': key }));

describe('a modern client approves through MRTR', () => {
  it('asks with a form showing upstream, tool and arguments, then runs the call once on approve', async () => {
    const client = await connectModernClient(gw.url, { capabilities: ELICIT, headers: { 'x-api-key': ALICE } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (req: { params: { message: string } }) => {
      asked.push(req.params.message);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const before = calls();
    const r = await client.callTool({ name: 'up__add', arguments: { a: 2, b: 40 } });
    expect(r.content).toEqual([{ type: 'text', text: '42' }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Upstream: up');
    expect(asked[0]).toContain('Tool: up__add');
    expect(asked[0]).toContain('"b": 40');
    expect(calls()).toBe(before + 1);
    await client.close();
  });

  it('declining returns a tool error saying so, and nothing reaches the upstream', async () => {
    const client = await connectModernClient(gw.url, { capabilities: ELICIT, headers: { 'x-api-key': ALICE } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { decision: 'decline' } }));
    const before = calls();
    const r = await client.callTool({ name: 'up__add', arguments: { a: 1, b: 1 } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain('declined');
    expect(calls()).toBe(before);
    await client.close();
  });

  it('a client that cannot elicit is told approval is required and how to get it', async () => {
    const before = calls();
    const r = await postJson(gw.url, modernBody(1, 'tools/call', { name: 'up__add', arguments: { a: 1, b: 1 } }), modernHeaders('tools/call', 'up__add', { 'x-api-key': ALICE }));
    expect(r.json.error.code).toBe(-31010);
    expect(r.json.error.message).toMatch(/needs approval \(user\).*elicitation capability/);
    expect(calls()).toBe(before);
  });
});

describe('the sealed request state', () => {
  async function ask(args: Record<string, unknown>, tool = 'up__add') {
    const r = await raw(10, args, ALICE, {}, tool);
    expect(r.json.result.resultType).toBe('input_required');
    return r.json.result.requestState as string;
  }
  const approve = { 'io.gatehouse/approval': { action: 'accept', content: { decision: 'approve' } } };

  it('is single-use: the same approval cannot ride on a second call', async () => {
    const state = await ask({ a: 3, b: 4 });
    const before = calls();
    const first = await raw(11, { a: 3, b: 4 }, ALICE, { requestState: state, inputResponses: approve });
    expect(first.json.result.content).toEqual([{ type: 'text', text: '7' }]);
    const replay = await raw(12, { a: 3, b: 4 }, ALICE, { requestState: state, inputResponses: approve });
    expect(replay.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('already used') });
    expect(calls()).toBe(before + 1);
  });

  it('refuses tampered state, changed arguments, another tool and another principal', async () => {
    const before = calls();
    const state = await ask({ a: 5, b: 5 });
    const flipped = state.slice(0, -3) + (state.at(-3) === 'A' ? 'B' : 'A') + state.slice(-2);
    expect((await raw(13, { a: 5, b: 5 }, ALICE, { requestState: flipped, inputResponses: approve })).json.error.message).toContain('not issued by this gateway or was altered');
    expect((await raw(14, { a: 5, b: 6 }, ALICE, { requestState: state, inputResponses: approve })).json.error.message).toContain('arguments changed');
    expect((await raw(15, { a: 5, b: 5 }, BOB, { requestState: state, inputResponses: approve })).json.error.message).toContain('another principal');
    const slowState = await ask({ ms: 1 }, 'up__slow');
    expect((await raw(16, { a: 5, b: 5 }, ALICE, { requestState: slowState, inputResponses: approve })).json.error.message).toContain('another call');
    expect(calls()).toBe(before);
  });

  it('expires', async () => {
    const state = await ask({ ms: 1 }, 'up__slow');
    clock.advance(1100);
    const late = await raw(17, { ms: 1 }, ALICE, { requestState: state, inputResponses: approve }, 'up__slow');
    expect(late.json.error.message).toContain('expired');
  });
});

describe('a legacy client approves through elicitation/create', () => {
  it('is asked on the call stream; approve runs the call, decline does not', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} }, headers: { 'x-api-key': ALICE } });
    let answer = 'approve';
    const messages: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      messages.push(req.params.message);
      return { action: 'accept', content: { decision: answer } };
    });
    const before = calls();
    const ok = await client.callTool({ name: 'up__add', arguments: { a: 20, b: 22 } });
    expect(ok.content).toEqual([{ type: 'text', text: '42' }]);
    answer = 'decline';
    const no = await client.callTool({ name: 'up__add', arguments: { a: 1, b: 2 } });
    expect(no.isError).toBe(true);
    expect(JSON.stringify(no.content)).toContain('declined');
    expect(messages).toHaveLength(2);
    expect(calls()).toBe(before + 1);
    await client.close();
  });
});

describe('the record of user approvals', () => {
  it('audits each question and each answer of the calling-user channel, tied to the call records', () => {
    const recs = readFileSync(join(gw.config.audit.dir, gw.config.audit.file), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const asked = recs.filter((r) => r.event === 'approval_requested' && r.detail.channel === 'user');
    const answered = recs.filter((r) => r.event === 'approval_decided' && r.detail.channel === 'user');
    expect(asked.length).toBeGreaterThanOrEqual(6);
    expect(answered.map((r) => r.detail.decision)).toEqual(expect.arrayContaining(['approved', 'denied']));
    const approvedCall = recs.find((r) => r.type === 'request' && r.approval?.decision === 'approved' && r.era === 'modern')!;
    expect(approvedCall.approval).toMatchObject({ channel: 'user', approver: 'alice' });
    expect(asked.some((r) => r.detail.id === approvedCall.approval.id)).toBe(true);
    expect(answered.some((r) => r.detail.id === approvedCall.approval.id && r.detail.decision === 'approved')).toBe(true);
  });
});

