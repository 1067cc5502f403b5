import { describe, expect, it } from 'vitest';
import { RestartBackoff } from './restart-backoff.ts';

describe('RestartBackoff', () => {
  it('doubles the delay up to the maximum while children fail to start', () => {
    const b = new RestartBackoff({ initialDelayMs: 100, maxDelayMs: 1000 }, () => 0);
    expect([1, 2, 3, 4, 5, 6].map(() => b.exited())).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('keeps doubling for a child that passes its handshake and dies soon after', () => {
    let t = 0;
    const b = new RestartBackoff({ initialDelayMs: 100, maxDelayMs: 1000 }, () => t);
    const delays = [1, 2, 3, 4, 5].map(() => {
      b.up();
      t += 999;
      return b.exited();
    });
    expect(delays).toEqual([100, 200, 400, 800, 1000]);
  });

  it('starts again from the initial delay once a child stayed up for the maximum delay', () => {
    let t = 0;
    const b = new RestartBackoff({ initialDelayMs: 100, maxDelayMs: 1000 }, () => t);
    expect([b.exited(), b.exited(), b.exited()]).toEqual([100, 200, 400]);
    b.up();
    t += 1000;
    expect(b.exited()).toBe(100);
    expect(b.exited()).toBe(200);
  });
});
