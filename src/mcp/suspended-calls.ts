// Upstream calls suspended for a 2026-07-28 client's input (README, Protocol eras: bridging).
// A 2025-11-25 upstream asks for sampling, elicitation or roots on the stream of a call and
// waits on that open call; a 2026-07-28 client cannot be asked on a stream (MCP 2026-07-28,
// basic/patterns/mrtr): it is answered `input_required`, and its retry carries the answers.
// Meanwhile the upstream call stays open here: the one per-request state the gateway holds.
// Bounds: a call waits for its retry at most limits.inputTimeout (then it is cancelled
// upstream, and its state no longer opens); at most limits.maxSuspendedCalls wait at once,
// maxSuspendedCallsPerPrincipal per principal (past either, the upstream's request is
// answered with an error at once). Sealing the state, what the client sees: suspension-state.ts.
import { randomBytes } from 'node:crypto';
import type { StateSealer } from '../approvals/user-approval.ts';
import type { LimitsConfig } from '../config/limits-config.ts';
import type { Reply } from '../protocol/call.ts';
import { declaresForRequest, type AskFailure, type ClientAsk, type ClientAskMethod } from '../protocol/client-ask.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcNotification } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { invalidState, openRound, sealRound, type AskedInput, type SuspensionBinding } from './suspension-state.ts';

export type SuspensionLimit = 'inputTimeout' | 'maxSuspendedCalls' | 'maxSuspendedCallsPerPrincipal';
/** Why a suspended call was cancelled upstream (the audit event's `reason`). */
export type CancelReason = 'inputTimeout' | 'client_closed' | 'shutdown';
const CANCEL_WORDS: Readonly<Record<CancelReason, string>> = { inputTimeout: 'no retry with the input came within limits.inputTimeout', client_closed: 'the client closed its request', shutdown: 'the gateway is shutting down' };

/** The three limits, read when used (a config reload may change them). */
export interface SuspensionBounds {
  timeoutMs: number;
  maxCalls: number;
  maxPerPrincipal: number;
}

export interface SuspendedCallsOptions {
  sealer: StateSealer;
  bounds: () => SuspensionBounds;
  now: () => number;
  onLimit?: (limit: SuspensionLimit) => void;
  /** Told of each call cancelled upstream while it waited for a client's input (audit). */
  onCancelled?: (binding: SuspensionBinding, reason: CancelReason, rounds: number) => void;
  /** This process's name in the states it seals; random by default. */
  replica?: string;
}

/** The client request that is waiting on the call right now (the first one, then each retry). */
export interface Attached {
  signal: AbortSignal;
  notify: (n: JsonRpcNotification) => void;
  caps: JsonObject;
}

/** What the waiting client gets: the call's reply, or the questions to put to it. */
export type Step = { kind: 'done'; reply: Reply } | { kind: 'ask'; asked: AskedInput[]; requestState: string };

/** Runs the upstream call with the suspension's own signal, notifications and ask. */
export type UpstreamRun = (signal: AbortSignal, notify: (n: JsonRpcNotification) => void, ask: ClientAsk) => Promise<Reply>;

interface Question extends AskedInput {
  asked: boolean;
  settle(r: Result<JsonObject, AskFailure>): void;
}

const unanswered = (message: string): Result<JsonObject, AskFailure> => err({ kind: 'unanswered', message });

/** Made once at start; `limits` gives the limits in force (after a config reload, the new ones). */
export function createSuspendedCalls(limits: () => LimitsConfig, sealer: StateSealer, onLimit: (limit: SuspensionLimit) => void, onCancelled?: SuspendedCallsOptions['onCancelled']): SuspendedCalls {
  const bounds = (): SuspensionBounds => {
    const l = limits();
    return { timeoutMs: l.inputTimeoutMs, maxCalls: l.maxSuspendedCalls, maxPerPrincipal: l.maxSuspendedCallsPerPrincipal };
  };
  return new SuspendedCalls({ sealer, bounds, now: Date.now, onLimit, ...(onCancelled ? { onCancelled } : {}) });
}

export class SuspendedCalls {
  readonly replica: string;
  private readonly held = new Map<string, SuspendedCall>();
  private readonly perOwner = new Map<string, number>();

  constructor(readonly opts: SuspendedCallsOptions) {
    this.replica = opts.replica ?? randomBytes(6).toString('base64url');
  }

