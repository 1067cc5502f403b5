// Rate limits end to end: the call past a bucket's capacity gets HTTP 429 with Retry-After
// and -31029 naming the rule, without reaching the upstream; buckets are per principal (or
// shared per tool when the rule says so); with `rateLimits.store: redis` two gateway
// replicas on one real redis-server share a bucket; and when Redis is gone calls fail closed
// with 503 while lists, which never count, keep working.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { auditRequests, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { startRedis, type TestRedis } from '../harness/redis.ts';
import { ALICE, BOB, IDENTITY_YAML, legacySession, logged, modernCall, modernList, policyDir, toolNames, type RawReply } from '../harness/policy-env.ts';

const POLICY = `
rules:
  - id: echo-budget
    effect: allow
    when: { tool: up__echo }
    rateLimit: { capacity: 2, perMinute: 1, per: principal }
  - id: add-shared
    description: one bucket for everybody's sums
    effect: allow
    when: { tool: up__add }
    rateLimit: { capacity: 3, perMinute: 1, per: tool }
`;

let upstream: ModernUpstream;
let dir: string;

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  dir = policyDir({ 'limits.yaml': POLICY });
});

afterAll(async () => {
  await upstream?.close();
});

const gatewayYaml = (extra = ''): string => `
${IDENTITY_YAML}
policy: { dir: "${dir}", watch: false }
${extra}
upstreams:
  - { name: up, url: "${upstream.url}" }
`;

const toolCalls = (): number => upstream.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call').length;
const echo = (url: string, who: Record<string, string>): Promise<RawReply> => modernCall(url, who, 'up__echo', { message: 'hi' });

function expectLimited(r: RawReply, rule: string): void {
  expect(r.status).toBe(429);
  expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
  const seconds = Number(r.headers.get('retry-after'));
  // One token per minute: the next one is due in about a minute, never sooner than a second.
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(r.json.error.code).toBe(-31029);
  expect(r.json.error.message).toContain(`rule ${rule}`);
  expect(r.json.error.data).toMatchObject({ rule, retryAfterMs: expect.any(Number) });
  expect(r.json.error.data.retryAfterMs).toBeGreaterThan(0);
  expect(r.json.error.data.retryAfterMs).toBeLessThanOrEqual(60_000);
}

describe('in memory (the default store)', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway(gatewayYaml());
    await gw.waitUp();
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('the (capacity+1)th call is 429 with Retry-After and -31029, and never reaches the upstream', async () => {
    expect((await echo(gw.url, ALICE)).json.result.structuredContent).toEqual({ message: 'hi' });
    expect((await echo(gw.url, ALICE)).status).toBe(200);
    const before = toolCalls();
    const third = await echo(gw.url, ALICE);
    expectLimited(third, 'echo-budget');
    expect(toolCalls()).toBe(before);
    // Recorded as what it was: the rule allowed the call, its limit refused it.
    await expect.poll(() => auditRequests(gw).find((r) => r.rpcId === third.json.id)).toMatchObject({ outcome: 'rate_limited', errorCode: -31029, decision: { effect: 'rate_limited', ruleId: 'echo-budget' } });
  });

  it("keeps each principal's bucket apart: bob still has his, and a legacy session sees the same 429", async () => {
    const bob = await legacySession(gw.url, BOB);
    expect((await bob('tools/call', { name: 'up__echo', arguments: { message: 'b' } })).json.result.structuredContent).toEqual({ message: 'b' });
    expect((await bob('tools/call', { name: 'up__echo', arguments: { message: 'b' } })).status).toBe(200);
    expectLimited(await bob('tools/call', { name: 'up__echo', arguments: { message: 'b' } }), 'echo-budget');
    expectLimited(await echo(gw.url, ALICE), 'echo-budget');
  });

  it('a per-tool bucket is shared by every caller', async () => {
    expect((await modernCall(gw.url, ALICE, 'up__add', { a: 1, b: 1 })).status).toBe(200);
    expect((await modernCall(gw.url, ALICE, 'up__add', { a: 1, b: 1 })).status).toBe(200);
    expect((await modernCall(gw.url, BOB, 'up__add', { a: 1, b: 1 })).status).toBe(200);
    expectLimited(await modernCall(gw.url, BOB, 'up__add', { a: 1, b: 1 }), 'add-shared');
  });

  it('lists do not count against any bucket', async () => {
    for (let i = 0; i < 5; i++) expect(toolNames(await modernList(gw.url, ALICE))).toEqual(['up__echo', 'up__add']);
  });
});

describe('in Redis, shared by two replicas', () => {
  let redis: TestRedis;
  let one: TestGateway;
  let two: TestGateway;

  beforeAll(async () => {
    redis = await startRedis();
    // A prefix of our own: nothing from another run can be in these buckets.
    const store = `rateLimits: { store: redis, redisUrl: "${redis.url}", prefix: "gh-test-${randomBytes(4).toString('hex')}:" }`;
    [one, two] = await Promise.all([startTestGateway(gatewayYaml(store)), startTestGateway(gatewayYaml(store))]);
    await Promise.all([one.waitUp(), two.waitUp()]);
  });

  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await redis?.stop();
  });

  it('two calls on one replica empty the bucket the other replica checks', async () => {
    expect((await echo(one.url, ALICE)).status).toBe(200);
    expect((await echo(one.url, ALICE)).status).toBe(200);
    expectLimited(await echo(two.url, ALICE), 'echo-budget');
    expectLimited(await echo(one.url, ALICE), 'echo-budget');
  });

  it('bob has his own bucket on both replicas', async () => {
    expect((await echo(two.url, BOB)).status).toBe(200);
    expect((await echo(one.url, BOB)).status).toBe(200);
    expectLimited(await echo(two.url, BOB), 'echo-budget');
  });

  it('fails closed with 503 when Redis is gone; lists still work', async () => {
    await redis.stop();
    const before = toolCalls();
    const r = await modernCall(one.url, BOB, 'up__add', { a: 1, b: 2 });
    expect(r.status).toBe(503);
    expect(r.json.error).toEqual({ code: -31029, message: 'Rate limits cannot be checked right now; try again shortly' });
    const legacy = await legacySession(two.url, ALICE);
    expect((await legacy('tools/call', { name: 'up__add', arguments: { a: 1, b: 2 } })).status).toBe(503);
    expect(toolCalls()).toBe(before);
    expect(logged(one.logs, 'rate limiter unavailable').length).toBeGreaterThan(0);
    expect(toolNames(await modernList(two.url, BOB))).toEqual(['up__echo', 'up__add']);
  });
});
