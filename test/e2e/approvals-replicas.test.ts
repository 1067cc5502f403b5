// Two gateway replicas sharing approvals through a real Redis: a call waiting on replica A
// is approved through replica B's console API and runs on A at once; a single-use MRTR state
// minted by A cannot be replayed on B.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { startRedis, type TestRedis } from '../harness/redis.ts';
import { approvalsIdentityYaml, CALLER_KEY as CALLER } from '../harness/approvals.ts';
import { approveOnConsole, rulesDir, startApprovalsGateway } from '../harness/approvals-gateway.ts';

const ELICIT = { elicitation: { form: {} } };

let redis: TestRedis;
let upstream: ModernUpstream;
let a: TestGateway;
let b: TestGateway;

async function replica(dir: string, redisUrl: string): Promise<TestGateway> {
  const { gw } = await startApprovalsGateway({
    identity: approvalsIdentityYaml('http://gatehouse.test/mcp'),
    policyDir: dir,
    upstreamUrl: upstream.url,
    key: '2'.repeat(64),
    approvals: `  store: redis\n  redisUrl: ${redisUrl}`,
  });
  return gw;
}

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startModernUpstream({ name: 'up' });
  const dir = rulesDir('gatehouse-replicas-', `rules:
  - { id: echo-console, effect: approve, when: { tool: [up__echo] }, approval: { approver: console, timeout: 30s } }
  - { id: add-user, effect: approve, when: { tool: [up__add] }, approval: { approver: user } }
`);
  a = await replica(dir, redis.url);
  b = await replica(dir, redis.url);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await upstream?.close();
  await redis?.stop();
});

describe('approvals across replicas', () => {
  it('a call waiting on A runs when an approver decides on B', async () => {
    const pending = postJson(a.url, modernBody(1, 'tools/call', { name: 'up__echo', arguments: { message: 'from A' } }), modernHeaders('tools/call', 'up__echo', { 'x-api-key': CALLER }));
    expect(await approveOnConsole(new URL(b.url).origin, 'up__echo')).toBe(200);
    expect((await pending).json.result.structuredContent).toEqual({ message: 'from A' });
  });

  it('an MRTR approval used on A cannot be replayed on B', async () => {
    const call = (gw: TestGateway, id: number, extra: Record<string, unknown> = {}) =>
      postJson(gw.url, modernBody(id, 'tools/call', { name: 'up__add', arguments: { a: 1, b: 2 }, ...extra }, ELICIT), modernHeaders('tools/call', 'up__add', { 'x-api-key': CALLER }));
    const asked = await call(a, 2);
    const state = asked.json.result.requestState as string;
    const approve = { 'io.gatehouse/approval': { action: 'accept', content: { decision: 'approve' } } };
    expect((await call(a, 3, { requestState: state, inputResponses: approve })).json.result.content).toEqual([{ type: 'text', text: '3' }]);
    const replay = await call(b, 4, { requestState: state, inputResponses: approve });
    expect(replay.json.error.message).toContain('already used');
  });
});
