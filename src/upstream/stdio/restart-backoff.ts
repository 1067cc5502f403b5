// When a stdio child is started again after it exits (pure; the caller owns the timer and
// the clock). The delay doubles with every exit, up to maxDelayMs, and goes back to
// initialDelayMs only once a child has stayed up for maxDelayMs: a child that passes its
// handshake and dies soon after is a failing child, not a recovered one. Resetting on every
// successful handshake restarted such a child every initialDelayMs for ever.
export interface BackoffConfig {
  initialDelayMs: number;
  maxDelayMs: number;
}

export class RestartBackoff {
  private delay: number;
  /** When the current child passed its handshake; undefined while none has. */
  private upSince: number | undefined;

  constructor(
    private readonly config: BackoffConfig,
    private readonly now: () => number,
  ) {
    this.delay = config.initialDelayMs;
  }

  /** The child passed its handshake. */
  up(): void {
    this.upSince = this.now();
  }

  /** The child exited or could not start: how long to wait before the next start. */
  exited(): number {
    const stable = this.upSince !== undefined && this.now() - this.upSince >= this.config.maxDelayMs;
    this.upSince = undefined;
    if (stable) this.delay = this.config.initialDelayMs;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.config.maxDelayMs);
    return wait;
  }
}
