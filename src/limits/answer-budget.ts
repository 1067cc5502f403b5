// One budget for the upstream answers the gateway holds in memory while it reads them, across
// every call in flight (limits.maxInflightAnswerBytes). A single answer is capped on its own;
// this caps the sum, so that a few large answers at once cannot take the process's memory. An
// answer whose next chunk does not fit fails at once (its call gets 503 with Retry-After)
// and what it held goes back; the others go on.

/** Answers in flight finish within moments: a short wait before retrying is worth it. */
export const ANSWER_BUDGET_RETRY_MS = 1_000;

/** What one answer holds of the budget. */
export interface AnswerMeter {
  /** Reserves `n` more bytes for this answer, or says no when they do not fit. */
  charge(n: number): boolean;
  /** Gives back everything this answer holds (it was handed on, or failed). */
  release(): void;
}

export class AnswerBudget {
  private held = 0;

  constructor(private max: number) {}

  /** The budget now (it may change with a config reload). */
  get maxBytes(): number {
    return this.max;
  }

  /** A new budget (a config reload): bytes already held stay charged. */
  resize(maxBytes: number): void {
    this.max = maxBytes;
  }

  /** Reserves `n` bytes, or says no when they do not fit. */
  take(n: number): boolean {
    if (this.held + n > this.max) return false;
    this.held += n;
    return true;
  }

  release(n: number): void {
    this.held = Math.max(0, this.held - n);
  }

  /** A meter for one answer. */
  meter(): AnswerMeter {
    let held = 0;
    return {
      charge: (n) => {
        if (!this.take(n)) return false;
        held += n;
        return true;
      },
      release: () => {
        this.release(held);
        held = 0;
      },
    };
  }

  /** Bytes held now (metrics). */
  bytes(): number {
    return this.held;
  }
}
