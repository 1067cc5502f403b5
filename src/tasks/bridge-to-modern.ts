// A 2026-07-28 client's tasks/get, tasks/update and tasks/cancel on a task of a 2025-11-25
// upstream (README, Tasks: the bridge to 2026-07-28 clients). tasks/get is the upstream's
// tasks/get, with the result of its tasks/result inlined once the task has ended; a task in
// `input_required` shows the questions its upstream asked on the held tasks/result
// (held-task-input.ts) as `inputRequests`, and tasks/update answers them there. tasks/cancel
// is the upstream's tasks/cancel, acked empty as the extension does, also for a task that had
// ended already (2025-11-25 refuses those: the gateway checks the status and acks).
import type { Call, CallRecord, Handled, Reply } from '../protocol/call.ts';
import type { ClientAsk } from '../protocol/client-ask.ts';
import { isJsonObject, type JsonObject } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { AskedInput } from '../mcp/suspension-state.ts';
import type { HeldTaskInputs } from './held-task-input.ts';
import type { TaskRef } from './task-ids.ts';
import type { TaskLedger } from './task-ledger.ts';
import { modernDetailed } from './task-bridge.ts';
import { statusOf, TERMINAL_STATUSES } from './task-shapes.ts';

/** An upstream request made for a client's request about a task; `via` replaces the call's
 * own signal and ask, for a request that outlives the call (the held tasks/result). */
export type TaskSend = (call: Call, upstream: Upstream, method: string, params: JsonObject, via?: { ask: ClientAsk; signal: AbortSignal }) => Promise<Reply>;

export interface BridgeDeps {
  send: TaskSend;
  ledger: TaskLedger;
  inputs: HeldTaskInputs;
}

/** The task a client's id opened to: the upstream holding it, its own id there. */
export interface OpenedTask {
  ref: TaskRef;
  upstream: Upstream;
  id: string;
}

/** The record of a request about a task (audit): the task, and the status seen. */
export function taskRecord(o: OpenedTask, started: number, status?: string): CallRecord {
  return { target: { upstream: o.upstream.name, name: o.id, upstreamName: o.ref.taskId }, upstreamMs: performance.now() - started, task: { id: o.id, ...(status ? { status } : {}) } };
}

export async function bridgeToModern(deps: BridgeDeps, call: Call, o: OpenedTask): Promise<Handled> {
  const { send, ledger, inputs } = deps;
  const entry = ledger.get(o.id);
  const started = performance.now();
  const taskId = o.ref.taskId;
  if (call.method === 'tasks/update') {
    const responses = call.params.inputResponses;
    if (!isJsonObject(responses)) return { reply: err({ kind: 'invalid_params', message: 'inputResponses must be an object' }), record: taskRecord(o, started) };
    const answered = inputs.answer(o.id, responses);
    return { reply: answered.ok ? ok({}) : answered, record: taskRecord(o, started) };
  }
  if (call.method === 'tasks/cancel') {
    inputs.drop(o.id);
    const cancelled = await send(call, o.upstream, 'tasks/cancel', { taskId });
    if (cancelled.ok) ledger.saw(entry, statusOf(cancelled.value), 'tasks/cancel');
    if (cancelled.ok) return { reply: ok({}), record: taskRecord(o, started, statusOf(cancelled.value)) };
    const now = await send(call, o.upstream, 'tasks/get', { taskId });
    const status = now.ok ? statusOf(now.value) : undefined;
    return { reply: status !== undefined && TERMINAL_STATUSES.has(status) ? ok({}) : cancelled, record: taskRecord(o, started, status) };
  }
  let got = await send(call, o.upstream, 'tasks/get', { taskId });
  if (!got.ok) return { reply: got, record: taskRecord(o, started) };
  let final: Reply | undefined;
  let asked: AskedInput[] | undefined;
  if (statusOf(got.value) === 'input_required') {
    const run = (ask: ClientAsk, signal: AbortSignal) => send(call, o.upstream, 'tasks/result', { taskId }, { ask, signal });
    const view = await inputs.poll(o.id, call.authContext, call.clientCapabilities, run);
    if (view?.kind === 'asking') asked = view.asked;
    if (view?.kind === 'ended') {
      // The read ended while a question was awaited: the task's status now, and the read's
      // answer when it is the result (one that failed, at the upstream's timeout say, is not).
      final = view.reply.ok ? view.reply : undefined;
      got = await send(call, o.upstream, 'tasks/get', { taskId });
      if (!got.ok) return { reply: got, record: taskRecord(o, started) };
    }
  }
  const status = statusOf(got.value);
  const ended = status === 'completed' || status === 'failed';
  if (!ended) final = undefined;
  else final ??= await send(call, o.upstream, 'tasks/result', { taskId });
  ledger.saw(entry, status, 'tasks/get');
  return { reply: ok(modernDetailed(got.value, o.id, final, asked)), record: taskRecord(o, started, status) };
}
