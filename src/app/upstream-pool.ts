// The upstream connections of a running gateway across config reloads. A reload keeps the
// connection (or stdio child) of every upstream whose settings did not change, makes a new one
// for each added or changed upstream, and retires the connections of removed and changed
// ones: the calls already in flight on a retired connection finish on it, then it closes (a
// stdio child is stopped), or it is closed when the deadline passes with calls still running.
import type { UpstreamConfig } from '../config/types.ts';
import type { UpstreamChanges } from '../config/live-changes.ts';
import type { Logger } from '../telemetry/logger.ts';
import { StdioUpstream } from '../upstream/stdio/stdio-upstream.ts';
import { TrackedUpstream } from '../upstream/tracked-upstream.ts';
import type { Upstream } from '../upstream/upstream.ts';

export interface PoolDeps {
  make(config: UpstreamConfig): Upstream;
  logger: Logger;
  /** Told of every connection made (audit and metrics listeners), before it starts. */
  onMade(u: TrackedUpstream): void;
}

/** What a reload would do to the pool, made but not yet in service (commit or discard it). */
export interface PoolPlan {
  upstreams: readonly TrackedUpstream[];
  made: readonly TrackedUpstream[];
  retired: readonly TrackedUpstream[];
}

export class UpstreamPool {
  private live: readonly TrackedUpstream[] = [];
  private readonly retiring = new Set<TrackedUpstream>();

  constructor(private readonly deps: PoolDeps) {}

  /** The connections serving now, in config order. */
  current(): readonly TrackedUpstream[] {
    return this.live;
  }

  /** The boot set. */
  open(configs: readonly UpstreamConfig[]): readonly TrackedUpstream[] {
    this.live = configs.map((c) => this.make(c));
    return this.live;
  }

  /** New connections for the added and changed upstreams; the kept ones as they are. */
  plan(configs: readonly UpstreamConfig[], changes: UpstreamChanges): PoolPlan {
    const byName = new Map(this.live.map((u) => [u.name, u]));
    const kept = new Set(changes.kept);
    const made: TrackedUpstream[] = [];
    const upstreams = configs.map((c) => {
      const old = byName.get(c.name);
      if (old !== undefined && kept.has(c.name)) return old;
      const u = new TrackedUpstream(this.deps.make(c));
      made.push(u);
      return u;
    });
    const retired = this.live.filter((u) => !kept.has(u.name));
    return { upstreams, made, retired };
  }

  /** Puts a plan in service: the made connections are announced and started. */
  commit(plan: PoolPlan): void {
    this.live = plan.upstreams;
    for (const u of plan.made) this.deps.onMade(u);
    // start() never rejects by contract (failures show in status()); a rejection is a bug, logged.
    for (const u of plan.made) void u.start().catch((e: unknown) => this.deps.logger.error('upstream start failed', { upstream: u.name, error: (e as Error).message }));
  }

  /** A plan not taken: its connections were never started, and are closed. */
  async discard(plan: PoolPlan): Promise<void> {
    await Promise.all(plan.made.map((u) => u.close().catch(() => undefined)));
  }

  /** Closes each retired connection once its last call in flight has answered, or at the deadline. */
  async retire(list: readonly TrackedUpstream[], deadlineMs: number): Promise<void> {
    await Promise.all(list.map((u) => this.retireOne(u, deadlineMs)));
  }

  /** Synchronous last resort at process exit: kills every stdio child, retiring ones included. */
  killChildren(): void {
    for (const u of [...this.live, ...this.retiring]) if (u.inner instanceof StdioUpstream) u.inner.killNow();
  }

  /** Closes everything (shutdown); a retiring connection may be closing already. */
  async closeAll(): Promise<void> {
    await Promise.all(
      [...this.live, ...this.retiring].map((u) => u.close().catch((e: unknown) => this.deps.logger.warn('upstream did not close cleanly', { upstream: u.name, error: (e as Error).message }))),
    );
  }

  private make(c: UpstreamConfig): TrackedUpstream {
    const u = new TrackedUpstream(this.deps.make(c));
    this.deps.onMade(u);
    return u;
  }

  private async retireOne(u: TrackedUpstream, deadlineMs: number): Promise<void> {
    this.retiring.add(u);
    const { logger } = this.deps;
    logger.info('upstream connection retiring: its calls in flight finish first', { upstream: u.name, inFlight: u.inFlight, deadlineMs });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((r) => {
      timer = setTimeout(() => r(false), deadlineMs);
    });
    const idle = await Promise.race([u.idle().then(() => true), deadline]);
    clearTimeout(timer);
    if (!idle) logger.warn('retired upstream connection still had calls in flight at the deadline; closing it', { upstream: u.name, inFlight: u.inFlight, deadlineMs });
    try {
      await u.close();
      logger.info('retired upstream connection closed', { upstream: u.name });
    } catch (e) {
      logger.error('retired upstream connection did not close cleanly', { upstream: u.name, error: (e as Error).message });
    } finally {
      this.retiring.delete(u);
    }
  }
}
