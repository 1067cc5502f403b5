// A stdio upstream: a supervised child process speaking newline-delimited JSON-RPC. Its stderr
// goes to the log; it is restarted with backoff when it dies (restart-backoff.ts) and reaped when
// the gateway stops. A failed start (spawn-child.ts) shows in status() and is retried after the
// backoff; requests never start a child themselves. Era: the shared probe (era-probe.ts). Its requests to the client go
// to the one call they can belong to (tied-call.ts); a 2026-07-28 one's notifications come on listens (stdio-listens.ts).
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';
import type { StdioUpstreamConfig } from '../../config/types.ts';
import type { GatewayError } from '../../protocol/errors.ts';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../../protocol/message.ts';
import { isErrorResponse, isJsonObject } from '../../protocol/message.ts';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { shapeParams } from '../era-shape.ts';
import { probeEra } from '../era-probe.ts';
import { UpstreamBase } from '../upstream-base.ts';
import type { UpstreamRequest } from '../upstream.ts';
import type { Era } from '../../protocol/versions.ts';
import { answerIdOf } from './answer-id.ts';
import { answerServerRequest } from '../server-request-answer.ts';
import { tiedCall, type InFlight } from './tied-call.ts';
import { LineSplitter, type OverlongLine } from './line-splitter.ts';
import { RestartBackoff } from './restart-backoff.ts';
import { spawnChild } from './spawn-child.ts';
import { StdinBatch } from './stdin-batch.ts';
import { StdioListens } from './stdio-listens.ts';
import { AnswerOverBudget, AnswerTooLarge, callFailure, ProcessGone, TimeoutError } from './call-failure.ts';
import type { AnswerBudget } from '../../limits/answer-budget.ts';

interface Pending extends InFlight {
  resolve: (m: JsonRpcResponse | Error) => void;
  onNotification?: (n: JsonRpcNotification) => void;
  progressToken?: string | number;
}

/** What a request carries besides its method and params. */
type CallExtra = Pick<Pending, 'onNotification' | 'progressToken' | 'ask'> & { signal?: AbortSignal | undefined };

const PROBE_TIMEOUT_MS = 5000;
/** A stderr line is for the log: longer ones are cut to their first bytes there. */
const STDERR_LINE_BYTES = 2000;

export class StdioUpstream extends UpstreamBase<StdioUpstreamConfig> {
  private child: ChildProcess | undefined;
  private era: Era | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly progress = new Map<string, number>();
  private nextId = 1;
  private readonly backoff: RestartBackoff;
  private starting: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly stdin = new StdinBatch(
    () => this.child?.stdin ?? undefined,
    (ids) => {
      const error = new Error('the process no longer reads its stdin');
      for (const id of ids) this.pending.get(id)?.resolve(error);
    },
  );
  private readonly listens = new StdioListens((m) => this.stdin.write(m), this.logger);

  /** `now` judges how long a child stayed up (the backoff); tests pass their own clock.
   * `budget`: the memory budget of answers in flight, shared with every other upstream. */
  constructor(
    config: StdioUpstreamConfig,
    logger: Logger,
    now: () => number = Date.now,
    private readonly budget?: AnswerBudget,
  ) {
    super(config, 'stdio', logger);
    this.backoff = new RestartBackoff(config.restart, now);
  }

  protected override currentEra(): Era | undefined {
    return this.era;
  }

  /** Starts the child unless it runs, is starting, or waits out its backoff (the restart
   * timer starts it then). Never rejects: whatever goes wrong is a failed start. */
  start(): Promise<void> {
    if (this.closed || (this.child && this.era) || this.restartTimer) return this.starting ?? Promise.resolve();
    this.starting ??= this.launch()
      .catch((e: unknown) => this.launchFailed(e))
      .finally(() => {
        this.starting = undefined;
      });
    return this.starting;
  }

  pid(): number | undefined {
    return this.child?.pid;
  }

