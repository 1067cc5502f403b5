// A 2025-11-25 client's tasks/get, tasks/result, tasks/cancel and tasks/list on tasks of a
// 2026-07-28 upstream, which speaks the extension io.modelcontextprotocol/tasks (README, Tasks:
// the bridge to 2025-11-25 clients). The extension has no tasks/result and no tasks/list, and
// asks for input in tasks/get (`inputRequests`) rather than on a stream:
// - tasks/get is the upstream's, in core shape (MCP 2025-11-25 basic/utilities/tasks, Task);
// - tasks/result polls the upstream's tasks/get, at its pollIntervalMs, until the task has
//   ended, within the upstream's timeout, and answers the inlined result (or error) with the
//   related-task `_meta` core requires. The questions of a task in `input_required` are put to
//   the client on this request's stream, as core has them asked, each once, and the answers
//   go upstream as one tasks/update;
// - tasks/cancel is refused for a task that has ended (-32602, as core requires), and
//   otherwise the upstream's tasks/cancel, answered with the task as it is then;
// - tasks/list is the gateway's own ledger of the caller's tasks (listed below).
import type { Call, Handled, Reply } from '../protocol/call.ts';
import { CLIENT_ASK_METHODS, type ClientAskMethod } from '../protocol/client-ask.ts';
import { INTERNAL_ERROR } from '../protocol/errors.ts';
import { isJsonObject, type JsonObject, type JsonRpcErrorObject } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';
import { taskRecord, type BridgeDeps, type OpenedTask } from './bridge-to-modern.ts';
import type { TaskEntry } from './task-ledger.ts';
import { RELATED_TASK_META, statusOf, TERMINAL_STATUSES } from './task-shapes.ts';

/** Polling interval when the upstream suggests none, and the least the gateway waits. */
const DEFAULT_POLL_MS = 1000;
const MIN_POLL_MS = 10;

const iso = (ms: number): string => new Date(ms).toISOString();

/** A core Task from the extension's (DetailedTask or CreateTaskResult), under the client's id. */
export function coreTask(task: JsonObject, id: string): JsonObject {
  const now = new Date().toISOString();
  const ttl = task.ttlMs;
  return {
    taskId: id,
    status: typeof task.status === 'string' ? task.status : 'working',
    ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
    createdAt: typeof task.createdAt === 'string' ? task.createdAt : now,
    lastUpdatedAt: typeof task.lastUpdatedAt === 'string' ? task.lastUpdatedAt : now,
    ttl: typeof ttl === 'number' ? Math.round(ttl) : null,
    ...(typeof task.pollIntervalMs === 'number' ? { pollInterval: Math.round(task.pollIntervalMs) } : {}),
  };
}

/** tasks/list entries of the caller's tasks on a 2026-07-28 upstream, from the ledger alone:
 * the last status the gateway saw, when it saw it. */
export function ledgerTasks(entries: readonly TaskEntry[]): JsonObject[] {
  return entries.map((e) => ({
    taskId: e.id,
    status: e.status ?? 'working',
    createdAt: iso(e.createdAt),
    lastUpdatedAt: iso(e.statusAt ?? e.createdAt),
    ttl: e.expiresAt - e.createdAt,
  }));
}

/** A tasks/result answer from the extension's ended task: its result, or its error. */
function coreOutcome(task: JsonObject, id: string, upstream: string): Reply {
  const related = { [RELATED_TASK_META]: { taskId: id } };
  if (task.status === 'completed' && isJsonObject(task.result)) {
    const { resultType: _r, ...result } = task.result;
    return ok({ ...result, _meta: { ...(isJsonObject(result._meta) ? result._meta : {}), ...related } });
  }
  const given = isJsonObject(task.error) && typeof task.error.code === 'number' && typeof task.error.message === 'string' ? (task.error as unknown as JsonRpcErrorObject) : undefined;
  const message = task.status === 'cancelled' ? 'The task was cancelled: it has no result' : 'The task failed';
  return err({ kind: 'upstream_error', upstream, error: given ?? { code: INTERNAL_ERROR, message, data: related } });
}

/** The task waits for input this request cannot give: the task's trouble, as the upstream's. */
function unanswerable(upstream: string, message: string): Reply {
  return err({ kind: 'upstream_error', upstream, error: { code: INTERNAL_ERROR, message: `Task input: ${message}` } });
}

