// When the audit sink starts its next write (one write(2) and one fdatasync for every record
// waiting). Only one write is in flight at a time (the chain is ordered), so records that
// arrive while one runs wait for the next: that much is group commit in any mode. This file
// decides how long the next write waits once it could start.
//
// `sync`: at the end of the event-loop turn (setImmediate runs after the turn's I/O
// callbacks, so every record they produce shares the write). But when `followers` records
// arrived while the previous write was in flight, calls overlap and more records are likely
// coming: the next write waits up to `groupCommitWait` for them, and no longer than until the
// last of them has come. What is still coming is the sink's count of requests under way whose
// records have not reached it (jsonl-sink.ts), read at the end of the turn, once the callers
// the previous write released have been answered: with nothing coming the write goes at
// once, and a wait ends at the end of the turn in which the count reaches 0. (A database's
// commit delay, applied only while other transactions are open, is the same idea.) Without
// that count, the wait runs its full length. A sync costs the process far more CPU than a
// record (docs/audit.md, Durability), so under load the wait buys fewer syncs for at most
// `groupCommitWait` of latency; a lone caller, calls too few to overlap, or a write that
// nothing else could join, never wait. `batch`: up to `batchWindow` after the oldest waiting
// record arrived, never cut short.
//
// Timers are the caller's: `timers` defaults to the global ones (tests inject their own).
import type { Durability } from './audit-config.ts';

/** Records that must have arrived during the previous write before the next one waits. */
export const FOLLOWERS_TO_WAIT = 2;

export interface CommitTiming {
  durability: Durability;
  batchWindowMs: number;
  /** 0: never wait in sync mode. */
  groupCommitWaitMs: number;
}

export interface CommitTimers {
  setImmediate(fn: () => void): unknown;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface CommitHooks {
  /** Starts the write; called once per schedule(). */
  write(): void;
  /** Records still to come from requests under way; absent when the sink cannot know. */
  coming?(): number;
}

const GLOBAL_TIMERS: CommitTimers = {
  setImmediate: (fn) => setImmediate(fn),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** none: nothing arranged; turn: deciding at the end of the turn; now: writing at the end of
 * the turn; wait: waiting for records to come (sync); window: the batch window. */
type Pending = 'none' | 'turn' | 'now' | 'wait' | 'window';

export class CommitTimer {
  #timing: CommitTiming;
  #hooks: CommitHooks;
  #timers: CommitTimers;
  #pending: Pending = 'none';
  #timer: unknown;
  #followers = 0;
  /** Writes that waited for more records, for stats(). */
  waits = 0;

  constructor(timing: CommitTiming, hooks: CommitHooks, timers: CommitTimers = GLOBAL_TIMERS) {
    this.#timing = timing;
    this.#hooks = hooks;
    this.#timers = timers;
  }

  /** True while a write is arranged and has not started. */
  armed(): boolean {
    return this.#pending !== 'none';
  }

  /**
   * Records are waiting and no write is in flight: arrange the next write, unless one is
   * arranged already; called again for each record that arrives meanwhile. `oldestAt` and
   * `now` are milliseconds (batch window); `followers` is how many of the waiting records
   * arrived while the previous write was in flight (0 when none was).
   */
  schedule(oldestAt: number, now: number, followers: number): void {
    if (this.#pending === 'wait') {
      // The last record the wait was for has come: write with this turn's records.
      if (this.#hooks.coming?.() === 0) this.#endWait();
      return;
    }
    if (this.#pending !== 'none') return;
    if (this.#timing.durability === 'batch') {
      this.#arm('window', Math.max(0, oldestAt + this.#timing.batchWindowMs - now));
      return;
    }
    this.#followers = followers;
    this.#pending = 'turn';
    this.#timers.setImmediate(this.#endOfTurn);
  }

  /** Forgets an arranged write (closing: the sink drains by itself). */
  cancel(): void {
    if (this.#pending === 'wait' || this.#pending === 'window') this.#timers.clearTimeout(this.#timer);
    // An immediate cannot be taken back cheaply; it finds nothing to do.
    this.#pending = 'none';
    this.#timer = undefined;
  }

  #arm(pending: 'wait' | 'window', ms: number): void {
    this.#pending = pending;
    this.#timer = this.#timers.setTimeout(this.#fire, ms);
  }

  #endWait(): void {
    this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = 'now';
    this.#timers.setImmediate(this.#fire);
  }

  #endOfTurn = (): void => {
    if (this.#pending !== 'turn') return;
    if (this.#followers >= FOLLOWERS_TO_WAIT && this.#timing.groupCommitWaitMs > 0 && this.#hooks.coming?.() !== 0) {
      this.waits++;
      this.#arm('wait', this.#timing.groupCommitWaitMs);
      return;
    }
    this.#fire();
  };

  #fire = (): void => {
    if (this.#pending === 'none') return;
    this.#pending = 'none';
    this.#timer = undefined;
    this.#hooks.write();
  };
}
