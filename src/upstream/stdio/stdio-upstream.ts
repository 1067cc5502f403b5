// A stdio upstream: a supervised child process speaking newline-delimited JSON-RPC
// (stdio transport). Its stderr goes to the gateway's logs; it is restarted with
// exponential backoff when it dies and reaped when the gateway stops. Era: the shared probe
// (era-probe.ts); a discover that times out counts as no answer, so `initialize` follows.
import { spawn, type ChildProcess } from 'node:child_process';
import type { StdioUpstreamConfig } from '../../config/types.ts';
import type { GatewayError } from '../../protocol/errors.ts';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification, JsonRpcResponse } from '../../protocol/message.ts';
import { isErrorResponse, isJsonObject } from '../../protocol/message.ts';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { shapeParams } from '../era-shape.ts';
import { probeEra } from '../era-probe.ts';
import { UpstreamBase } from '../upstream-base.ts';
import type { UpstreamRequest } from '../upstream.ts';
import type { Era } from '../../protocol/versions.ts';
import { LineSplitter, type OverlongLine } from './line-splitter.ts';

interface Pending {
  resolve: (m: JsonRpcResponse | Error) => void;
  onNotification?: (n: JsonRpcNotification) => void;
  progressToken?: string | number;
}

/** Environment a child inherits from the gateway; configured `env` adds to it. The gateway's
 * own secrets stay out of children unless a config names them. */
const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'NODE_PATH', 'SYSTEMROOT'];
const PROBE_TIMEOUT_MS = 5000;
/** A stderr line is for the log: longer ones are cut to their first bytes there. */
const STDERR_LINE_BYTES = 2000;
/** Where an overlong answer says whose it is: at its start (`{"jsonrpc":"2.0","id":7,…`, as
 * most SDKs write it) or at its end (`…,"jsonrpc":"2.0","id":7}`, as SDK 1.x writes it). */
