// tasks/list (MCP 2025-11-25 basic/utilities/tasks, with basic/utilities/pagination): the
// caller's own tasks, in pages under a cursor of the gateway's. An upstream session is shared
// by every client, so the upstream lists everyone's tasks there; the gateway keeps those the
// ledger says the caller created through this replica; a 2026-07-28 upstream has no
// tasks/list (the extension has none), so its tasks come from the ledger alone
// (bridge-to-legacy.ts). It walks the upstreams the caller has tasks on in name order, each
// from its first page to its last, and a page ends once it holds PAGE_TASKS tasks or
// MAX_UPSTREAM_PAGES upstream pages were read for it. Its nextCursor seals
// where the walk stopped (the upstream, and that upstream's own cursor) in the catalog's
// cursor format (catalog/cursor.ts), bound to the caller: another caller's cursor, or one
// changed in any byte, is -32602.
//
// A task created through another replica is not listed: the upstream names tasks by its own
// ids, which say nothing of who created them, so only a ledger that saw the creation can
// tell; the replicas' ledgers are their own (its tasks/get, tasks/result and tasks/cancel work
// on every replica: the id carries the binding).
import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor } from '../catalog/cursor.ts';
import type { Call, Handled, Reply } from '../protocol/call.ts';
import { NO_RECORD } from '../protocol/call.ts';
import { isJsonObject, type JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { TaskLedger } from './task-ledger.ts';
import { withClientIds } from './task-shapes.ts';
import { ledgerTasks } from './bridge-to-legacy.ts';
import type { Era } from '../protocol/versions.ts';

/** Tasks a page holds before it ends (checked between upstream pages, so a page may hold one
 * upstream page more). */
export const PAGE_TASKS = 20;
/** Upstream pages read for one page of the client's, at most. */
export const MAX_UPSTREAM_PAGES = 10;
/** An upstream cursor longer than this ends the walk of that upstream (a sealed cursor stays
 * well under the catalog's 1024 characters). */
const MAX_UPSTREAM_CURSOR = 512;

export interface TaskListDeps {
  ledger: TaskLedger;
  cursorKey: Buffer;
  /** The upstreams the caller has tasks on, and the era each offers tasks in. */
  upstreamsOf(call: Call): { name: string; era: Era }[];
  /** tasks/list sent to an upstream for this call. */
  send(call: Call, upstream: string, params: JsonObject): Promise<Reply>;
  /** The client's id of an upstream's task of this caller. */
  clientId(call: Call, upstream: string, taskId: string): string;
}

interface Position {
  upstream: string;
  cursor?: string;
}

/** The cursor kind names the caller: a cursor opens only for whom it was cut. */
const kindOf = (call: Call): string => `tasks/list:${createHash('sha256').update(call.authContext, 'utf8').digest('base64url').slice(0, 22)}`;

function positionOf(key: Buffer, call: Call): Result<Position | undefined, string> {
  const given = call.params.cursor;
  if (given === undefined) return ok(undefined);
  if (typeof given !== 'string') return err('must be a string');
  const pos = decodeCursor(key, given, kindOf(call));
  if (!pos.ok) return err(pos.error.startsWith('cursor is not for') ? 'the cursor was cut for another caller' : pos.error);
  try {
    const at: unknown = JSON.parse(pos.value.version);
    if (Array.isArray(at) && typeof at[0] === 'string' && (at[1] === null || typeof at[1] === 'string')) return ok({ upstream: at[0], ...(at[1] === null ? {} : { cursor: at[1] }) });
  } catch {
    // Sealed by us, so never; a key shared with a different build could.
  }
  return err('malformed cursor');
}

export function createTaskList(d: TaskListDeps): (call: Call) => Promise<Handled> {
  const seal = (call: Call, at: Position): string => encodeCursor(d.cursorKey, { kind: kindOf(call), offset: 0, version: JSON.stringify([at.upstream, at.cursor ?? null]) });
  return async (call) => {
    const from = positionOf(d.cursorKey, call);
    if (!from.ok) return { reply: err({ kind: 'invalid_params', message: `Invalid cursor: ${from.error}` }), record: NO_RECORD };
    const eras = new Map(d.upstreamsOf(call).map((u) => [u.name, u.era]));
    const names = [...eras.keys()].sort();
    const start = from.value ? names.findIndex((n) => n >= from.value!.upstream) : 0;
    const tasks: JsonObject[] = [];
    let reads = 0;
    for (let i = start < 0 ? names.length : start; i < names.length; i++) {
      const name = names[i]!;
      let cursor = from.value?.upstream === name ? from.value.cursor : undefined;
      if (eras.get(name) === 'modern') {
        if (tasks.length >= PAGE_TASKS) return { reply: ok({ tasks, nextCursor: seal(call, { upstream: name }) }), record: NO_RECORD };
        tasks.push(...ledgerTasks(d.ledger.tasksOf(call.authContext, name)));
        continue;
      }
      for (;;) {
        if (reads >= MAX_UPSTREAM_PAGES || tasks.length >= PAGE_TASKS) return { reply: ok({ tasks, nextCursor: seal(call, { upstream: name, ...(cursor === undefined ? {} : { cursor }) }) }), record: NO_RECORD };
        const reply = await d.send(call, name, cursor === undefined ? {} : { cursor });
        reads++;
        if (!reply.ok) return { reply, record: NO_RECORD };
        const found = Array.isArray(reply.value.tasks) ? reply.value.tasks : [];
        for (const t of found) {
          if (isJsonObject(t) && typeof t.taskId === 'string' && d.ledger.owns(call.authContext, name, t.taskId)) tasks.push(withClientIds(t, (id) => d.clientId(call, name, id)));
        }
        const next = reply.value.nextCursor;
        if (typeof next !== 'string' || next.length > MAX_UPSTREAM_CURSOR) break;
        cursor = next;
      }
    }
    return { reply: ok({ tasks }), record: NO_RECORD };
  };
}
