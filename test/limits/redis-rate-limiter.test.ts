import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from '../../src/limits/rate-limiter.ts';
import { startRedis, type TestRedis } from '../harness/redis.ts';

describe('rate limiters', () => {
  let redis: TestRedis;
  let a: RateLimiter;
  let b: RateLimiter;
  let clock = 1_000_000;

  beforeAll(async () => {
    redis = await startRedis();
    a = createRedisRateLimiter(new Redis(redis.url), { now: () => clock });
    b = createRedisRateLimiter(new Redis(redis.url), { now: () => clock });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('two replicas on one Redis share one bucket', async () => {
    const spec = { key: 'shared:alice', capacity: 3, refillPerSecond: 1 };
    const seen = [await a.take(spec), await b.take(spec), await a.take(spec), await b.take(spec)];
    expect(seen.map((s) => s.allowed)).toEqual([true, true, true, false]);
    expect(seen[3]!.retryAfterMs).toBe(1000);
    clock += 1000;
    expect((await b.take(spec)).allowed).toBe(true);
  });

  it('keeps buckets apart by key', async () => {
    const one = { key: 'k:one', capacity: 1, refillPerSecond: 0.1 };
    const two = { key: 'k:two', capacity: 1, refillPerSecond: 0.1 };
    expect((await a.take(one)).allowed).toBe(true);
    expect((await a.take(one)).allowed).toBe(false);
    expect((await a.take(two)).allowed).toBe(true);
  });

  it('the memory limiter gives the same answers as Redis for the same sequence', async () => {
    let t = 0;
    const mem = createMemoryRateLimiter(() => t);
    const spec = { key: 'same', capacity: 2, refillPerSecond: 4 };
    const redisSpec = { ...spec, key: 'same-redis' };
    const memSeen: boolean[] = [];
    const redisSeen: boolean[] = [];
    for (const step of [0, 0, 0, 100, 250, 250, 260]) {
      t = step;
      clock = 5_000_000 + step;
      memSeen.push((await mem.take(spec)).allowed);
      redisSeen.push((await a.take(redisSpec)).allowed);
    }
    expect(memSeen).toEqual([true, true, false, false, true, false, false]);
    expect(redisSeen).toEqual(memSeen);
  });
});

describe('the Redis rate limiter on its default clock', () => {
  let redis: TestRedis;
  let skewed: RateLimiter;
  let right: RateLimiter;

  beforeAll(async () => {
    redis = await startRedis();
    // One replica's clock runs a minute slow (Date.now as the process sees it).
    const realNow = Date.now;
    Date.now = () => realNow() - 60_000;
    try {
      skewed = createRedisRateLimiter(new Redis(redis.url));
    } finally {
      Date.now = realNow;
    }
    right = createRedisRateLimiter(new Redis(redis.url));
  });
  afterAll(async () => {
    await skewed.close();
    await right.close();
    await redis.stop();
  });

  it("refills by Redis's time: a replica whose clock runs a minute slow cannot hand out a minute of phantom refill", async () => {
    const spec = { key: 'skew:alice', capacity: 1, refillPerSecond: 1 / 60 };
    expect((await skewed.take(spec)).allowed).toBe(true);
    // Another replica, on time, right after: the bucket is empty, one token a minute. On the
    // replicas' own clocks it would see a minute gone by since the slow one took, and allow.
    const next = await right.take(spec);
    expect(next.allowed).toBe(false);
    expect(next.retryAfterMs).toBeGreaterThan(50_000);
    expect((await skewed.take(spec)).allowed).toBe(false);
  });
});
