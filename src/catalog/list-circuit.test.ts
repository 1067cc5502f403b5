import { describe, expect, it } from 'vitest';
import { ListCircuit } from './list-circuit.ts';

function circuit() {
  let t = 1_000;
  const c = new ListCircuit({ initialDelayMs: 100, maxDelayMs: 350, afterErrors: 3 }, () => t);
  return { c, advance: (ms: number) => void (t += ms) };
}

describe('ListCircuit', () => {
  it('opens on a missed deadline, with the fetch under way as its first try', () => {
    const { c, advance } = circuit();
    expect(c.state('up', 'tools')).toBeUndefined();
    c.missed('up', 'tools');
    advance(500);
    // Past its delay, but the first fetch has not ended: no second one starts.
    expect(c.claimRetry('up', 'tools')).toBe(false);
    expect(c.list()).toEqual([{ upstream: 'up', kind: 'tools', since: 1_000, failures: 1, retryAt: 1_100, trying: true, cause: 'deadline' }]);
  });

  it('doubles the delay per failed try up to the bound, and lets one retry start at a time', () => {
    const { c, advance } = circuit();
    c.missed('up', 'tools');
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      c.failed('up', 'tools');
      const before = c.state('up', 'tools')!.retryAt;
      expect(c.claimRetry('up', 'tools')).toBe(false);
      let waited = 0;
      while (!c.claimRetry('up', 'tools')) {
        advance(50);
        waited += 50;
      }
      delays.push(waited);
      expect(c.state('up', 'tools')!.retryAt).toBe(before);
      // The claimed retry is under way: nobody else starts one.
      expect(c.claimRetry('up', 'tools')).toBe(false);
    }
    expect(delays).toEqual([200, 350, 350, 350]);
  });

  it('closes on an answer, and a quick failure of a closed list opens nothing', () => {
    const { c } = circuit();
    c.failed('up', 'tools');
    expect(c.state('up', 'tools')).toBeUndefined();
    c.missed('up', 'tools');
    expect(c.answered('up', 'tools')).toBe(true);
    expect(c.answered('up', 'tools')).toBe(false);
    expect(c.list()).toEqual([]);
  });

  it('opens after afterErrors quick failures in a row, with no fetch under way, and an answer between them starts the count again', () => {
    const { c, advance } = circuit();
    c.failed('up', 'tools');
    c.failed('up', 'tools');
    c.answered('up', 'tools');
    c.failed('up', 'tools');
    c.failed('up', 'tools');
    expect(c.state('up', 'tools')).toBeUndefined();
    advance(10);
    c.failed('up', 'tools');
    expect(c.list()).toEqual([{ upstream: 'up', kind: 'tools', since: 1_010, failures: 3, retryAt: 1_110, trying: false, cause: 'errors' }]);
    // Its first retry waits initialDelay; a failed retry doubles the delay as for a missed deadline.
    expect(c.claimRetry('up', 'tools')).toBe(false);
    advance(100);
    expect(c.claimRetry('up', 'tools')).toBe(true);
    c.failed('up', 'tools');
    expect(c.state('up', 'tools')).toMatchObject({ failures: 4, retryAt: 1_110 + 350, trying: false });
    // Another list of the same upstream keeps its own count.
    expect(c.state('up', 'prompts')).toBeUndefined();
    expect(c.answered('up', 'tools')).toBe(true);
  });
});