  private async launch(): Promise<void> {
    let child: ChildProcess | undefined;
    const spawned = spawnChild(this.config, (reason) => this.onExit(child, reason));
    if (!spawned.ok) return this.failed(spawned.error);
    child = spawned.value.child;
    this.child = child;
    this.era = undefined;
    // Without pipes the start failed; spawnChild reports it (onExit) within a tick.
    const piped = spawned.value.piped;
    if (!piped) return;
    this.read(piped);

    // The shared era probe (era-probe.ts); discover waits PROBE_TIMEOUT_MS at most, as a
    // legacy process may ignore an unknown method instead of answering it.
    const outcome = await probeEra<never>(async (method, params) => {
      const m = await this.call(method, params, method === 'initialize' ? this.config.timeoutMs : PROBE_TIMEOUT_MS);
      return m instanceof Error ? { kind: 'no_response', why: m.message } : { kind: 'response', message: m };
    });
    if (this.child !== child) return;
    if (outcome.kind === 'failure' || outcome.kind === 'refused') {
      this.markDown(outcome.kind === 'refused' ? outcome.reason : 'era probe failed');
      child.kill('SIGTERM');
      return;
    }
    if (outcome.kind === 'legacy') this.stdin.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    this.era = outcome.kind;
    this.setIdentity(outcome.identity);
    this.backoff.up();
    this.markUp();
    if (outcome.kind === 'modern') this.listens.start(outcome.identity.capabilities);
  }

