// Time for in-process end-to-end tests that must let time pass (a token's age, an idle
// timeout, an approval's expiry) without sleeping. The gateway takes no clock of its own, so
// the global Date is replaced by vitest's fake one: it keeps following real time, and jumps
// when a test moves it. Timers stay real, so sockets, timeouts and the SDKs behave as ever.
// The gateway keeps the Date.now it finds when it is built: install the clock before that.
import { afterAll, beforeAll, vi } from 'vitest';

export interface MovableClock {
  /** Moves Date forward by `ms` at once, as if that much time had passed. */
  advance(ms: number): void;
}

const clock: MovableClock = { advance: (ms) => vi.setSystemTime(Date.now() + ms) };

/** Installs the clock now; `restore()` gives the real Date back. */
export function installMovableClock(): MovableClock & { restore(): void } {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  return { ...clock, restore: () => vi.useRealTimers() };
}

/** The clock for a whole suite: installed in a beforeAll registered before the gateway's. */
export function useMovableClock(): MovableClock {
  let installed: ReturnType<typeof installMovableClock> | undefined;
  beforeAll(() => void (installed = installMovableClock()));
  afterAll(() => installed?.restore());
  return clock;
}
