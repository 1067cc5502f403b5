// The tasks created through this replica: who created each, for which tool, and whether its
// end has been recorded. The task id itself carries the binding to its principal
// (task-ids.ts), so tasks/get, tasks/result and tasks/cancel need no entry here; the ledger is
// what tasks/list filters on (a shared upstream session lists every client's tasks), what
// routes an upstream's status notification to the session that owns the task, and what makes
// the audit trail record each task's end exactly once (README, Tasks).
//
// Bounded: at most MAX_TASKS entries, each kept until its ttl has passed (at most
// MAX_TASK_KEEP_MS when the upstream gave none or an unlimited one). An entry that goes
// before its end was seen has its end recorded then, as `unobserved`.
import type { Era } from '../protocol/versions.ts';
import { TERMINAL_STATUSES } from './task-shapes.ts';

/** Entries kept at most; the oldest goes first. */
export const MAX_TASKS = 10_000;
/** Longest an entry is kept (24 h), whatever ttl the upstream gave. */
export const MAX_TASK_KEEP_MS = 24 * 60 * 60 * 1000;
/** How often expired entries are swept, at most. */
const SWEEP_INTERVAL_MS = 60_000;

export interface TaskEntry {
  /** The client's task id (task-ids.ts). */
  id: string;
  upstream: string;
  upstreamTaskId: string;
  era: Era;
  authContext: string;
  principal: { subject: string; method: string };
  /** The exposed tool name the task runs. */
  tool: string;
  /** The gateway's id of the creating request (audit). */
  requestId?: string;
  /** The 2025-11-25 session that created it: where its status notifications go. */
  sessionId?: string;
  createdAt: number;
  expiresAt: number;
  /** The last status seen, and when it changed (what tasks/list shows of a task whose
   * upstream has no tasks/list: a 2026-07-28 one). */
  status?: string;
  statusAt?: number;
  ended?: string;
}

/** How a task's end came to be known. */
export type EndSeen = 'created' | 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'notifications/tasks/status' | 'notifications/tasks' | 'unobserved';

export type EndListener = (entry: TaskEntry, status: string, seen: EndSeen) => void;

export class TaskLedger {
  private readonly byId = new Map<string, TaskEntry>();
  /** Upstream task id -> the client ids of it: one, except on an upstream reached per user,
   * whose ids are each user's own and may repeat across users. */
  private readonly byUpstream = new Map<string, string[]>();
  private lastSweep = 0;

  constructor(
    private readonly now: () => number,
    private readonly onEnd: EndListener,
    private readonly max = MAX_TASKS,
  ) {}

  add(e: Omit<TaskEntry, 'createdAt' | 'expiresAt'>, ttlMs: number | undefined): TaskEntry {
    const t = this.now();
    this.sweep(t);
    const known = this.byId.get(e.id);
    if (known) return known;
    while (this.byId.size >= this.max) this.forget(this.byId.keys().next().value as string);
    const keep = ttlMs === undefined || ttlMs <= 0 ? MAX_TASK_KEEP_MS : Math.min(ttlMs, MAX_TASK_KEEP_MS);
    const entry: TaskEntry = { ...e, createdAt: t, expiresAt: t + keep };
    this.byId.set(entry.id, entry);
    const key = `${e.upstream}\u0000${e.upstreamTaskId}`;
    this.byUpstream.set(key, [...(this.byUpstream.get(key) ?? []), entry.id]);
    return entry;
  }

  get(id: string): TaskEntry | undefined {
    return this.byId.get(id);
  }

  /** The entry of an upstream's own task id, if it was created through this replica; with
   * `scope`, only the one `scope` (an authContext) created. */
  ofUpstream(upstream: string, upstreamTaskId: string, scope?: string): TaskEntry | undefined {
    for (const id of this.byUpstream.get(`${upstream}\u0000${upstreamTaskId}`) ?? []) {
      const e = this.byId.get(id);
      if (e && (scope === undefined || e.authContext === scope)) return e;
    }
    return undefined;
  }

  /** Whether `authContext` created this upstream task through this replica. */
  owns(authContext: string, upstream: string, upstreamTaskId: string): boolean {
    return this.ofUpstream(upstream, upstreamTaskId, authContext) !== undefined;
  }

  /** The upstreams holding tasks of `authContext`. */
  upstreamsOf(authContext: string): Set<string> {
    const out = new Set<string>();
    for (const e of this.byId.values()) if (e.authContext === authContext) out.add(e.upstream);
    return out;
  }

  /** The tasks of `authContext` on `upstream`, oldest first. */
  tasksOf(authContext: string, upstream: string): TaskEntry[] {
    return [...this.byId.values()].filter((e) => e.authContext === authContext && e.upstream === upstream);
  }
  /** A status seen for a task: a terminal one records its end, once. */
  saw(entry: TaskEntry | undefined, status: string | undefined, seen: EndSeen): void {
    if (!entry || entry.ended !== undefined || status === undefined) return;
    if (entry.status !== status) {
      entry.status = status;
      entry.statusAt = this.now();
    }
    if (!TERMINAL_STATUSES.has(status)) return;
    entry.ended = status;
    this.onEnd(entry, status, seen);
  }

  /** Forgets every entry, recording the end of those still open as unobserved (shutdown). */
  close(): void {
    for (const id of [...this.byId.keys()]) this.forget(id);
  }

  private sweep(t: number): void {
    if (t - this.lastSweep < SWEEP_INTERVAL_MS && this.byId.size < this.max) return;
    this.lastSweep = t;
    for (const [id, e] of this.byId) if (e.expiresAt <= t) this.forget(id);
  }

  private forget(id: string): void {
    const e = this.byId.get(id);
    if (!e) return;
    this.byId.delete(id);
    const key = `${e.upstream}\u0000${e.upstreamTaskId}`;
    const rest = (this.byUpstream.get(key) ?? []).filter((other) => other !== id);
    if (rest.length > 0) this.byUpstream.set(key, rest);
    else this.byUpstream.delete(key);
    if (e.ended === undefined) {
      e.ended = 'unobserved';
      this.onEnd(e, 'unobserved', 'unobserved');
    }
  }
}
