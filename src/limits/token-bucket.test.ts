import { describe, expect, it } from 'vitest';
import { takeToken } from './token-bucket.ts';

describe('takeToken', () => {
  it('allows up to capacity at once, then refuses with the time until one token is back', () => {
    let state;
    const results: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      const r = takeToken(state, 3, 2, 1000);
      state = r.state;
      results.push(r.allowed);
    }
    expect(results).toEqual([true, true, true, false]);
    expect(takeToken(state, 3, 2, 1000).retryAfterMs).toBe(500);
  });

  it('refills continuously and never beyond capacity', () => {
    const empty = { tokens: 0, updatedMs: 0 };
    expect(takeToken(empty, 5, 1, 999).allowed).toBe(false);
    const r = takeToken(empty, 5, 1, 1000);
    expect(r.allowed).toBe(true);
    expect(r.remaining).toBe(0);
    expect(takeToken(empty, 5, 1, 1_000_000).remaining).toBe(4);
  });

  it('a bucket that never refills says so', () => {
    expect(takeToken({ tokens: 0, updatedMs: 0 }, 1, 0, 10).retryAfterMs).toBe(Number.MAX_SAFE_INTEGER);
  });
});