  /** Lines are bounded on both pipes: an answer by limits.maxUpstreamAnswerBytes and, with
   * the other answers in flight, by limits.maxInflightAnswerBytes; a log line by
   * STDERR_LINE_BYTES (line-splitter.ts). */
  private read(child: ChildProcessWithoutNullStreams): void {
    const stderr = new LineSplitter(STDERR_LINE_BYTES, {
      line: (line) => this.logger.info('upstream stderr', { line }),
      overlong: (o) => this.logger.info('upstream stderr', { line: o.head, truncated: true, bytes: o.bytes }),
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk)).on('end', () => stderr.end());
    const stdout = new LineSplitter(this.config.limits.maxAnswerBytes, { line: (line) => this.onLine(line), overlong: (o) => this.onOverlong(o) }, this.budget?.meter());
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk)).on('end', () => stdout.end());
  }

  /** A bug, not a failure of the child (launch handles those): logged, and the child, if
   * any, is stopped so that its exit restarts it as usual. */
  private launchFailed(e: unknown): void {
    this.logger.error('starting the upstream failed', { error: (e as Error).message });
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    else if (!child) this.failed(`start failed: ${(e as Error).message}`);
  }

  private onExit(child: ChildProcess | undefined, reason: string): void {
    if (child === undefined || this.child !== child) return;
    this.child = undefined;
    this.era = undefined;
    // Lines meant for the dead child never reach its successor; their calls fail below.
    this.stdin.clear();
    this.listens.stop();
    for (const p of this.pending.values()) p.resolve(new ProcessGone(reason));
    this.pending.clear();
    this.progress.clear();
    this.failed(reason);
  }

  /** No child runs: down, and started again after the backoff. */
  private failed(reason: string): void {
    if (this.closed) return;
    this.markDown(reason);
    const inMs = this.backoff.exited();
    this.logger.warn('restarting upstream', { inMs, reason });
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.start().catch((e: unknown) => this.logger.error('restarting the upstream failed', { error: (e as Error).message }));
    }, inMs);
  }

  private onLine(line: string): void {
    let m: JsonRpcMessage;
    try {
      const v: unknown = JSON.parse(line);
      if (!isJsonObject(v)) return;
      m = v as unknown as JsonRpcMessage;
    } catch {
      this.logger.warn('upstream wrote a non-JSON line to stdout', { line: line.slice(0, 200) });
      return;
    }
    if ('method' in m) {
      if ('id' in m && m.id !== undefined) {
        void this.answerRequest(m as JsonRpcRequest).catch((e: unknown) => this.logger.warn('answering an upstream request failed', { error: (e as Error).message }));
        return;
      }
      this.onNotification(m as JsonRpcNotification);
      return;
    }
    if (this.listens.answered(m)) return;
    const id = typeof m.id === 'number' ? m.id : Number.NaN;
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.resolve(m);
  }

  /** A line over limits.maxUpstreamAnswerBytes, or one the shared budget had no room for: it
   * was not kept, so the call it answers fails now rather than at its timeout. Which call, its
   * id says when it can be read at either end; when it cannot, every call waiting on this
   * process could be the one, and all fail. (The budget's refusals are counted from the
   * over_capacity error each failed call gets, as for HTTP upstreams.) */
  private onOverlong(o: OverlongLine): void {
    const limit = o.overBudget ? this.budget!.maxBytes : this.config.limits.maxAnswerBytes;
    if (!o.overBudget) this.emit({ type: 'limit_hit', limit: 'maxUpstreamAnswerBytes' });
    const id = answerIdOf(o);
    const waiting = id !== undefined && this.pending.has(id) ? [id] : [...this.pending.keys()];
    const what = o.overBudget ? 'upstream answer over the memory budget, dropped' : 'upstream answer too large, dropped';
    this.logger.warn(what, { limit, bytes: o.bytes, start: o.head.slice(0, 200), failedCalls: waiting.length });
    const error = o.overBudget ? new AnswerOverBudget(limit) : new AnswerTooLarge(limit);
    for (const pendingId of waiting) this.pending.get(pendingId)?.resolve(error);
  }

  private onNotification(n: JsonRpcNotification): void {
    if (this.listens.consumed(n) || this.handleNotification(n)) return;
    const token = n.params?.progressToken;
    if (n.method === 'notifications/progress' && typeof token === 'string') {
      const p = this.pending.get(this.progress.get(token) ?? -1);
      if (p?.onNotification) p.onNotification({ ...n, params: { ...n.params, progressToken: p.progressToken ?? token } });
      return;
    }
    if (n.method === 'notifications/message') this.logger.info('upstream log', { data: n.params?.data ?? null });
  }

  /** A 2025-11-25 process's request: relayed to the client of the one call it can belong to. */
  private async answerRequest(r: JsonRpcRequest): Promise<void> {
    const tie = this.era === 'legacy' ? tiedCall(this.pending.values()) : { why: 'a 2026-07-28 server asks with input_required' };
    const reply = await answerServerRequest(r, 'ask' in tie ? tie.ask : undefined, this.config.timeoutMs, 'why' in tie ? tie.why : undefined);
    this.stdin.write({ jsonrpc: '2.0', ...reply });
  }

  private call(method: string, params: JsonObject, timeoutMs: number, extra: CallExtra = {}): Promise<JsonRpcResponse | Error> {
    const { onNotification, progressToken, signal, ask } = extra;
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(new TimeoutError(timeoutMs)), timeoutMs);
      const onAbort = (): void => finish(new DOMException('client disconnected', 'AbortError'));
      const finish = (m: JsonRpcResponse | Error): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.pending.delete(id) && m instanceof Error) {
          // The stdio transport cancels explicitly (MCP 2026-07-28, basic/patterns/cancellation).
          this.stdin.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: m.message } });
        }
        if (progressToken !== undefined) this.progress.delete(`gh-${id}`);
        resolve(m);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { method, resolve: finish, onNotification, progressToken, ...(ask ? { ask } : {}) });
      let outParams = params;
      if (progressToken !== undefined && isJsonObject(params._meta)) {
        // Tokens from different clients may collide on one process: use our own, map back.
        this.progress.set(`gh-${id}`, id);
        outParams = { ...params, _meta: { ...params._meta, progressToken: `gh-${id}` } };
      }
      if (!this.stdin.write({ jsonrpc: '2.0', id, method, params: outParams })) finish(new Error('process is not running'));
    });
  }

  async request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    if (!this.era) await this.start();
    const era = this.era;
    // Clients hear that it is not running; why (the command, the spawn error) is for the log
    // and /readyz (lastError), as for HTTP upstreams (failure-text.ts).
    if (!era) return err({ kind: 'upstream_unavailable', upstream: this.name, reason: 'not running' });
    if (era === 'modern' && this.listens.watches(req.method)) return this.listens.watch(req.method, req.params);
    const params = shapeParams(req, era);
    const token = isJsonObject(params._meta) ? params._meta.progressToken : undefined;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    const m = await this.call(req.method, params, this.config.timeoutMs, { onNotification: req.onNotification, progressToken, signal: req.signal ?? req.cancellation?.signal, ask: req.ask });
    if (m instanceof Error) return err(callFailure(m, this.name));
    return isErrorResponse(m) ? err({ kind: 'upstream_error', upstream: this.name, error: m.error }) : ok(m.result);
  }

  /** 2026-07-28 with the tasks extension: the task ids whose status notifications to ask for. */
  followTasks = (taskIds: readonly string[]): void => this.listens.followTasks(taskIds);

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    this.listens.stop();
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    // Lines of this turn (notifications/cancelled of calls cut short by the shutdown) go first.
    this.stdin.flush();
    child.stdin?.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  }

  /** Synchronous last resort at process exit: no child outlives the gateway. */
  killNow(): void {
    this.closed = true;
    this.child?.kill('SIGKILL');
  }
}
