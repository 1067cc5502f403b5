// What one caller may see of a merged view, kept as the positions of the kept items (an index
// array into the shared view), never as copies of the items. One filter result serves every
// caller whose filter key is equal: the enforcer keys it on the policy version and on which of
// the policy's principal conditions the caller meets, not on who the caller is, so thousands
// of principals with the same groups cost one pass over the catalog, not thousands.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { JsonObject } from '../protocol/message.ts';
import type { ItemOrigin } from './merge.ts';
import { KEY_FIELD, type MergedView } from './merged-view.ts';

/** Which items one caller sees: `key` names the filter's inputs (policy version, the caller's
 * matched conditions), so equal keys share the filtered result. */
export interface ListFilter {
  key: string;
  keep(item: JsonObject, origin: ItemOrigin): boolean;
}

export interface FilteredView {
  /** Positions in the view's items, ascending. */
  indices: Uint32Array;
  /** Version of the filtered list, for its cursors: changes whenever what the caller sees changes. */
  version: string;
}

/** Per entry, besides the index array and its key: the LRU's own entry and the version. */
const ENTRY_OVERHEAD_BYTES = 128;
const VERSION_HEX_CHARS = 16;

export class FilteredViews {
  private readonly cache: LRUCache<string, FilteredView>;
  /** Filter passes over a whole view since start (tests). */
  passes = 0;

  constructor(maxBytes: number, onEvict?: () => void) {
    this.cache = new LRUCache<string, FilteredView>({
      maxSize: maxBytes,
      sizeCalculation: (v, k) => v.indices.byteLength + k.length + ENTRY_OVERHEAD_BYTES,
      ...(onEvict ? { dispose: (_v: FilteredView, _k: string, reason: LRUCache.DisposeReason) => reason === 'evict' && onEvict() } : {}),
    });
  }

  of(view: MergedView, filter: ListFilter): FilteredView {
    const key = `${view.id}\u0000${filter.key}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    this.passes++;
    const field = KEY_FIELD[view.kind];
    const kept: number[] = [];
    view.items.forEach((item, i) => {
      const origin = view.index.get(item[field] as string);
      if (origin !== undefined && filter.keep(item, origin)) kept.push(i);
    });
    const indices = Uint32Array.from(kept);
    // The view's version names its content; the positions name the subset.
    const version = createHash('sha256').update(view.version).update(new Uint8Array(indices.buffer)).digest('hex').slice(0, VERSION_HEX_CHARS);
    const out = { indices, version };
    this.cache.set(key, out);
    return out;
  }

  bytes(): number {
    return this.cache.calculatedSize;
  }
}

/** The items at `indices[offset .. offset + size)`. */
export function itemsAt(view: MergedView, indices: Uint32Array, offset: number, size: number): JsonObject[] {
  const out: JsonObject[] = [];
  const end = Math.min(indices.length, offset + size);
  for (let i = offset; i < end; i++) out.push(view.items[indices[i]!]!);
  return out;
}
