// The task ids a client sees (MCP 2025-11-25 basic/utilities/tasks; the 2026-07-28 extension
// io.modelcontextprotocol/tasks): the upstream's own id, namespaced by the upstream that holds
// it and bound to the principal that created it. Many clients share one upstream session, so
// an upstream id alone would let one caller poll, read or cancel another's task.
//
// Format: `gt1.` base64url(upstream) `.` base64url(upstream task id) `.` base64url(MAC), where
// MAC is the first 16 bytes of HMAC-SHA256(key, upstream NUL task id NUL authContext). The id is
// deterministic, so a task keeps one id in every answer and notification, and it opens on any
// replica that shares the key (the sessions secret). Opened for another principal, or
// changed in any byte, it is unknown: the same answer as a task that never existed.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TASK_ID_PREFIX = 'gt1.';
/** Far beyond any id the gateway mints; refuses to spend work on garbage. */
const MAX_ID_CHARS = 2048;
const MAC_BYTES = 16;

export interface TaskRef {
  upstream: string;
  /** The upstream's own task id. */
  taskId: string;
}

export interface TaskIds {
  mint(ref: TaskRef, authContext: string): string;
  /** The task behind `id` when `authContext` created it; undefined otherwise. */
  open(id: unknown, authContext: string): TaskRef | undefined;
}

export function createTaskIds(key: Buffer): TaskIds {
  const mac = (ref: TaskRef, authContext: string): Buffer =>
    createHmac('sha256', key).update(`${ref.upstream}\u0000${ref.taskId}\u0000${authContext}`, 'utf8').digest().subarray(0, MAC_BYTES);
  const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');
  const text = (s: string): string | undefined => (/^[A-Za-z0-9_-]+$/.test(s) ? Buffer.from(s, 'base64url').toString('utf8') : undefined);
  return {
    mint(ref, authContext) {
      return `${TASK_ID_PREFIX}${b64(ref.upstream)}.${b64(ref.taskId)}.${mac(ref, authContext).toString('base64url')}`;
    },
    open(id, authContext) {
      if (typeof id !== 'string' || id.length > MAX_ID_CHARS || !id.startsWith(TASK_ID_PREFIX)) return undefined;
      const parts = id.slice(TASK_ID_PREFIX.length).split('.');
      if (parts.length !== 3) return undefined;
      const upstream = text(parts[0]!);
      const taskId = text(parts[1]!);
      const given = /^[A-Za-z0-9_-]+$/.test(parts[2]!) ? Buffer.from(parts[2]!, 'base64url') : undefined;
      if (!upstream || !taskId || given?.length !== MAC_BYTES) return undefined;
      const ref = { upstream, taskId };
      return timingSafeEqual(given, mac(ref, authContext)) ? ref : undefined;
    },
  };
}
