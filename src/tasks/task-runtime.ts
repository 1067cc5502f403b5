// What every config generation shares about tasks (README, Tasks): the id key, the ledger of
// tasks created through this replica, and where an upstream's status notifications go.
// - A 2025-11-25 upstream sends `notifications/tasks/status` unasked, on its GET stream.
// - A 2026-07-28 upstream with the extension io.modelcontextprotocol/tasks sends
//   `notifications/tasks` only for the task ids a listen asked for ("Task Status
//   Notifications"), so the gateway asks, on the upstream's listen stream, for its tasks still
//   open in the ledger and for those a client's own listen named (tasks created through
//   another replica included: the id opens wherever the sessions secret is shared).
// Each goes to the 2025-11-25 session that created the task (its GET stream, if open) and to
// the 2026-07-28 listen streams that named the task, under the client's id, and counts for the
// audit of the task's end. A notification about a task nobody here created or listens to is
// dropped; status notifications are optional in both eras, and clients poll.
import { createHmac, randomBytes } from 'node:crypto';
import { isJsonObject, type JsonObject, type JsonRpcNotification } from '../protocol/message.ts';
import { META_SUBSCRIPTION_ID } from '../protocol/meta-keys.ts';
import type { Era } from '../protocol/versions.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { createTaskIds, type TaskIds } from './task-ids.ts';
import { TaskLedger, type TaskEntry } from './task-ledger.ts';
import { HeldTaskInputs } from './held-task-input.ts';
import { modernDetailed } from './task-bridge.ts';
import { coreTask } from './bridge-to-legacy.ts';
import { MODERN_TASK_NOTIFICATION, TASK_STATUS_NOTIFICATION, upstreamTasksOf, withClientIds } from './task-shapes.ts';

