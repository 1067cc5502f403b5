// Token bucket arithmetic (pure): `capacity` tokens, refilled continuously at
// `refillPerSecond`; one call costs one token. The Redis limiter runs the same formula in
// Lua so replicas share counters exactly.

export interface BucketState {
  tokens: number;
  updatedMs: number;
}

export interface TakeResult {
  allowed: boolean;
  state: BucketState;
  /** Tokens left after this call (floored). */
  remaining: number;
  /** When a denied caller may try again. 0 when allowed. */
  retryAfterMs: number;
}

export function takeToken(state: BucketState | undefined, capacity: number, refillPerSecond: number, now: number): TakeResult {
  const prev = state ?? { tokens: capacity, updatedMs: now };
  const elapsed = Math.max(0, now - prev.updatedMs);
  const tokens = Math.min(capacity, prev.tokens + (elapsed * refillPerSecond) / 1000);
  if (tokens >= 1) {
    const next = { tokens: tokens - 1, updatedMs: now };
    return { allowed: true, state: next, remaining: Math.floor(next.tokens), retryAfterMs: 0 };
  }
  const retryAfterMs = refillPerSecond > 0 ? Math.ceil(((1 - tokens) * 1000) / refillPerSecond) : Number.MAX_SAFE_INTEGER;
  return { allowed: false, state: { tokens, updatedMs: now }, remaining: 0, retryAfterMs };
}
