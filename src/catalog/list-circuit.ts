// Remembers which upstream lists do not answer, so that one upstream that never answers
// tools/list costs one wait of listDeadline, not one per list request and per new caller.
// A list that missed the deadline is "open": the catalog answers without it (or with its last
// good copy) at once, and tries it again in the background after a delay that doubles with each
// further miss, up to a bound; the first answer closes it. A list that fails quickly (an error
// status, a refused connection, a child that is not running) opens the same way once it has
// failed `afterErrors` times in a row (listRetry.afterErrors): each failure costs no wait, but
// without the circuit every list request and every new caller's first call would ask it again.
// Pure state over an injected clock.
//
// Left to others: starting the retry fetch, logging, and /readyz (the catalog reports open()).

export interface ListRetry {
  initialDelayMs: number;
  maxDelayMs: number;
  /** Quick failures in a row that open a list, as one missed deadline does. */
  afterErrors: number;
}

/** Why a list is open: it missed listDeadline, or it failed afterErrors times in a row. */
export type OpenCause = 'deadline' | 'errors';

export interface OpenList {
  upstream: string;
  kind: string;
  /** When the list first missed its deadline in this run of misses. */
  since: number;
  /** Fetches in a row that missed the deadline or failed after it. */
  failures: number;
  /** Not tried again before this. */
  retryAt: number;
  /** A fetch is under way (the one that missed the deadline, or a retry): no other starts. */
  trying: boolean;
  cause: OpenCause;
}

export class ListCircuit {
  private readonly open = new Map<string, OpenList>();
  /** Quick failures in a row of lists that are not open; bounded by the upstreams and list kinds. */
  private readonly errors = new Map<string, number>();

  constructor(
    private readonly retry: ListRetry,
    private readonly now: () => number,
  ) {}

  /** The open state of this list, if it is open. */
  state(upstream: string, kind: string): OpenList | undefined {
    return this.open.get(`${upstream}\u0000${kind}`);
  }

  /** For an open list: whether a retry is due now (none under way, its delay over). A caller
   * that gets true starts the one retry: the list counts as being tried until its outcome. */
  claimRetry(upstream: string, kind: string): boolean {
    const s = this.state(upstream, kind);
    if (!s || s.trying || this.now() < s.retryAt) return false;
    s.trying = true;
    return true;
  }

  /** A fetch missed the deadline: the list opens, and that fetch, still under way, is its first try. */
  missed(upstream: string, kind: string): OpenList {
    const key = `${upstream}\u0000${kind}`;
    const s = this.open.get(key);
    if (s) return s;
    const t = this.now();
    const opened: OpenList = { upstream, kind, since: t, failures: 1, retryAt: t + this.retry.initialDelayMs, trying: true, cause: 'deadline' };
    this.errors.delete(key);
    this.open.set(key, opened);
    return opened;
  }

  /** A fetch failed. Of an open list: the next try waits twice as long as the last, up to the
   * bound. Of a closed one: counted, and the afterErrors-th failure in a row opens it (no fetch
   * is under way then: the first retry waits initialDelay). */
  failed(upstream: string, kind: string): void {
    const s = this.state(upstream, kind);
    if (!s) {
      const key = `${upstream}\u0000${kind}`;
      const n = (this.errors.get(key) ?? 0) + 1;
      if (n < this.retry.afterErrors) {
        this.errors.set(key, n);
        return;
      }
      this.errors.delete(key);
      const t = this.now();
      this.open.set(key, { upstream, kind, since: t, failures: n, retryAt: t + this.retry.initialDelayMs, trying: false, cause: 'errors' });
      return;
    }
    s.failures++;
    s.trying = false;
    s.retryAt = this.now() + Math.min(this.retry.maxDelayMs, this.retry.initialDelayMs * 2 ** Math.min(s.failures - 1, 30));
  }

  /** A fetch answered: the list is closed again, its run of failures over. Returns whether it was open. */
  answered(upstream: string, kind: string): boolean {
    const key = `${upstream}\u0000${kind}`;
    this.errors.delete(key);
    return this.open.delete(key);
  }

  /** Forgets an upstream's open lists: it was removed or replaced by a config reload. */
  forget(upstream: string): void {
    for (const [key, s] of this.open) if (s.upstream === upstream) this.open.delete(key);
  }

  /** Every open list, for /readyz. */
  list(): OpenList[] {
    return [...this.open.values()];
  }
}
