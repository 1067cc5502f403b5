// What every config generation shares about tasks (README, Tasks): the id key, the ledger of
// tasks created through this replica, and how an upstream's status notification reaches the
// 2025-11-25 session that owns the task. A notification about a task this replica did not
// create, or whose session has no GET stream open, is dropped (MCP 2025-11-25 basic/utilities/tasks:
// status notifications are optional; the client polls tasks/get).
import { createHmac, randomBytes } from 'node:crypto';
import type { JsonObject, JsonRpcNotification } from '../protocol/message.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { createTaskIds, type TaskIds } from './task-ids.ts';
import { TaskLedger, type TaskEntry } from './task-ledger.ts';
import { HeldTaskInputs } from './held-task-input.ts';
import { TASK_STATUS_NOTIFICATION, withClientIds } from './task-shapes.ts';

export interface TaskRuntime {
  ids: TaskIds;
  ledger: TaskLedger;
  /** The questions of 2025-11-25 upstreams' tasks held for 2026-07-28 clients. */
  inputs: HeldTaskInputs;
  /** Follows an upstream's `notifications/tasks/status` (watching one twice is watching it once). */
  watch(u: Upstream): void;
  /** An upstream's `notifications/tasks/status`, with its own ids. */
  statusFromUpstream(upstream: string, task: JsonObject): void;
  /** Forgets every task, recording the end of those still open as unobserved, and ends every
   * held read (shutdown). */
  closeAll(): void;
}

export interface TaskRuntimeDeps {
  /** The sessions secret: task ids open on every replica that shares it; unset: a key of this process. */
  secret: Buffer | undefined;
  now: () => number;
  /** Sends a notification on a 2025-11-25 session's GET stream. */
  deliver: (sessionId: string, n: JsonRpcNotification) => void;
  /** The audit event of a task's end. */
  ended: (detail: JsonObject) => void;
}

function endDetail(e: TaskEntry, status: string, seen: string, now: number): JsonObject {
  return {
    task: e.id,
    upstream: e.upstream,
    upstreamTaskId: e.upstreamTaskId,
    tool: e.tool,
    principal: e.principal.subject,
    status,
    seen,
    ...(e.requestId !== undefined ? { createdBy: e.requestId } : {}),
    ageMs: Math.max(0, now - e.createdAt),
  };
}

export function createTaskRuntime(deps: TaskRuntimeDeps): TaskRuntime {
  const ledger = new TaskLedger(deps.now, (e, status, seen) => deps.ended(endDetail(e, status, seen, deps.now())));
  const watched = new WeakSet<Upstream>();
  const runtime: TaskRuntime = {
    watch(u) {
      if (watched.has(u)) return;
      watched.add(u);
      u.onEvent((ev) => {
        if (ev.type === 'task_status') runtime.statusFromUpstream(u.name, ev.task);
      });
    },
    ids: createTaskIds(deps.secret ? createHmac('sha256', deps.secret).update('gatehouse task v1').digest() : randomBytes(32)),
    ledger,
    inputs: new HeldTaskInputs(),
    statusFromUpstream(upstream, task) {
      const entry = ledger.ofUpstream(upstream, task.taskId as string);
      if (!entry) return;
      ledger.saw(entry, typeof task.status === 'string' ? task.status : undefined, 'notifications/tasks/status');
      if (entry.sessionId !== undefined) deps.deliver(entry.sessionId, { jsonrpc: '2.0', method: TASK_STATUS_NOTIFICATION, params: withClientIds(task, () => entry.id) });
    },
    closeAll() {
      runtime.inputs.closeAll();
      ledger.close();
    },
  };
  return runtime;
}
