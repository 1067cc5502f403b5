// One page of a merged (and perhaps filtered) list, behind the gateway's own signed cursors
// (cursor.ts). Pure: the catalog hands in the view it serves now. A cursor names the list it
// came from and the version it was cut from; one from another list or an older version is
// refused, so a client starts again instead of skipping or repeating items
// (MCP 2026-07-28, server/utilities/pagination).
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { itemsAt, type FilteredView } from './filtered-views.ts';
import type { CacheScope } from './merge.ts';
import type { MergedView } from './merged-view.ts';

export interface ListPage {
  items: JsonObject[];
  nextCursor?: string;
  ttlMs: number;
  cacheScope: CacheScope;
}

export interface PageRequest {
  secret: Buffer;
  /** What the cursor names: the list kind, and the server whose list it is. */
  cursorKind: string;
  pageSize: number;
  cursor: unknown;
  ttlMs: number;
}

/** `kept`: the positions a per-caller filter keeps; unset, the view is the list. */
export function pageOf(view: MergedView, kept: FilteredView | undefined, req: PageRequest): Result<ListPage, GatewayError> {
  const version = kept ? kept.version : view.version;
  const total = kept ? kept.indices.length : view.items.length;
  let offset = 0;
  if (req.cursor !== undefined) {
    if (typeof req.cursor !== 'string') return err({ kind: 'invalid_params', message: 'Invalid cursor: must be a string' });
    const pos = decodeCursor(req.secret, req.cursor, req.cursorKind);
    if (!pos.ok) return err({ kind: 'invalid_params', message: `Invalid cursor: ${pos.error}` });
    if (pos.value.version !== version) return err({ kind: 'invalid_params', message: 'Invalid cursor: the list changed; start again without a cursor' });
    offset = pos.value.offset;
  }
  if (offset > total) return err({ kind: 'invalid_params', message: 'Invalid cursor: past the end of the list' });
  const end = offset + req.pageSize;
  return ok({
    items: kept ? itemsAt(view, kept.indices, offset, req.pageSize) : view.items.slice(offset, end),
    ttlMs: req.ttlMs,
    // A list filtered per caller is that caller's alone: never shareable (MCP 2026-07-28, server/utilities/caching).
    cacheScope: kept ? 'private' : view.cacheScope,
    ...(end < total ? { nextCursor: encodeCursor(req.secret, { kind: req.cursorKind, offset: end, version }) } : {}),
  });
}
