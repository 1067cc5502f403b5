// An upstream that knows how many of its requests are in flight, so that a config reload can
// retire it gently: calls already sent finish on it, and it closes once the last one has
// answered (or a deadline passes), while new calls go to its replacement. Everything else is
// the wrapped upstream's own.
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import type { Result } from '../protocol/result.ts';
import type { Era } from '../protocol/versions.ts';
import type { Upstream, UpstreamEvent, UpstreamIdentity, UpstreamRequest, UpstreamStatus } from './upstream.ts';

export class TrackedUpstream implements Upstream {
  private running = 0;
  private waiters: (() => void)[] = [];

  /** Only where the wrapped upstream can ask for task status (HTTP). */
  readonly followTasks?: (taskIds: readonly string[], authContext: string) => void;

  constructor(readonly inner: Upstream) {
    if (inner.followTasks) this.followTasks = (taskIds, authContext) => inner.followTasks?.(taskIds, authContext);
  }

  get name(): string {
    return this.inner.name;
  }

  get config(): Upstream['config'] {
    return this.inner.config;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.running;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    this.running++;
    return this.inner.request(req).then(
      (r) => {
        this.settled();
        return r;
      },
      (e: unknown) => {
        this.settled();
        throw e;
      },
    );
  }

  /** Resolves once no request is in flight (at once when none is). */
  idle(): Promise<void> {
    return this.running === 0 ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }

  status(): UpstreamStatus {
    return this.inner.status();
  }

  knownEra(): Era | undefined {
    return this.inner.knownEra ? this.inner.knownEra() : this.inner.status().era;
  }

  identity(): UpstreamIdentity | undefined {
    return this.inner.identity();
  }

  onEvent(listener: (ev: UpstreamEvent) => void): void {
    this.inner.onEvent(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private settled(): void {
    if (--this.running > 0) return;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }
}
