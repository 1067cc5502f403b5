// How many calls one upstream runs at once, overall (upstreams[].maxConcurrent) and for one
// principal (maxConcurrentPerPrincipal), so that one caller cannot hold an upstream's whole
// connection pool while everyone else waits behind it. A call that finds no place waits in a
// FIFO queue, bounded in length (limits.maxQueuedCalls, and per principal no more than its own
// concurrency) and in time (limits.queueTimeout); past either bound it is refused at once with
// over_capacity, which the client gets as 503 with Retry-After. A place freed goes to the
// first waiter that may run: a principal at its own cap does not hold up the others.
// A call that has to wait because the upstream runs maxConcurrent calls is told to `onFull`
// (gatehouse_limit_hits_total{limit="maxConcurrent"}): waiting is that limit at work, even
// when the call gets its place in the end. Refusals are errors that name their limit.
import type { GatewayError } from '../protocol/errors.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Abortable } from '../protocol/cancellation.ts';

const NO_UNLISTEN = (): void => undefined;

export interface GateLimits {
  maxConcurrent: number;
  maxConcurrentPerPrincipal: number;
  maxQueued: number;
  queueTimeoutMs: number;
}

export type Release = () => void;
export type Entry = Result<Release, GatewayError>;

interface Waiter {
  principal: string;
  settle: (e: Entry) => void;
  timer: NodeJS.Timeout;
  unlisten: () => void;
}

/** A place frees up within a second for most calls: worth a retry. */
const RETRY_AFTER_MS = 1_000;

export class ConcurrencyGate {
  private inFlight = 0;
  private readonly running = new Map<string, number>();
  private readonly queue: Waiter[] = [];
  private readonly waiting = new Map<string, number>();

  constructor(
    private readonly upstream: string,
    private limits: GateLimits,
    private readonly onFull: () => void = () => undefined,
  ) {}

  /** A place for one call of this principal: at once when there is one (no promise on the
   * common path), after waiting in the queue, or a refusal. Call the release exactly once.
   * `cancellation` is only listened to while the call waits (a call's AbortSignal is made
   * only when something asks for it: protocol/cancellation.ts). */
  enter(principal: string, cancellation?: Abortable): Entry | Promise<Entry> {
    // Whoever waits cannot run (drain() starts everyone who can), so a call that may run now
    // overtakes nobody who could.
    if (this.mayRun(principal)) return ok(this.start(principal));
    const queued = this.waiting.get(principal) ?? 0;
    if (queued >= this.limits.maxConcurrentPerPrincipal) {
      return this.refusal('maxConcurrentPerPrincipal', `This principal already has ${this.limits.maxConcurrentPerPrincipal} calls running and as many waiting for upstream "${this.upstream}" (limits.maxConcurrentPerPrincipal)`);
    }
    if (this.queue.length >= this.limits.maxQueued) {
      return this.refusal('maxQueuedCalls', `Upstream "${this.upstream}" is at its concurrency limit with ${this.limits.maxQueued} calls waiting (limits.maxQueuedCalls)`);
    }
    if (cancellation?.aborted) return err(CANCELLED);
    if (this.inFlight >= this.limits.maxConcurrent) this.onFull();
    return new Promise<Entry>((resolve) => {
      const onAbort = (): void => this.leave(waiter, err(CANCELLED));
      const waiter: Waiter = {
        principal,
        settle: resolve,
        timer: setTimeout(() => {
          const own = (this.running.get(principal) ?? 0) >= this.limits.maxConcurrentPerPrincipal;
          const why = own ? `${this.limits.maxConcurrentPerPrincipal} calls of this principal (maxConcurrentPerPrincipal)` : `${this.limits.maxConcurrent} calls (maxConcurrent)`;
          this.leave(waiter, this.refusal('queueTimeout', `No place to call upstream "${this.upstream}" within ${this.limits.queueTimeoutMs} ms (limits.queueTimeout): it is running ${why}`));
        }, this.limits.queueTimeoutMs),
        unlisten: cancellation?.onAbort(onAbort) ?? NO_UNLISTEN,
      };
      this.queue.push(waiter);
      this.waiting.set(principal, queued + 1);
    });
  }

  /** New limits (a config reload): the calls running and waiting stay counted, so the new
   * caps hold from the first call after; a waiter keeps the deadline it was given, and one
   * that may run under the new caps starts now. */
  resize(limits: GateLimits): void {
    this.limits = limits;
    this.drain();
  }

  /** Calls running and waiting now (metrics, tests). */
  load(): { running: number; queued: number } {
    return { running: this.inFlight, queued: this.queue.length };
  }

  private mayRun(principal: string): boolean {
    return this.inFlight < this.limits.maxConcurrent && (this.running.get(principal) ?? 0) < this.limits.maxConcurrentPerPrincipal;
  }

  private start(principal: string): Release {
    this.inFlight++;
    this.running.set(principal, (this.running.get(principal) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      const n = this.running.get(principal)! - 1;
      if (n === 0) this.running.delete(principal);
      else this.running.set(principal, n);
      this.drain();
    };
  }

  /** Hands freed places to the first waiters that may run. */
  private drain(): void {
    for (let i = 0; i < this.queue.length && this.inFlight < this.limits.maxConcurrent; ) {
      const w = this.queue[i]!;
      if (!this.mayRun(w.principal)) {
        i++;
        continue;
      }
      this.leave(w, ok(this.start(w.principal)));
    }
  }

  private leave(w: Waiter, outcome: Entry): void {
    const at = this.queue.indexOf(w);
    if (at === -1) return;
    this.queue.splice(at, 1);
    const n = this.waiting.get(w.principal)! - 1;
    if (n === 0) this.waiting.delete(w.principal);
    else this.waiting.set(w.principal, n);
    clearTimeout(w.timer);
    w.unlisten();
    w.settle(outcome);
  }

  private refusal(limit: string, message: string): Entry {
    return err({ kind: 'over_capacity', limit, message, retryAfterMs: RETRY_AFTER_MS });
  }
}

const CANCELLED: GatewayError = { kind: 'internal', message: 'the call was cancelled while it waited for a place' };
