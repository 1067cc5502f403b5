// One page of a merged (and perhaps filtered) list, behind the gateway's own signed cursors
// (cursor.ts cursorWindow). Pure: the catalog hands in the view it serves now and what its
// cursors name (the list kind, and the virtual server whose list it is), so that a cursor
// from another list or endpoint is refused (MCP 2026-07-28, server/utilities/pagination).
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { cursorWindow } from './cursor.ts';
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
  cursorKind: string;
  pageSize: number;
  cursor: unknown;
  ttlMs: number;
}

/** `kept`: the positions a per-caller filter keeps; unset, the view is the list. */
export function pageOf(view: MergedView, kept: FilteredView | undefined, req: PageRequest): Result<ListPage, GatewayError> {
  const w = cursorWindow(req.secret, req.cursorKind, kept ? kept.version : view.version, kept ? kept.indices.length : view.items.length, req.pageSize, req.cursor);
  if (!w.ok) return err({ kind: 'invalid_params', message: `Invalid cursor: ${w.error}` });
  const { offset, end, nextCursor } = w.value;
  return ok({
    items: kept ? itemsAt(view, kept.indices, offset, end - offset) : view.items.slice(offset, end),
    ttlMs: req.ttlMs,
    // A list filtered per caller is that caller's alone: never shareable (MCP 2026-07-28, server/utilities/caching).
    cacheScope: kept ? 'private' : view.cacheScope,
    ...(nextCursor !== undefined ? { nextCursor } : {}),
  });
}
