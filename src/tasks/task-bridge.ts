// A 2025-11-25 upstream's core task shown to a 2026-07-28 client as a task of the extension
// io.modelcontextprotocol/tasks (pure; README, Tasks). The shapes differ in field names (ttl ->
// ttlMs, pollInterval -> pollIntervalMs), in the envelope (`{ task }` -> the flat
// `resultType: "task"` result) and in where the result is: the 2025-11-25 client reads it with
// tasks/result, the 2026-07-28 one finds it inlined in tasks/get once the task is terminal.
// Input too: a core task in `input_required` asks on the stream of a tasks/result, the
// extension's shows its questions as `inputRequests` (held-task-input.ts holds them); one whose
// questions have not reached this replica is shown `working`, with a status message saying so.
import { isJsonObject, type JsonObject } from '../protocol/message.ts';
import type { Reply } from '../protocol/call.ts';
import { INTERNAL_ERROR } from '../protocol/errors.ts';
import { inputRequestsOf, type AskedInput } from '../mcp/suspension-state.ts';
import { RELATED_TASK_META } from './task-shapes.ts';

export const INPUT_NOT_HERE = 'waiting for input: the upstream has not asked its question through this gateway replica';

/** The extension's Task fields from a core Task, under the client's id; `asked`: the
 * questions of a task in `input_required`. */
function modernTask(task: JsonObject, id: string, asked?: readonly AskedInput[]): JsonObject {
  const waiting = task.status === 'input_required';
  const asking = waiting && asked !== undefined && asked.length > 0;
  return {
    taskId: id,
    status: waiting && !asking ? 'working' : (task.status as string),
    ...(waiting && !asking ? { statusMessage: INPUT_NOT_HERE } : typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
    ...(asking ? { inputRequests: inputRequestsOf(asked) } : {}),
    ...(typeof task.createdAt === 'string' ? { createdAt: task.createdAt } : {}),
    ...(typeof task.lastUpdatedAt === 'string' ? { lastUpdatedAt: task.lastUpdatedAt } : {}),
    ...(typeof task.ttl === 'number' ? { ttlMs: Math.round(task.ttl) } : {}),
    ...(typeof task.pollInterval === 'number' ? { pollIntervalMs: Math.round(task.pollInterval) } : {}),
  };
}

/** tools/call: a core CreateTaskResult `{ task }` as the extension's CreateTaskResult. */
export function modernCreated(result: JsonObject, id: string): JsonObject {
  return { resultType: 'task', ...modernTask(isJsonObject(result.task) ? result.task : {}, id) };
}

/** tasks/get: the core Task, with the outcome inlined when terminal (`final`: the answer of
 * the upstream's tasks/result, read only then). */
export function modernDetailed(task: JsonObject, id: string, final: Reply | undefined, asked?: readonly AskedInput[]): JsonObject {
  const out = modernTask(task, id, asked);
  if (!final) return out;
  if (!final.ok) {
    const e = final.error.kind === 'upstream_error' ? final.error.error : { code: INTERNAL_ERROR, message: `the task's result could not be read (${final.error.kind})` };
    return { ...out, error: e as unknown as JsonObject };
  }
  // The task id is at the root already; the related-task key is 2025-11-25's.
  const meta = isJsonObject(final.value._meta) ? final.value._meta : undefined;
  const { [RELATED_TASK_META]: _related, ...restMeta } = meta ?? {};
  const { _meta: _m, ...result } = final.value;
  const inlined = meta && Object.keys(restMeta).length > 0 ? { ...result, _meta: restMeta } : result;
  if (task.status === 'failed') return { ...out, error: { code: INTERNAL_ERROR, message: typeof task.statusMessage === 'string' ? task.statusMessage : 'the task failed' } };
  return { ...out, result: inlined };
}
