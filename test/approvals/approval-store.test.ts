// The store contract, on the in-memory store and on a real redis-server; then what only the
// shared store can do: a decision made through one instance wakes a waiter on another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createMemoryApprovalStore, type ApprovalStore } from '../../src/approvals/approval-store.ts';
import { createRedisApprovalStore } from '../../src/approvals/redis-approval-store.ts';
import type { ApprovalOutcome } from '../../src/approvals/approval.ts';
import { startRedis, type TestRedis } from '../harness/redis.ts';
import { approvalRequest } from '../harness/approvals.ts';

let redis: TestRedis;
const opened: ApprovalStore[] = [];
let prefixCounter = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await redis?.stop();
});

function redisStore(prefix: string, now?: () => number, pollIntervalMs?: number): ApprovalStore {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  const store = createRedisApprovalStore(client, { prefix, ...(now ? { now } : {}), ...(pollIntervalMs ? { pollIntervalMs } : {}) });
  opened.push(store);
  return store;
}

const kinds: [string, (now: () => number) => ApprovalStore][] = [
  ['memory', (now) => createMemoryApprovalStore({ now })],
  ['redis', (now) => redisStore(`t${++prefixCounter}:`, now)],
];

/** Resolves once Redis itself counts a subscriber on the decision channel of `prefix`. */
async function subscribed(prefix: string): Promise<void> {
  const admin = new Redis(redis.url);
  try {
    await expect.poll(async () => ((await admin.pubsub('NUMSUB', `${prefix}decided`)) as [string, number])[1], { timeout: 5000 }).toBe(1);
  } finally {
    await admin.quit();
  }
}

const outcome = (decision: ApprovalOutcome['decision'], at: number, by = 'carol'): ApprovalOutcome => ({ decision, by, channel: 'console', at });

describe.each(kinds)('%s approval store', (_kind, make) => {
  it('creates, gets and lists pending approvals oldest first', async () => {
    const t = Date.now();
    const store = make(() => t);
    const second = approvalRequest({ channel: 'console', createdAt: t - 1000, expiresAt: t + 60_000 });
    const first = approvalRequest({ channel: 'console', createdAt: t - 2000, expiresAt: t + 60_000, arguments: { nested: { list: [], empty: {} }, n: 1.5 } });
    await store.create(second);
    await store.create(first);
    expect(await store.get(first.id)).toEqual({ request: first, outcome: undefined });
    expect((await store.listPending()).map((r) => r.id)).toEqual([first.id, second.id]);
    expect(await store.countPending()).toBe(2);
    expect(await store.get('no-such-approval-id-0000')).toBeUndefined();
  });

  it('takes exactly one decision: the second is refused and told the first', async () => {
    const t = Date.now();
    const store = make(() => t);
    const r = approvalRequest({ channel: 'console', createdAt: t, expiresAt: t + 60_000 });
    await store.create(r);
    const results = await Promise.all([
      store.decide(r.id, outcome('approved', t, 'carol')),
      store.decide(r.id, outcome('denied', t, 'dave')),
      store.decide(r.id, outcome('expired', t, 'gatehouse')),
    ]);
    const winners = results.filter((x) => x.ok);
    expect(winners).toHaveLength(1);
    const first = (winners[0] as { value: ApprovalOutcome }).value;
    for (const loser of results.filter((x) => !x.ok)) expect(loser).toEqual({ ok: false, error: { kind: 'already_decided', outcome: first } });
    expect((await store.get(r.id))?.outcome).toEqual(first);
    expect(await store.listPending()).toEqual([]);
  });

  it('refuses approve and deny after expiry but lets the waiting side close it', async () => {
    const t = Date.now();
    const store = make(() => t);
    const r = approvalRequest({ channel: 'console', createdAt: t - 10_000, expiresAt: t + 1000 });
    await store.create(r);
    expect(await store.decide(r.id, outcome('approved', t + 1000))).toEqual({ ok: false, error: { kind: 'expired' } });
    expect(await store.decide(r.id, outcome('expired', t + 1001, 'gatehouse'))).toMatchObject({ ok: true });
    expect(await store.decide('unknown-approval-id-0000', outcome('approved', t))).toEqual({ ok: false, error: { kind: 'not_found' } });
  });

  it('does not list an expired approval', async () => {
    let t = Date.now();
    const store = make(() => t);
    const r = approvalRequest({ channel: 'console', createdAt: t, expiresAt: t + 1000 });
    await store.create(r);
    expect(await store.countPending()).toBe(1);
    t += 1000;
    expect(await store.listPending()).toEqual([]);
    expect(await store.countPending()).toBe(0);
  });

  it('consumeOnce is true once per key within its ttl', async () => {
    const store = make(Date.now);
    expect(await store.consumeOnce('nonce-1', 60_000)).toBe(true);
    expect(await store.consumeOnce('nonce-1', 60_000)).toBe(false);
    expect(await store.consumeOnce('nonce-2', 60_000)).toBe(true);
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => store.consumeOnce('nonce-3', 60_000)));
    expect(concurrent.filter(Boolean)).toHaveLength(1);
  });

  it('consumeOnce forgets a key after its ttl', async () => {
    const store = make(Date.now);
    expect(await store.consumeOnce('short', 50)).toBe(true);
    // A refused repeat leaves no marker, so asking again until it is taken is the same question.
    await expect.poll(() => store.consumeOnce('short', 50), { timeout: 2000 }).toBe(true);
  });

  it('a waiter resolves on the decision, or at once when already decided', async () => {
    const store = make(Date.now);
    const t = Date.now();
    const r = approvalRequest({ channel: 'console', createdAt: t, expiresAt: t + 60_000 });
    await store.create(r);
    // Parked before the decision: waitForDecision registers its waiter before it first yields.
    const waiting = store.waitForDecision(r.id, new AbortController().signal);
    await store.decide(r.id, outcome('denied', Date.now()));
    expect(await waiting).toMatchObject({ decision: 'denied', by: 'carol' });
    expect(await store.waitForDecision(r.id, new AbortController().signal)).toMatchObject({ decision: 'denied' });
  });

  it('an aborted waiter resolves undefined', async () => {
    const store = make(Date.now);
    const t = Date.now();
    const r = approvalRequest({ channel: 'console', createdAt: t, expiresAt: t + 60_000 });
    await store.create(r);
    const controller = new AbortController();
    const waiting = store.waitForDecision(r.id, controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
  });
});

