// One timer for many callbacks that all wait the same time (a call's answer is primed as a
// stream only if it has not come within PRIME_DELAY_MS, respond.ts). Nearly every wait is
// cancelled well before its end, so a timer per wait was a Timeout made, linked into Node's
// timer list and unlinked again for every call; here a wait is one small object in a queue.
// The waits end in the order they began (the delay is fixed), so the queue is FIFO and one
// timer, set for the oldest wait still in it, serves them all. A cancelled wait stays queued
// until its time, holding nothing but its own time: its callback is dropped at once.

/** A wait of a delay line; `cancel` it to keep its callback from running. */
export interface DelayedCall {
  readonly at: number;
  fn: (() => void) | undefined;
}

/** Queue positions to drop at once when the front of the queue is compacted. */
const COMPACT_AFTER = 1024;

export class DelayLine {
  readonly #delayMs: number;
  readonly #now: () => number;
  #queue: DelayedCall[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(delayMs: number, now: () => number = () => performance.now()) {
    this.#delayMs = delayMs;
    this.#now = now;
  }

  /** Runs `fn` once the delay has passed, unless the returned wait is cancelled first. */
  add(fn: () => void): DelayedCall {
    const call: DelayedCall = { at: this.#now() + this.#delayMs, fn };
    this.#queue.push(call);
    if (this.#timer === undefined) this.#arm(this.#delayMs);
    return call;
  }

  static cancel(call: DelayedCall): void {
    call.fn = undefined;
  }

  /** Waits queued, cancelled ones included (for tests). */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  #arm(ms: number): void {
    // Not holding the process open: a wait that matters belongs to a request still open.
    this.#timer = setTimeout(this.#fire, Math.max(1, Math.ceil(ms))).unref();
  }

  #fire = (): void => {
    // Stays set while the calls run: a wait one of them adds is armed for below, not twice.
    const queue = this.#queue;
    try {
      // Node may run a timer up to a millisecond before its time as this clock reads it.
      const now = this.#now() + 1;
      while (this.#head < queue.length && queue[this.#head]!.at <= now) {
        const call = queue[this.#head++]!;
        const fn = call.fn;
        call.fn = undefined;
        fn?.();
      }
    } finally {
      // Also after a call threw (which goes on to the process, as a timer's would): the waits
      // behind it still end.
      this.#timer = undefined;
      this.#next();
    }
  };

  #next(): void {
    const queue = this.#queue;
    if (this.#head === queue.length) {
      this.#queue = [];
      this.#head = 0;
      return;
    }
    if (this.#head >= COMPACT_AFTER) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
    this.#arm(this.#queue[this.#head]!.at - this.#now());
  }
}
