import { describe, expect, it } from 'vitest';
import { Slots } from './slots.ts';

describe('Slots', () => {
  it('refuses past the per-owner cap first for that owner, and past the total for everyone', () => {
    const slots = new Slots(3, 2);
    expect(slots.take('a')).toBeUndefined();
    expect(slots.take('a')).toBeUndefined();
    expect(slots.take('a')).toBe('owner');
    expect(slots.take('b')).toBeUndefined();
    expect(slots.check('c')).toBe('total');
    expect(slots.take('c')).toBe('total');
    expect(slots.size()).toBe(3);
    slots.release('a');
    expect(slots.sizeOf('a')).toBe(1);
    expect(slots.take('c')).toBeUndefined();
  });

  it('ignores a release for an owner that holds nothing', () => {
    const slots = new Slots(1, 1);
    slots.release('nobody');
    expect(slots.size()).toBe(0);
    expect(slots.take('a')).toBeUndefined();
  });
});