/** Waits `ms`, or less when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function bridgeToLegacy(deps: BridgeDeps, call: Call, o: OpenedTask): Promise<Handled> {
  const { send, ledger } = deps;
  const entry = ledger.get(o.id);
  const started = performance.now();
  const taskId = o.ref.taskId;
  const get = () => send(call, o.upstream, 'tasks/get', { taskId });
  if (call.method === 'tasks/get') {
    const got = await get();
    if (!got.ok) return { reply: got, record: taskRecord(o, started) };
    ledger.saw(entry, statusOf(got.value), 'tasks/get');
    return { reply: ok(coreTask(got.value, o.id)), record: taskRecord(o, started, statusOf(got.value)) };
  }
  if (call.method === 'tasks/cancel') {
    const before = await get();
    if (!before.ok) return { reply: before, record: taskRecord(o, started) };
    const was = statusOf(before.value);
    if (was !== undefined && TERMINAL_STATUSES.has(was)) {
      ledger.saw(entry, was, 'tasks/get');
      return { reply: err({ kind: 'invalid_params', message: `Cannot cancel a task that is ${was}` }), record: taskRecord(o, started, was) };
    }
    const cancelled = await send(call, o.upstream, 'tasks/cancel', { taskId });
    if (!cancelled.ok) return { reply: cancelled, record: taskRecord(o, started, was) };
    const after = await get();
    const now = after.ok ? after.value : before.value;
    ledger.saw(entry, statusOf(now), 'tasks/cancel');
    return { reply: ok(coreTask(now, o.id)), record: taskRecord(o, started, statusOf(now)) };
  }
  const outcome = await awaitEnd(deps, call, o);
  return { reply: outcome.reply, record: taskRecord(o, started, outcome.status) };
}

/** tasks/result: the task polled until it ends, its questions asked on the way. */
async function awaitEnd(deps: BridgeDeps, call: Call, o: OpenedTask): Promise<{ reply: Reply; status?: string }> {
  const { send, ledger } = deps;
  const entry = ledger.get(o.id);
  const taskId = o.ref.taskId;
  const timeoutMs = o.upstream.config.timeoutMs;
  const deadline = performance.now() + timeoutMs;
  const answered = new Set<string>();
  for (;;) {
    const got = await send(call, o.upstream, 'tasks/get', { taskId });
    if (!got.ok) return { reply: got };
    const task = got.value;
    const status = statusOf(task);
    if (status !== undefined && TERMINAL_STATUSES.has(status)) {
      ledger.saw(entry, status, 'tasks/result');
      return { reply: coreOutcome(task, o.id, o.upstream.name), status };
    }
    ledger.saw(entry, status, 'tasks/result');
    if (status === 'input_required' && isJsonObject(task.inputRequests)) {
      const asked = await askClient(call, o.upstream.name, o.id, task.inputRequests, answered, deadline - performance.now());
      if (!asked.ok) return { reply: asked, status };
      if (Object.keys(asked.value).length > 0) {
        const updated = await send(call, o.upstream, 'tasks/update', { taskId, inputResponses: asked.value });
        if (!updated.ok) return { reply: updated, status };
        continue;
      }
    }
    const wait = Math.max(typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : DEFAULT_POLL_MS, MIN_POLL_MS);
    if (performance.now() + wait > deadline) return { reply: err({ kind: 'upstream_timeout', upstream: o.upstream.name, timeoutMs }), status };
    await pause(wait, call.signal);
    if (call.signal.aborted) return { reply: err({ kind: 'upstream_unavailable', upstream: o.upstream.name, reason: 'the client cancelled its tasks/result' }), status };
  }
}

/** Puts the task's questions not yet answered to the client, on this call's stream, naming the
 * task (related-task `_meta`, as core has a task's requests carry it); their answers by key. */
async function askClient(call: Call, upstream: string, id: string, requests: JsonObject, answered: Set<string>, remainingMs: number): Promise<Reply> {
  const responses: JsonObject = {};
  for (const [key, r] of Object.entries(requests)) {
    if (answered.has(key)) continue;
    if (!isJsonObject(r) || typeof r.method !== 'string' || !CLIENT_ASK_METHODS.has(r.method)) {
      return unanswerable(upstream, `the task asks for input the gateway cannot put to a 2025-11-25 client (inputRequests["${key}"])`);
    }
    if (!call.ask) return unanswerable(upstream, 'the task asks for input, and this client cannot be asked on this request');
    const params = isJsonObject(r.params) ? r.params : {};
    const meta = { ...(isJsonObject(params._meta) ? params._meta : {}), [RELATED_TASK_META]: { taskId: id } };
    const answer = await call.ask(r.method as ClientAskMethod, { ...params, _meta: meta }, Math.max(remainingMs, 0));
    if (!answer.ok) {
      const why = answer.error.kind === 'client_error' ? answer.error.error.message : answer.error.message;
      return unanswerable(upstream, `the task asked for ${r.method}, which the client did not answer: ${why}`);
    }
    const { _meta: _dropped, ...plain } = answer.value;
    responses[key] = plain;
    answered.add(key);
  }
  return ok(responses);
}
