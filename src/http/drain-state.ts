// What the listener needs to know while the gateway drains on SIGTERM: whether it is
// draining (/readyz answers 503 so load balancers take this replica out, and responses carry
// `Connection: close` so clients reconnect elsewhere instead of reusing this connection),
// and how many requests are still in flight, so shutdown can wait for them up to a deadline.
// A request is in flight from its arrival until its response is closed (finished or cut),
// long-lived SSE responses included. The order of the shutdown itself is start-gateway's.

import type { ServerResponse } from 'node:http';

export class DrainState {
  #draining = false;
  #inFlight = 0;
  #waiters: (() => void)[] = [];

  get draining(): boolean {
    return this.#draining;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  begin(): void {
    this.#draining = true;
  }

  /** Counts `res` until it closes. */
  track(res: ServerResponse): void {
    this.#inFlight++;
    res.once('close', () => {
      this.#inFlight--;
      if (this.#inFlight === 0) for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** True once no request is in flight, false if `deadlineMs` passes first. */
  settled(deadlineMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        resolve(false);
      }, deadlineMs);
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#waiters.push(wake);
    });
  }
}
