// The questions of 2025-11-25 upstreams' tasks, held for the 2026-07-28 clients that poll them
// (README, Tasks). A core task that needs input goes `input_required` and asks its question
// as a request on the stream of a `tasks/result` (MCP 2025-11-25 basic/utilities/tasks, input
// required status); the extension instead shows the question in `tasks/get` as
// `inputRequests` and takes the answer with `tasks/update` (io.modelcontextprotocol/tasks,
// task update requests). So for a bridged task the gateway keeps one upstream `tasks/result`
// open (a "read"), takes the requests that arrive on it as questions under keys of its own,
// and answers each one upstream, as the JSON-RPC response to the upstream's request id, when a
// tasks/update brings its answer. The read stays open until the task ends (its answer is the
// result) or the upstream's timeout ends it; a question still open then is answered upstream
// with an error. In memory, on the replica that opened the read: the questions are asked on
// its stream only (README, Tasks: replicas).
import type { Reply } from '../protocol/call.ts';
import { declaresForRequest, type AskFailure, type ClientAsk, type ClientAskMethod } from '../protocol/client-ask.ts';
import type { GatewayError } from '../protocol/errors.ts';
import { isJsonObject, type JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { AskedInput } from '../mcp/suspension-state.ts';

/** Reads held at once per replica, and per principal, at most. */
export const MAX_HELD_READS = 1000;
export const MAX_HELD_READS_PER_PRINCIPAL = 100;
/** How long a tasks/get that finds a task `input_required` waits for its question to arrive. */
export const QUESTION_WAIT_MS = 5000;

/** Runs the upstream's tasks/result with the read's own ask and signal. */
export type ReadRun = (ask: ClientAsk, signal: AbortSignal) => Promise<Reply>;

/** What a poll finds: the questions still open, the read's end (the tasks/result answer), or
 * nothing within QUESTION_WAIT_MS. */
export type HeldView = { kind: 'asking'; asked: AskedInput[] } | { kind: 'ended'; reply: Reply } | { kind: 'quiet' };

interface Question extends AskedInput {
  settle(r: Result<JsonObject, AskFailure>): void;
}

class HeldRead {
  readonly open: Question[] = [];
  readonly controller = new AbortController();
  outcome: Reply | undefined;
  private asked = 0;
  /** The polls waiting for a question or the end. */
  private readonly waking = new Set<() => void>();

  constructor(
    readonly owner: string,
    public caps: JsonObject,
    private readonly prefix: string,
    run: ReadRun,
    onEnd: () => void,
  ) {
    run(this.ask, this.controller.signal).then(
      (reply) => this.end(reply, onEnd),
      (e: unknown) => this.end(err({ kind: 'internal', message: `the task's tasks/result failed: ${(e as Error).message}` }), onEnd),
    );
  }

  /** The upstream's request on the read's stream (server-request-answer.ts calls it). */
  private readonly ask: ClientAsk = (method: ClientAskMethod, params: JsonObject) => {
    if (this.outcome) return Promise.resolve(err({ kind: 'unanswered', message: 'the task read already ended' }));
    if (!declaresForRequest(method, params, this.caps)) {
      return Promise.resolve(err({ kind: 'undeclared', message: `the 2026-07-28 client did not declare the capability ${method} needs` }));
    }
    return new Promise((settle) => {
      // Unique over the task's life (io.modelcontextprotocol/tasks, task update requests).
      this.open.push({ key: `${this.prefix}-${++this.asked}`, method, params, settle });
      this.rouse();
    });
  };

  /** The open questions, or the end, as soon as there is one of them; else quiet after `ms`. */
  async view(ms: number): Promise<HeldView> {
    if (this.outcome) return { kind: 'ended', reply: this.outcome };
    if (this.open.length === 0) {
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waking.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        timer.unref();
        this.waking.add(wake);
      });
    }
    if (this.outcome) return { kind: 'ended', reply: this.outcome };
    return this.open.length > 0 ? { kind: 'asking', asked: this.open.map(({ key, method, params }) => ({ key, method, params })) } : { kind: 'quiet' };
  }

  /** Answers the open questions `responses` names; other keys are ignored (task update requests). */
  answer(responses: JsonObject): Result<number, GatewayError> {
    for (const q of this.open) {
      const v = responses[q.key];
      if (v !== undefined && !isJsonObject(v)) return err({ kind: 'invalid_params', message: `inputResponses["${q.key}"] must be an object (the ${q.method} result)` });
    }
    const answered = this.open.filter((q) => isJsonObject(responses[q.key]));
    for (const q of answered) {
      this.open.splice(this.open.indexOf(q), 1);
      q.settle(ok(responses[q.key] as JsonObject));
    }
    return ok(answered.length);
  }

  private rouse(): void {
    for (const wake of [...this.waking]) wake();
  }

  private end(reply: Reply, onEnd: () => void): void {
    this.outcome = reply;
    for (const q of this.open.splice(0)) q.settle(err({ kind: 'unanswered', message: 'the task read ended before the client answered' }));
    onEnd();
    this.rouse();
  }
}

export class HeldTaskInputs {
  private readonly reads = new Map<string, HeldRead>();
  private serial = 0;

  /** The questions of the task `id` (the client's id), opening its read with `run` if none is
   * held; `caps` are what the polling request declared (what it may be asked). Undefined when
   * no read may be opened (the bounds are full). */
  async poll(id: string, owner: string, caps: JsonObject, run: ReadRun, waitMs = QUESTION_WAIT_MS): Promise<HeldView | undefined> {
    let read = this.reads.get(id);
    if (!read) {
      if (this.reads.size >= MAX_HELD_READS || this.count(owner) >= MAX_HELD_READS_PER_PRINCIPAL) return undefined;
      read = new HeldRead(owner, caps, `q${++this.serial}`, run, () => {
        if (this.reads.get(id) === read) this.reads.delete(id);
      });
      if (!read.outcome) this.reads.set(id, read);
    }
    read.caps = caps;
    return read.view(waitMs);
  }

  /** A tasks/update's answers. A task with no read held here has no question open here: the
   * answers are ignored, as the extension asks for keys that are not outstanding. */
  answer(id: string, responses: JsonObject): Result<number, GatewayError> {
    const read = this.reads.get(id);
    return read ? read.answer(responses) : ok(0);
  }

  /** Ends the task's read (tasks/cancel): its open questions are answered with an error. */
  drop(id: string): void {
    this.reads.get(id)?.controller.abort(new DOMException('the task was cancelled', 'AbortError'));
  }

  size(): number {
    return this.reads.size;
  }

  /** Shutdown: every read is ended. */
  closeAll(): void {
    for (const id of [...this.reads.keys()]) this.drop(id);
  }

  private count(owner: string): number {
    let n = 0;
    for (const r of this.reads.values()) if (r.owner === owner) n++;
    return n;
  }
}
