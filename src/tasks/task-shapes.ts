// The wire shapes of tasks in both eras, and who offers them (pure).
// - MCP 2025-11-25 (basic/utilities/tasks), core: a server declares
//   `capabilities.tasks.requests.tools.call`; a client asks for a task with `params.task` on
//   tools/call and gets CreateTaskResult `{ task: Task }`; tasks/get, tasks/result, tasks/list,
//   tasks/cancel; `notifications/tasks/status` carries a Task; results and messages about a
//   task name it in `_meta["io.modelcontextprotocol/related-task"]`.
// - MCP 2026-07-28, the extension `io.modelcontextprotocol/tasks`: the client declares it in
//   `capabilities.extensions` on each request, the server in server/discover; the server
//   decides, and answers tools/call with the flat CreateTaskResult `{ resultType: "task",
//   taskId, status, ttlMs, pollIntervalMs, ... }`; tasks/get (the result inlined once
//   terminal), tasks/update (inputResponses), tasks/cancel; no tasks/list, no tasks/result.
import { isJsonObject, type JsonObject, type JsonValue } from '../protocol/message.ts';
import type { Era } from '../protocol/versions.ts';
import type { UpstreamIdentity } from '../upstream/upstream.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
export const TASK_STATUS_NOTIFICATION = 'notifications/tasks/status';
/** The extension's status notification: a DetailedTask, sent only on a listen that named the task. */
export const MODERN_TASK_NOTIFICATION = 'notifications/tasks';
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** The task methods each era defines for a client to call. */
export const LEGACY_TASK_METHODS = ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel'] as const;
export const MODERN_TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;

/** The era in which `identity` offers task-augmented tools/call, if it does. */
export function upstreamTasks(era: Era | undefined, identity: UpstreamIdentity | undefined): Era | undefined {
  const caps = identity?.capabilities;
  if (!caps || era === undefined) return undefined;
  if (era === 'legacy') {
    const t = caps.tasks;
    const requests = isJsonObject(t) && isJsonObject(t.requests) ? t.requests : undefined;
    return requests && isJsonObject(requests.tools) && isJsonObject(requests.tools.call) ? 'legacy' : undefined;
  }
  return isJsonObject(caps.extensions) && isJsonObject(caps.extensions[TASKS_EXTENSION]) ? 'modern' : undefined;
}

/** upstreamTasks of an upstream as it is now; its status (an object made per read) is read
 * only when its capabilities could declare tasks at all, so a call to an upstream without
 * tasks costs none. */
export function upstreamTasksOf(u: { status(): { era?: Era }; knownEra?(): Era | undefined; identity(): UpstreamIdentity | undefined }): Era | undefined {
  const identity = u.identity();
  const caps = identity?.capabilities;
  if (!caps || (!isJsonObject(caps.tasks) && !isJsonObject(caps.extensions))) return undefined;
  return upstreamTasks(u.knownEra ? u.knownEra() : u.status().era, identity);
}

/** Whether the client declared tasks: at initialize (2025-11-25), or on this request (2026-07-28). */
export function clientDeclaresTasks(era: Era, caps: JsonObject): boolean {
  if (era === 'legacy') return isJsonObject(caps.tasks);
  return isJsonObject(caps.extensions) && isJsonObject(caps.extensions[TASKS_EXTENSION]);
}

/** The upstream task a tools/call result created, in the era the upstream speaks. */
export function createdTask(result: JsonObject, era: Era): { taskId: string; status: string; ttlMs?: number } | undefined {
  const task = era === 'legacy' ? result.task : result.resultType === 'task' ? result : undefined;
  if (!isJsonObject(task) || typeof task.taskId !== 'string') return undefined;
  const ttl = era === 'legacy' ? task.ttl : task.ttlMs;
  return { taskId: task.taskId, status: typeof task.status === 'string' ? task.status : 'working', ...(typeof ttl === 'number' ? { ttlMs: ttl } : {}) };
}

/** `result` with the task id it names replaced by `id` (CreateTaskResult of either era). */
export function withCreatedId(result: JsonObject, era: Era, id: string): JsonObject {
  if (era === 'legacy' && isJsonObject(result.task)) return { ...result, task: { ...result.task, taskId: id } };
  return { ...result, taskId: id };
}

/**
 * A Task object, task list entry, notification params or result with every upstream task id it
 * carries (its own `taskId`, and `_meta[related-task].taskId`) turned into the client's by `toClient`.
 */
export function withClientIds(value: JsonObject, toClient: (upstreamTaskId: string) => string): JsonObject {
  const out: JsonObject = { ...value };
  if (typeof out.taskId === 'string') out.taskId = toClient(out.taskId);
  const meta = out._meta;
  if (isJsonObject(meta) && isJsonObject(meta[RELATED_TASK_META]) && typeof meta[RELATED_TASK_META].taskId === 'string') {
    const related = meta[RELATED_TASK_META];
    out._meta = { ...meta, [RELATED_TASK_META]: { ...related, taskId: toClient(related.taskId as string) } };
  }
  // An inlined terminal result (2026-07-28 tasks/get) may name the task in its own _meta.
  if (isJsonObject(out.result)) out.result = withClientIds(out.result, toClient);
  return out;
}

/** The status a task answer shows, when it shows one. */
export function statusOf(value: JsonValue | undefined): string | undefined {
  if (!isJsonObject(value)) return undefined;
  if (typeof value.status === 'string') return value.status;
  return isJsonObject(value.task) && typeof value.task.status === 'string' ? value.task.status : undefined;
}