const ID_AT_START = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d+)\s*[,}]/;
const ID_AT_END = /[{,]\s*"id"\s*:\s*(\d+)\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

export class StdioUpstream extends UpstreamBase<StdioUpstreamConfig> {
  private child: ChildProcess | undefined;
  private era: Era | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly progress = new Map<string, number>();
  private nextId = 1;
  private delay: number;
  private starting: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(config: StdioUpstreamConfig, logger: Logger) {
    super(config, 'stdio', logger);
    this.delay = config.restart.initialDelayMs;
  }

  protected override currentEra(): Era | undefined {
    return this.era;
  }

  start(): Promise<void> {
    // A start on demand (a request during the backoff) supersedes the pending restart: a
    // second launch would replace this.child and orphan the first, still-running process.
    clearTimeout(this.restartTimer);
    if (this.closed || (this.child && this.era)) return Promise.resolve();
    this.starting ??= this.launch().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  pid(): number | undefined {
    return this.child?.pid;
  }

  private async launch(): Promise<void> {
    const env: Record<string, string> = {};
    for (const k of INHERITED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k] as string;
    Object.assign(env, this.config.env);
    const child = spawn(this.config.command, [...this.config.args], { cwd: this.config.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.era = undefined;
    child.on('error', (e) => this.onExit(child, `failed to start "${this.config.command}": ${e.message}`));
    child.on('exit', (code, signal) => this.onExit(child, `process exited (${signal ?? `code ${code}`})`));
    child.stdin?.on('error', () => undefined);
    // Lines are bounded on both pipes: an answer by limits.maxUpstreamAnswerBytes, a log line by
    // STDERR_LINE_BYTES (line-splitter.ts).
    const stderr = new LineSplitter(STDERR_LINE_BYTES, {
      line: (line) => this.logger.info('upstream stderr', { line }),
      overlong: (o) => this.logger.info('upstream stderr', { line: o.head, truncated: true, bytes: o.bytes }),
    });
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk)).on('end', () => stderr.end());
    const stdout = new LineSplitter(this.config.limits.maxAnswerBytes, { line: (line) => this.onLine(line), overlong: (o) => this.onOverlong(o) });
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk)).on('end', () => stdout.end());

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
    if (outcome.kind === 'legacy') this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    this.era = outcome.kind;
    this.setIdentity(outcome.identity);
    this.delay = this.config.restart.initialDelayMs;
    this.markUp();
  }

  private onExit(child: ChildProcess, reason: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.era = undefined;
    // Lines meant for the dead child never reach its successor; their calls fail below.
    this.outbox = [];
    for (const p of this.pending.values()) p.resolve(new ProcessGone(reason));
    this.pending.clear();
    this.progress.clear();
    if (this.closed) return;
    this.markDown(reason);
    this.logger.warn('restarting upstream', { inMs: this.delay });
    this.restartTimer = setTimeout(() => void this.start(), this.delay);
    this.delay = Math.min(this.delay * 2, this.config.restart.maxDelayMs);
  }

  /** Lines written in this turn of the event loop: one pipe write for all of them. */
  private outbox: string[] = [];

  private write(m: JsonObject): boolean {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable) return false;
    if (this.outbox.length === 0) setImmediate(() => this.flush());
    this.outbox.push(`${JSON.stringify(m)}\n`);
    return true;
  }

  private flush(): void {
    const lines = this.outbox;
    if (lines.length === 0) return;
    this.outbox = [];
    const stdin = this.child?.stdin;
    if (stdin?.writable) {
      stdin.write(lines.length === 1 ? lines[0]! : lines.join(''));
      // A write that fails at once (EPIPE: the process closed its stdin) leaves the stream
      // unwritable before write() returns.
      if (stdin.writable) return;
    }
    this.dropped(lines);
  }

  /** Lines that never reached the process: their calls fail now, not at their timeout. */
  private dropped(lines: readonly string[]): void {
    const error = new Error('the process no longer reads its stdin');
    for (const line of lines) {
      const m = JSON.parse(line) as { id?: unknown; method?: unknown };
      // Our own requests only: a reply to the process's request carries the process's id.
      if (typeof m.id === 'number' && typeof m.method === 'string') this.pending.get(m.id)?.resolve(error);
    }
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
        const reply: JsonObject = m.method === 'ping' ? { result: {} } : { error: { code: -32601, message: `Gatehouse does not relay ${m.method}` } };
        this.write({ jsonrpc: '2.0', id: m.id, ...reply });
        return;
      }
      this.onNotification(m as JsonRpcNotification);
      return;
    }
    const id = typeof m.id === 'number' ? m.id : Number.NaN;
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.resolve(m);
  }

  /** A line over limits.maxUpstreamAnswerBytes: it was not kept, so the call it answers fails
   * now rather than at its timeout. Which call, its id says when it can be read at either
   * end; when it cannot, every call waiting on this process could be the one, and all fail. */
  private onOverlong(o: OverlongLine): void {
    const limit = this.config.limits.maxAnswerBytes;
    this.emit({ type: 'limit_hit', limit: 'maxUpstreamAnswerBytes' });
    const named = ID_AT_START.exec(o.head)?.[1] ?? ID_AT_END.exec(o.tail)?.[1];
    const id = named === undefined ? undefined : Number(named);
    const waiting = id !== undefined && this.pending.has(id) ? [id] : [...this.pending.keys()];
    this.logger.warn('upstream answer too large, dropped', { limit, bytes: o.bytes, start: o.head.slice(0, 200), failedCalls: waiting.length });
    const error = new AnswerTooLarge(limit);
    for (const pendingId of waiting) this.pending.get(pendingId)?.resolve(error);
  }

  private onNotification(n: JsonRpcNotification): void {
    if (this.handleNotification(n)) return;
    const token = n.params?.progressToken;
    if (n.method === 'notifications/progress' && typeof token === 'string') {
      const p = this.pending.get(this.progress.get(token) ?? -1);
      if (p?.onNotification) p.onNotification({ ...n, params: { ...n.params, progressToken: p.progressToken ?? token } });
      return;
    }
    if (n.method === 'notifications/message') this.logger.info('upstream log', { data: n.params?.data ?? null });
  }

  private call(
    method: string,
    params: JsonObject,
    timeoutMs: number,
    onNotification?: (n: JsonRpcNotification) => void,
    progressToken?: string | number,
    signal?: AbortSignal,
  ): Promise<JsonRpcResponse | Error> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(new TimeoutError(timeoutMs)), timeoutMs);
      const onAbort = (): void => finish(new DOMException('client disconnected', 'AbortError'));
      const finish = (m: JsonRpcResponse | Error): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.pending.delete(id) && m instanceof Error) {
          // The stdio transport cancels explicitly (MCP 2026-07-28, basic/patterns/cancellation).
          this.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: m.message } });
        }
        if (progressToken !== undefined) this.progress.delete(`gh-${id}`);
        resolve(m);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { resolve: finish, onNotification, progressToken });
      let outParams = params;
      if (progressToken !== undefined && isJsonObject(params._meta)) {
        // Tokens from different clients may collide on one process: use our own, map back.
        this.progress.set(`gh-${id}`, id);
        outParams = { ...params, _meta: { ...params._meta, progressToken: `gh-${id}` } };
      }
      if (!this.write({ jsonrpc: '2.0', id, method, params: outParams })) finish(new Error('process is not running'));
    });
  }

  async request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    if (!this.era) await this.start();
    const era = this.era;
    // Clients hear that it is not running; why (the command, the spawn error) is for the log
    // and /readyz (lastError), as for HTTP upstreams (failure-text.ts).
    if (!era) return err({ kind: 'upstream_unavailable', upstream: this.name, reason: 'not running' });
    const params = shapeParams(req, era);
    const token = isJsonObject(params._meta) ? params._meta.progressToken : undefined;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    const m = await this.call(req.method, params, this.config.timeoutMs, req.onNotification, progressToken, req.signal);
    if (m instanceof TimeoutError) return err({ kind: 'upstream_timeout', upstream: this.name, timeoutMs: this.config.timeoutMs });
    if (m instanceof AnswerTooLarge) return err({ kind: 'upstream_unavailable', upstream: this.name, reason: m.message });
    if (m instanceof Error) return err({ kind: 'upstream_unavailable', upstream: this.name, reason: m instanceof ProcessGone ? 'the process ended' : m.message });
    return isErrorResponse(m) ? err({ kind: 'upstream_error', upstream: this.name, error: m.error }) : ok(m.result);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    // Lines of this turn (notifications/cancelled of calls cut short by the shutdown) go first.
    this.flush();
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

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

class AnswerTooLarge extends Error {
  constructor(limit: number) {
    super(`the answer exceeds the ${limit}-byte limit (limits.maxUpstreamAnswerBytes)`);
  }
}

/** A call's process exited or never started; the message (command, exit code) is not for clients. */
class ProcessGone extends Error {}