export interface TaskRuntime {
  ids: TaskIds;
  ledger: TaskLedger;
  /** Seals tasks/list cursors (task-list.ts); shared by replicas that share the sessions secret. */
  cursorKey: Buffer;
  /** The questions of 2025-11-25 upstreams' tasks held for 2026-07-28 clients. */
  inputs: HeldTaskInputs;
  /** Follows an upstream's task status notifications (watching one twice is watching it once). */
  watch(u: Upstream): void;
  /** A task status notification of an upstream, with its own ids. */
  statusFromUpstream(upstream: string, task: JsonObject, era: Era, scope?: string): void;
  /** A task was created through this replica: ask for its status where the upstream must be asked. */
  created(entry: TaskEntry): void;
  /** A 2026-07-28 listen naming client task ids: the ids honoured (the caller's own, on an
   * upstream that sends task status), whose notifications go to `sink` until `end`. */
  listen(authContext: string, taskIds: readonly string[], sink: (n: JsonRpcNotification) => void): { honoured: string[]; end: () => void };
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

interface Listener {
  /** The client's id of the task. */
  id: string;
  authContext: string;
  sink: (n: JsonRpcNotification) => void;
}

/** The params of an upstream's notification without the upstream listen's subscription id. */
function withoutSubscription(task: JsonObject): JsonObject {
  if (!isJsonObject(task._meta) || !(META_SUBSCRIPTION_ID in task._meta)) return task;
  const { [META_SUBSCRIPTION_ID]: _upstreams, ...meta } = task._meta;
  const { _meta: _m, ...rest } = task;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

export function createTaskRuntime(deps: TaskRuntimeDeps): TaskRuntime {
  const upstreams = new Map<string, Upstream>();
  /** upstream NUL scope -> upstream task id -> how many want its status (ledger entry, listens). */
  const followed = new Map<string, Map<string, number>>();
  /** upstream NUL scope NUL upstream task id -> the listens that named it. */
  const listeners = new Map<string, Set<Listener>>();
  const watched = new WeakSet<Upstream>();

  /** Task ids of an upstream reached per user are that user's: keyed by the authContext. */
  const scopeOf = (u: Upstream, authContext: string): string => (u.status().userAuth !== undefined ? authContext : '');
  const sendsModernStatus = (u: Upstream | undefined): u is Upstream => u !== undefined && upstreamTasksOf(u) === 'modern' && u.followTasks !== undefined;
  const sendsLegacyStatus = (u: Upstream | undefined): u is Upstream => u !== undefined && upstreamTasksOf(u) === 'legacy';

  /** A 2025-11-25 upstream's status of a task bridged to 2026-07-28 listens, as the
   * extension's DetailedTask (task-bridge.ts): once the task has ended, with the outcome read
   * with tasks/result, as tasks/get would show it. */
  const relayBridged = async (upstream: string, task: JsonObject, status: string | undefined, waiting: Listener[]): Promise<void> => {
    const u = upstreams.get(upstream);
    const taskId = task.taskId as string;
    const ended = status === 'completed' || status === 'failed';
    const final = ended && u ? await u.request({ method: 'tasks/result', params: { taskId }, clientCapabilities: {}, principal: { authContext: waiting[0]!.authContext } }) : undefined;
    for (const l of waiting) l.sink({ jsonrpc: '2.0', method: MODERN_TASK_NOTIFICATION, params: modernDetailed(task, l.id, final) });
  };

  const follow = (u: Upstream, scope: string, taskId: string): void => {
    const key = `${u.name}\u0000${scope}`;
    const ids = followed.get(key) ?? new Map<string, number>();
    followed.set(key, ids);
    const n = ids.get(taskId) ?? 0;
    ids.set(taskId, n + 1);
    // A new id reopens the upstream's listen with it; one let go of is dropped at the next.
    if (n === 0) u.followTasks?.([...ids.keys()], scope);
  };
  const unfollow = (upstream: string, scope: string, taskId: string): void => {
    const ids = followed.get(`${upstream}\u0000${scope}`);
    const n = ids?.get(taskId);
    if (ids === undefined || n === undefined) return;
    if (n > 1) ids.set(taskId, n - 1);
    else ids.delete(taskId);
  };
  const followsEntry = (e: TaskEntry): { u: Upstream; scope: string } | undefined => {
    const u = upstreams.get(e.upstream);
    return sendsModernStatus(u) ? { u, scope: scopeOf(u, e.authContext) } : undefined;
  };

  const ledger = new TaskLedger(deps.now, (e, status, seen) => {
    const f = followsEntry(e);
    if (f) unfollow(e.upstream, f.scope, e.upstreamTaskId);
    deps.ended(endDetail(e, status, seen, deps.now()));
  });
  const keyOf = (purpose: string): Buffer => (deps.secret ? createHmac('sha256', deps.secret).update(purpose).digest() : randomBytes(32));
  const ids = createTaskIds(keyOf('gatehouse task v1'));

  const runtime: TaskRuntime = {
    ids,
    ledger,
    cursorKey: keyOf('gatehouse task cursor v1'),
    inputs: new HeldTaskInputs(),
    watch(u) {
      upstreams.set(u.name, u);
      if (watched.has(u)) return;
      watched.add(u);
      u.onEvent((ev) => {
        if (ev.type === 'task_status') runtime.statusFromUpstream(u.name, ev.task, ev.era, ev.scope);
      });
    },
    statusFromUpstream(upstream, raw, era, scope) {
      const task = withoutSubscription(raw);
      const taskId = task.taskId as string;
      const entry = ledger.ofUpstream(upstream, taskId, scope);
      const status = typeof task.status === 'string' ? task.status : undefined;
      if (entry?.sessionId !== undefined && entry.era === 'legacy') {
        const params = era === 'legacy' ? withClientIds(task, () => entry.id) : coreTask(task, entry.id);
        deps.deliver(entry.sessionId, { jsonrpc: '2.0', method: TASK_STATUS_NOTIFICATION, params });
      }
      const waiting = [...(listeners.get(`${upstream}\u0000${scope ?? ''}\u0000${taskId}`) ?? [])];
      if (era === 'modern') for (const l of waiting) l.sink({ jsonrpc: '2.0', method: MODERN_TASK_NOTIFICATION, params: withClientIds(task, () => l.id) });
      else if (waiting.length > 0) void relayBridged(upstream, task, status, waiting).catch(() => undefined);
      ledger.saw(entry, status, era === 'legacy' ? 'notifications/tasks/status' : 'notifications/tasks');
    },
    created(entry) {
      const f = followsEntry(entry);
      if (f && entry.ended === undefined) follow(f.u, f.scope, entry.upstreamTaskId);
    },
    listen(authContext, taskIds, sink) {
      const honoured: string[] = [];
      const held: { key: string; listener: Listener; upstream: string; scope: string; taskId: string; bridged: boolean }[] = [];
      for (const id of new Set(taskIds)) {
        const ref = ids.open(id, authContext);
        const u = ref && upstreams.get(ref.upstream);
        // A 2025-11-25 upstream sends status on the session that created the task: this
        // replica's, if its ledger has the task (a 2026-07-28 one answers any listen).
        const bridged = ref !== undefined && sendsLegacyStatus(u) && ledger.ofUpstream(u.name, ref.taskId, authContext) !== undefined;
        if (!ref || !u || !(bridged || sendsModernStatus(u))) continue;
        const scope = scopeOf(u, authContext);
        const key = `${u.name}\u0000${scope}\u0000${ref.taskId}`;
        const listener = { id, authContext, sink };
        listeners.set(key, (listeners.get(key) ?? new Set()).add(listener));
        if (!bridged) follow(u, scope, ref.taskId);
        held.push({ key, listener, upstream: u.name, scope, taskId: ref.taskId, bridged });
        honoured.push(id);
      }
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        for (const h of held) {
          const set = listeners.get(h.key);
          set?.delete(h.listener);
          if (set?.size === 0) listeners.delete(h.key);
          if (!h.bridged) unfollow(h.upstream, h.scope, h.taskId);
        }
      };
      return { honoured, end };
    },
    closeAll() {
      runtime.inputs.closeAll();
      ledger.close();
    },
  };
  return runtime;
}