  /** Starts an upstream call that may be suspended; `next()` says what the first request gets. */
  start(binding: SuspensionBinding, attached: Attached, run: UpstreamRun): SuspendedCall {
    return new SuspendedCall(this, binding, attached, run);
  }

  /** The call a retry's requestState continues, taken for this retry (a second use fails). */
  resume(token: string, binding: SuspensionBinding): Result<SuspendedCall, GatewayError> {
    const opened = openRound(this.opts.sealer, token, binding, this.replica, this.opts.now());
    if (!opened.ok) return opened;
    const sc = this.held.get(opened.value.handle);
    if (!sc) return err(invalidState('the upstream call it continues is no longer waiting (it ended, was cancelled, or this gateway restarted); call again without requestState'));
    if (!sc.take(opened.value.round)) return err(invalidState('it was already used; each input_required result is answered once'));
    return ok(sc);
  }

  size(): number {
    return this.held.size;
  }

  /** Gateway shutdown: every suspended call is cancelled upstream. */
  closeAll(): void {
    for (const sc of [...this.held.values()]) sc.cancel('shutdown');
  }

  /** @internal A call asks for the first time: it is held, within both caps. */
  hold(sc: SuspendedCall): boolean {
    const owner = sc.binding.owner;
    const mine = this.perOwner.get(owner) ?? 0;
    const { maxCalls, maxPerPrincipal } = this.opts.bounds();
    const limit: SuspensionLimit | undefined = this.held.size >= maxCalls ? 'maxSuspendedCalls' : mine >= maxPerPrincipal ? 'maxSuspendedCallsPerPrincipal' : undefined;
    if (limit) {
      this.opts.onLimit?.(limit);
      return false;
    }
    // Made only now: most calls never ask, and cost no random bytes.
    sc.handle = randomBytes(16).toString('base64url');
    this.held.set(sc.handle, sc);
    this.perOwner.set(owner, mine + 1);
    return true;
  }

