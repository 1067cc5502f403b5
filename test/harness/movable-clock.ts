// Time for in-process end-to-end tests that must let time pass (a token's age, an idle
// timeout, an approval's expiry) without sleeping. The gateway takes no clock of its own, so
// the global Date is replaced by one that reads the real clock plus an offset: it follows
// real time exactly, even on a loaded machine, and jumps when a test moves it. Timers stay
// real, so sockets, timeouts and the SDKs behave as ever.
// The gateway keeps the Date.now it finds when it is built: install the clock before that.
// (A Date made before the clock was installed is no instance of the replacement.)
import { afterAll, beforeAll } from 'vitest';

export interface MovableClock {
  /** Moves Date forward by `ms` at once, as if that much time had passed. */
  advance(ms: number): void;
}

const RealDate = Date;
let offset = 0;

class MovableDate extends RealDate {
  constructor(...args: ConstructorParameters<DateConstructor> | []) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...(args as ConstructorParameters<DateConstructor>));
  }

  static override now(): number {
    return RealDate.now() + offset;
  }
}

const clock: MovableClock = {
  advance: (ms) => {
    offset += ms;
  },
};

/** Installs the clock now; `restore()` gives the real Date back. */
export function installMovableClock(): MovableClock & { restore(): void } {
  offset = 0;
  globalThis.Date = MovableDate as DateConstructor;
  return {
    ...clock,
    restore: () => {
      globalThis.Date = RealDate;
      offset = 0;
    },
  };
}

/** The clock for a whole suite: installed in a beforeAll registered before the gateway's. */
export function useMovableClock(): MovableClock {
  let installed: ReturnType<typeof installMovableClock> | undefined;
  beforeAll(() => void (installed = installMovableClock()));
  afterAll(() => installed?.restore());
  return clock;
}
