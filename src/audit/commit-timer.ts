// When the audit sink starts its next write (one write(2) and one fdatasync for every record
// waiting). Only one write is in flight at a time (the chain is ordered), so records that
// arrive while one runs wait for the next: that much is group commit in any mode. This file
// decides how long the next write waits once it could start.
//
// `sync`: at once, at the end of the event-loop turn (setImmediate runs after the turn's I/O
// callbacks, so every record they produce shares the write). But when `followers` records
// arrived while the previous write was in flight, other calls are under way and more records
// are coming: the next write waits up to `groupCommitWait` for them. A sync costs the process
// far more CPU than a record (docs/audit.md, Durability), and under load this turns about one
// sync's duration worth of records per sync into about two; a lone caller, or calls too few to
// overlap, never wait for a timer. `batch`: up to `batchWindow` after the oldest waiting
// record arrived.
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

const GLOBAL_TIMERS: CommitTimers = {
  setImmediate: (fn) => setImmediate(fn),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class CommitTimer {
  #timing: CommitTiming;
  #write: () => void;
  #timers: CommitTimers;
  #pending: 'none' | 'immediate' | 'timer' = 'none';
  #timer: unknown;
  /** Writes that waited for followers, for stats(). */
  waits = 0;

  /** `write` starts the write; it is called once per schedule(). */
  constructor(timing: CommitTiming, write: () => void, timers: CommitTimers = GLOBAL_TIMERS) {
    this.#timing = timing;
    this.#write = write;
    this.#timers = timers;
  }

  /** True while a write is arranged and has not started. */
  armed(): boolean {
    return this.#pending !== 'none';
  }

  /**
   * Records are waiting and no write is in flight: arrange the next write, unless one is
   * arranged already. `oldestAt` and `now` are milliseconds (batch window); `followers` is how
   * many of the waiting records arrived while the previous write was in flight (0 when none was).
   */
  schedule(oldestAt: number, now: number, followers: number): void {
    if (this.#pending !== 'none') return;
    if (this.#timing.durability === 'batch') {
      this.#arm(Math.max(0, oldestAt + this.#timing.batchWindowMs - now));
      return;
    }
    if (followers >= FOLLOWERS_TO_WAIT && this.#timing.groupCommitWaitMs > 0) {
      this.waits++;
      this.#arm(this.#timing.groupCommitWaitMs);
      return;
    }
    this.#pending = 'immediate';
    this.#timers.setImmediate(this.#fire);
  }

  /** Forgets an arranged write (closing: the sink drains by itself). */
  cancel(): void {
    if (this.#pending === 'timer') this.#timers.clearTimeout(this.#timer);
    // An immediate cannot be taken back cheaply; it finds nothing to do.
    this.#pending = 'none';
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    this.#pending = 'timer';
    this.#timer = this.#timers.setTimeout(this.#fire, ms);
  }

  #fire = (): void => {
    if (this.#pending === 'none') return;
    this.#pending = 'none';
    this.#timer = undefined;
    this.#write();
  };
}