  /** @internal */
  release(sc: SuspendedCall): void {
    if (!this.held.delete(sc.handle)) return;
    const left = (this.perOwner.get(sc.binding.owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(sc.binding.owner, left);
    else this.perOwner.delete(sc.binding.owner);
  }

  /** @internal */
  seal(sc: SuspendedCall): string {
    return sealRound(this.opts.sealer, sc.binding, { handle: sc.handle, round: sc.round, replica: this.replica, expiresAt: this.opts.now() + this.opts.bounds().timeoutMs });
  }
}

/** One upstream call and the questions it has put to the client. */
export class SuspendedCall {
  /** Set when the call is first held (SuspendedCalls.hold). */
  handle = '';
  /** Rounds of questions handed to the client so far; a retry must answer the latest. */
  round = 0;
  private readonly controller = new AbortController();
  private readonly questions: Question[] = [];
  private attached: Attached;
  private waiter: ((s: Step) => void) | undefined;
  private unhook: (() => void) | undefined;
  /** A retry took the current round and has not been given its step yet. */
  private taken = false;
  private flushQueued = false;
  private deadline: NodeJS.Timeout | undefined;
  private holding = false;
  private keys = 0;
  /** Takes no more questions (finished or cancelled); `outcome` is the reply once known. */
  private ended = false;
  private outcome: Reply | undefined;

  constructor(
    private readonly calls: SuspendedCalls,
    readonly binding: SuspensionBinding,
    attached: Attached,
    run: UpstreamRun,
  ) {
    this.attached = attached;
    run(this.controller.signal, (n) => this.attached.notify(n), this.ask).then(
      (reply) => this.finish(reply),
      (e: unknown) => this.finish(err({ kind: 'internal', message: `the upstream call failed: ${(e as Error).message}` })),
    );
  }

  /** @internal A retry claims round `round`: only the latest, and only once. */
  take(round: number): boolean {
    if (round !== this.round || this.taken || this.waiter) return false;
    this.taken = true;
    return true;
  }

  /** The retry's answers go upstream as the responses to the upstream's requests; a question
   * left unanswered is asked again (mrtr, server rule 5). Checked whole before anything is
   * sent, so a malformed retry loses nothing: the same state may be sent again. */
  answer(responses: JsonObject | undefined): Result<void, GatewayError> {
    for (const q of this.questions) {
      const v = responses?.[q.key];
      if (q.asked && v !== undefined && !isJsonObject(v)) {
        this.taken = false;
        return err({ kind: 'invalid_params', message: `inputResponses["${q.key}"] must be an object (the ${q.method} result)` });
      }
    }
    for (const q of [...this.questions]) {
      const v = responses?.[q.key];
      if (!q.asked) continue;
      if (isJsonObject(v)) {
        this.questions.splice(this.questions.indexOf(q), 1);
        q.settle(ok(v));
      } else q.asked = false;
    }
    return ok(undefined);
  }

  /** What the request now waiting on the call gets: the reply, or the next questions. */
  next(attached: Attached): Promise<Step> {
    this.attached = attached;
    clearTimeout(this.deadline);
    this.deadline = undefined;
    if (this.outcome !== undefined || this.ended) return Promise.resolve(this.done());
    return new Promise<Step>((resolve) => {
      this.waiter = resolve;
      const onAbort = (): void => this.cancel('client_closed');
      attached.signal.addEventListener('abort', onAbort, { once: true });
      this.unhook = () => attached.signal.removeEventListener('abort', onAbort);
      if (attached.signal.aborted) return onAbort();
      if (this.questions.some((q) => !q.asked)) this.queueFlush();
    });
  }

  /** Ends the call: aborted upstream (a 2025-11-25 upstream is sent notifications/cancelled),
   * every question unanswered. */
  cancel(why: CancelReason): void {
    const reason = CANCEL_WORDS[why];
    if (!this.ended) {
      this.ended = true;
      this.calls.opts.onCancelled?.(this.binding, why, this.round);
      this.controller.abort(new DOMException(reason, 'AbortError'));
      for (const q of this.questions.splice(0)) q.settle(unanswered(`Gatehouse cancelled the call: ${reason}`));
    }
    this.outcome ??= err({ kind: 'upstream_unavailable', upstream: this.binding.upstream, reason: `the call was cancelled: ${reason}` });
    this.deliver(this.done());
  }

  /** The upstream's request during the call (server-request-answer.ts calls it). */
  private readonly ask: ClientAsk = (method: ClientAskMethod, params: JsonObject) => {
    if (this.ended) return Promise.resolve(unanswered('the call already ended'));
    if (!declaresForRequest(method, params, this.attached.caps)) {
      return Promise.resolve(err({ kind: 'undeclared', message: `the 2026-07-28 client did not declare the capability ${method} needs on this request` }));
    }
    if (!this.holding) {
      if (!this.calls.hold(this)) return Promise.resolve(unanswered('too many calls are waiting for their clients\' input (limits.maxSuspendedCalls, limits.maxSuspendedCallsPerPrincipal)'));
      this.holding = true;
    }
    return new Promise((settle) => {
      this.questions.push({ key: `upstream-${++this.keys}`, method, params, asked: false, settle });
      if (this.waiter) this.queueFlush();
    });
  };

  /** Questions that arrive together (one SSE chunk, several parallel requests) go out in one
   * input_required: the client is answered after the events already read are handled. */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  private flush(): void {
    if (!this.waiter || this.ended) return;
    const asked = this.questions.filter((q) => !q.asked);
    if (asked.length === 0) return;
    for (const q of asked) q.asked = true;
    this.round++;
    this.taken = false;
    this.deadline = setTimeout(() => this.expire(), this.calls.opts.bounds().timeoutMs);
    this.deadline.unref();
    this.deliver({ kind: 'ask', asked: asked.map(({ key, method, params }) => ({ key, method, params })), requestState: this.calls.seal(this) });
  }

  private expire(): void {
    this.deadline = undefined;
    if (!this.ended) this.calls.opts.onLimit?.('inputTimeout');
    this.cancel('inputTimeout');
  }

  private finish(reply: Reply): void {
    this.ended = true;
    this.outcome ??= reply;
    for (const q of this.questions.splice(0)) q.settle(unanswered('the upstream call ended'));
    // Waiting for a retry: the reply is kept for it until the deadline.
    if (this.waiter) this.deliver(this.done());
  }

  private done(): Step {
    clearTimeout(this.deadline);
    this.deadline = undefined;
    this.calls.release(this);
    return { kind: 'done', reply: this.outcome ?? err({ kind: 'internal', message: 'the suspended call ended without a reply' }) };
  }

  private deliver(step: Step): void {
    const w = this.waiter;
    this.waiter = undefined;
    this.unhook?.();
    this.unhook = undefined;
    w?.(step);
  }
}
