import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-depth.ts';

const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not scalars', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1, 'x', null, { b: true }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, 'x', null, { b: true }] }, 2)).toBe(true);
  });

  it('is exact at the limit', () => {
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
  });

  it('finds the deep branch among wide shallow ones', () => {
    const wide = { items: Array.from({ length: 10_000 }, (_, i) => ({ i })), deep: nested(70) };
    expect(nestsDeeperThan(wide, 64)).toBe(true);
    expect(nestsDeeperThan({ items: wide.items }, 64)).toBe(false);
  });

  it('walks a million levels without a stack overflow', () => {
    expect(nestsDeeperThan(nested(1_000_000), 64)).toBe(true);
  });
});
