// Rate limiters keyed by (limit id, principal / tool / upstream). In memory by default;
// in Redis when several replicas must share counters. Both apply token-bucket.ts exactly.
import { LRUCache } from 'lru-cache';
import type { Redis } from 'ioredis';
import { takeToken, type BucketState } from './token-bucket.ts';

export interface LimitSpec {
  /** Bucket key, already including the limit id and what it is keyed by. */
  key: string;
  capacity: number;
  refillPerSecond: number;
}

export interface LimitOutcome {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
}

export interface RateLimiter {
  take(spec: LimitSpec): Promise<LimitOutcome>;
  close(): Promise<void>;
}

/** Buckets beyond this many are evicted least-recently-used first (a full bucket is the
 * same as no bucket, so eviction only ever forgives). */
const MAX_BUCKETS = 100_000;

export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const buckets = new LRUCache<string, BucketState>({ max: MAX_BUCKETS });
  return {
    async take(spec) {
      const r = takeToken(buckets.get(spec.key), spec.capacity, spec.refillPerSecond, now());
      buckets.set(spec.key, r.state);
      return { allowed: r.allowed, remaining: r.remaining, retryAfterMs: r.retryAfterMs };
    },
    async close() {},
  };
}

// KEYS[1] bucket; ARGV capacity, refill/s, now ms (empty: Redis's own clock). Same arithmetic
// as takeToken; the key expires once a full refill has certainly happened, so idle buckets
// cost nothing. The time is Redis's (TIME), not the calling replica's: replicas whose clocks
// disagree would otherwise refill one bucket wrongly (a replica behind the one that last
// wrote sees no time pass, and its callers stay limited for as long as the skew).
const TAKE_SCRIPT = `
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local s = redis.call('HMGET', KEYS[1], 't', 'u')
local tokens = tonumber(s[1]) or cap
local updated = tonumber(s[2]) or now
local elapsed = math.max(0, now - updated)
tokens = math.min(cap, tokens + elapsed * rate / 1000)
local allowed = 0
local retry = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
elseif rate > 0 then
  retry = math.ceil((1 - tokens) * 1000 / rate)
else
  retry = -1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', tostring(now))
local ttl = 3600000
if rate > 0 then ttl = math.ceil(cap * 1000 / rate) + 1000 end
redis.call('PEXPIRE', KEYS[1], ttl)
return {allowed, math.floor(tokens), retry}
`;

/** `now`: a clock for tests; by default the time is Redis's own, the same for every replica. */
export function createRedisRateLimiter(redis: Redis, opts: { prefix?: string; now?: () => number } = {}): RateLimiter {
  const prefix = opts.prefix ?? 'gatehouse:rl:';
  const now = opts.now ?? ((): string => '');
  redis.defineCommand('gatehouseTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  return {
    async take(spec) {
      const [allowed, remaining, retry] = (await (redis as unknown as { gatehouseTake(...a: unknown[]): Promise<number[]> }).gatehouseTake(
        prefix + spec.key,
        spec.capacity,
        spec.refillPerSecond,
        now(),
      )) as [number, number, number];
      return { allowed: allowed === 1, remaining, retryAfterMs: retry < 0 ? Number.MAX_SAFE_INTEGER : retry };
    },
    async close() {
      await redis.quit().catch(() => undefined);
    },
  };
}
