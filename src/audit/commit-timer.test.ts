import { describe, expect, it } from 'vitest';
import { CommitTimer, FOLLOWERS_TO_WAIT, type CommitTimers, type CommitTiming } from './commit-timer.ts';

/** Timers the test fires by hand: what was asked for, and when. */
function manualTimers() {
  const immediates: (() => void)[] = [];
  const timeouts = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const timers: CommitTimers = {
    setImmediate: (fn) => void immediates.push(fn),
    setTimeout: (fn, ms) => {
      timeouts.set(next, { fn, ms });
      return next++;
    },
    clearTimeout: (handle) => void timeouts.delete(handle as number),
  };
  return {
    timers,
    immediates,
    timeouts,
    runImmediates: () => immediates.splice(0).forEach((fn) => fn()),
    runTimeouts: () => [...timeouts.values()].forEach((t) => t.fn()),
  };
}

/** `coming`: what the sink reports as still to come; absent, the timer has no count. */
function timer(timing: Partial<CommitTiming> = {}, coming?: { n: number }) {
  const t = manualTimers();
  let writes = 0;
  const write = (): void => void writes++;
  const hooks = coming === undefined ? { write } : { write, coming: () => coming.n };
  const commit = new CommitTimer({ durability: 'sync', batchWindowMs: 50, groupCommitWaitMs: 1, ...timing }, hooks, t.timers);
  return { commit, t, writes: () => writes };
}

/** The write arranged is decided at the end of the turn: it waits groupCommitWait (3 ms), then goes. */
function waitsThenWrites({ commit, t, writes }: ReturnType<typeof timer>, writesBefore: number): void {
  t.runImmediates();
  expect(writes()).toBe(writesBefore);
  expect([...t.timeouts.values()].map((x) => x.ms)).toEqual([3]);
  expect(commit.waits).toBe(1);
  t.runTimeouts();
  expect(writes()).toBe(writesBefore + 1);
}

describe('CommitTimer', () => {
  it('in sync mode writes at the end of the turn when nothing overlapped, once however often it is asked', () => {
    const { commit, t, writes } = timer();
    commit.schedule(0, 0, 0);
    commit.schedule(0, 0, 0);
    expect(commit.armed()).toBe(true);
    expect(t.immediates).toHaveLength(1);
    expect(t.timeouts.size).toBe(0);
    t.runImmediates();
    expect(writes()).toBe(1);
    expect(commit.armed()).toBe(false);
  });

  it(`without a count of records coming, waits groupCommitWait once ${FOLLOWERS_TO_WAIT} or more arrived during the previous write`, () => {
    const { commit, t, writes } = timer({ groupCommitWaitMs: 3 });
    commit.schedule(0, 0, FOLLOWERS_TO_WAIT - 1);
    t.runImmediates();
    expect(writes()).toBe(1);
    commit.schedule(0, 0, FOLLOWERS_TO_WAIT);
    waitsThenWrites({ commit, t, writes }, 1);
  });

  it(`with a count, waits once ${FOLLOWERS_TO_WAIT} or more arrived during the previous write and one more is still coming`, () => {
    const c = timer({ groupCommitWaitMs: 3 }, { n: 1 });
    c.commit.schedule(0, 0, FOLLOWERS_TO_WAIT);
    waitsThenWrites(c, 0);
  });

  it.each([
    { when: 'nothing more is coming, however many arrived during the previous write', waitMs: 3, followers: 100, coming: 0 },
    { when: 'too few arrived during the previous write, however many are coming', waitMs: 3, followers: FOLLOWERS_TO_WAIT - 1, coming: 100 },
    { when: 'groupCommitWait is 0', waitMs: 0, followers: 100, coming: 100 },
  ])('writes at the end of the turn without waiting when $when', ({ waitMs, followers, coming }) => {
    const { commit, t, writes } = timer({ groupCommitWaitMs: waitMs }, { n: coming });
    commit.schedule(0, 0, followers);
    t.runImmediates();
    expect(writes()).toBe(1);
    expect(t.timeouts.size).toBe(0);
    expect(commit.waits).toBe(0);
  });

  it('ends the wait once nothing more is coming, writing with the records of that turn', () => {
    const coming = { n: 3 };
    const { commit, t, writes } = timer({ groupCommitWaitMs: 60_000 }, coming);
    commit.schedule(0, 0, FOLLOWERS_TO_WAIT);
    t.runImmediates();
    expect(t.timeouts.size).toBe(1);
    // A record arrives while two more are still coming: the wait goes on.
    coming.n = 2;
    commit.schedule(0, 0, 0);
    expect(t.timeouts.size).toBe(1);
    expect(t.immediates).toHaveLength(0);
    coming.n = 0;
    commit.schedule(0, 0, 0);
    expect(t.timeouts.size).toBe(0);
    expect(writes()).toBe(0);
    t.runImmediates();
    expect(writes()).toBe(1);
    expect(commit.armed()).toBe(false);
  });

  it('in batch mode writes one window after the oldest waiting record arrived, at once when that is past', () => {
    const { commit, t } = timer({ durability: 'batch', batchWindowMs: 50 });
    commit.schedule(1_000, 1_020, 0);
    expect([...t.timeouts.values()].map((x) => x.ms)).toEqual([30]);
    commit.cancel();
    commit.schedule(1_000, 1_080, 0);
    expect([...t.timeouts.values()].map((x) => x.ms)).toEqual([0]);
  });

  it('never cuts a batch window short, even with nothing more coming', () => {
    const coming = { n: 0 };
    const { commit, t, writes } = timer({ durability: 'batch', batchWindowMs: 50 }, coming);
    commit.schedule(1_000, 1_000, 0);
    commit.schedule(1_000, 1_010, 0);
    expect(t.immediates).toHaveLength(0);
    expect([...t.timeouts.values()].map((x) => x.ms)).toEqual([50]);
    t.runTimeouts();
    expect(writes()).toBe(1);
  });

  it('forgets an arranged write when cancelled, and a stale immediate does nothing', () => {
    const { commit, t, writes } = timer({ groupCommitWaitMs: 5 }, { n: 5 });
    commit.schedule(0, 0, FOLLOWERS_TO_WAIT);
    commit.cancel();
    t.runImmediates();
    expect(writes()).toBe(0);
    commit.schedule(0, 0, FOLLOWERS_TO_WAIT);
    t.runImmediates();
    expect(t.timeouts.size).toBe(1);
    commit.cancel();
    expect(t.timeouts.size).toBe(0);
    expect(commit.armed()).toBe(false);
    t.runTimeouts();
    expect(writes()).toBe(0);
  });
});
