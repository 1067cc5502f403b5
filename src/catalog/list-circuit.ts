// Remembers which upstream lists do not answer, so that one upstream that never answers
// tools/list costs one wait of listDeadline, not one per list request and per new caller.
// A list that missed the deadline is "open": the catalog answers without it (or with its last
// good copy) at once, and tries it again in the background after a delay that doubles with each
// further miss, up to a bound; the first answer closes it. Pure state over an injected clock.
//
// Left to others: starting the retry fetch, logging, and /readyz (the catalog reports open()).

export interface ListRetry {
  initialDelayMs: number;
  maxDelayMs: number;
}

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
}

export class ListCircuit {
  private readonly open = new Map<string, OpenList>();

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
    const opened: OpenList = { upstream, kind, since: t, failures: 1, retryAt: t + this.retry.initialDelayMs, trying: true };
    this.open.set(key, opened);
    return opened;
  }

  /** A fetch of an open list failed: the next try waits twice as long as the last, up to the bound.
   * A failure of a list that is not open (a quick error, which cost no wait) opens nothing. */
  failed(upstream: string, kind: string): void {
    const s = this.state(upstream, kind);
    if (!s) return;
    s.failures++;
    s.trying = false;
    s.retryAt = this.now() + Math.min(this.retry.maxDelayMs, this.retry.initialDelayMs * 2 ** Math.min(s.failures - 1, 30));
  }

  /** A fetch answered: the list is closed again. Returns whether it was open. */
  answered(upstream: string, kind: string): boolean {
    return this.open.delete(`${upstream}\u0000${kind}`);
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