describe('redis approval store across instances (replicas)', () => {
  it('a decision made through store B resolves a waiter on store A', async () => {
    const prefix = `x${++prefixCounter}:`;
    // A long poll interval: only pub/sub can deliver the decision within the test.
    const a = redisStore(prefix, Date.now, 60_000);
    const b = redisStore(prefix, Date.now, 60_000);
    const t = Date.now();
    const r = approvalRequest({ channel: 'console', createdAt: t, expiresAt: t + 60_000 });
    await a.create(r);
    expect((await b.listPending()).map((x) => x.id)).toEqual([r.id]);
    const waiting = a.waitForDecision(r.id, new AbortController().signal);
    await subscribed(prefix);
    expect(await b.decide(r.id, outcome('approved', Date.now(), 'carol'))).toMatchObject({ ok: true });
    expect(await waiting).toMatchObject({ decision: 'approved', by: 'carol', channel: 'console' });
    // And the loser on A learns what B decided.
    expect(await a.decide(r.id, outcome('expired', Date.now(), 'gatehouse'))).toMatchObject({ ok: false, error: { kind: 'already_decided', outcome: { decision: 'approved' } } });
  });

  it('single-use markers are shared: a nonce used on A is refused on B', async () => {
    const prefix = `y${++prefixCounter}:`;
    const a = redisStore(prefix);
    const b = redisStore(prefix);
    expect(await a.consumeOnce('mrtr:nonce', 60_000)).toBe(true);
    expect(await b.consumeOnce('mrtr:nonce', 60_000)).toBe(false);
  });

  it('a waiter whose subscriber lost its connection still sees the decision (poll on reconnect)', async () => {
    const prefix = `z${++prefixCounter}:`;
    const a = redisStore(prefix, Date.now, 60_000);
    const b = redisStore(prefix, Date.now, 60_000);
    const t = Date.now();
    const r = approvalRequest({ channel: 'webhook', createdAt: t, expiresAt: t + 60_000 });
    await a.create(r);
    const waiting = a.waitForDecision(r.id, new AbortController().signal);
    await subscribed(prefix);
    // Drop every pub/sub connection server-side, then decide while A's subscriber reconnects.
    const admin = new Redis(redis.url);
    await admin.client('KILL', 'TYPE', 'pubsub');
    await b.decide(r.id, { decision: 'denied', by: 'hook', channel: 'webhook', at: Date.now() });
    await admin.quit();
    expect(await waiting).toMatchObject({ decision: 'denied', by: 'hook' });
  });
});
