// Where merged views live between requests. A view is keyed by the parts it was built from
// (merged-view.ts viewKey), not by who asked: every caller served by the same public parts
// gets the same object, so a new principal costs a map entry, not a merge and a copy of the
// catalog. Views with a private part are some caller's own and share a byte budget; each
// caller keeps only a pointer (the key) to the view it was last served, which is what routes
// its calls without a list request (catalog.ts routable()).
import { LRUCache } from 'lru-cache';
import type { ListKind } from '../protocol/list-kinds.ts';
import type { MergedView } from './merged-view.ts';

/** Views built from public parts only: one current per list kind, a few older while callers move on. */
const SHARED_VIEWS = 16;

/** Per pointer, besides its two strings: the LRU's own entry. */
const POINTER_OVERHEAD_BYTES = 96;

export type CatalogCacheName = 'lists' | 'merged' | 'filtered' | 'callers';

export interface ViewCacheOptions {
  /** Most bytes of views holding a private part. */
  maxPrivateBytes: number;
  /** Most bytes of caller -> view pointers. */
  maxPointerBytes: number;
  /** Told when an entry is evicted to stay within its budget (metrics). */
  onEvict?: (cache: CatalogCacheName) => void;
}

export class ViewCache {
  private readonly shared: LRUCache<string, MergedView>;
  private readonly own: LRUCache<string, MergedView>;
  private readonly pointers: LRUCache<string, string>;
  /** Part generation -> keys of the held views built from it. */
  private readonly byGeneration = new Map<number, Set<string>>();
  /** kind + exposed name -> how many held views expose it (tools and prompts). */
  private readonly exposed = new Map<string, number>();
  /** Merges done since start: what sharing saves shows here (tests, metrics). */
  merges = 0;

  constructor(opts: ViewCacheOptions) {
    const evicted = (cache: CatalogCacheName) => (reason: LRUCache.DisposeReason) => {
      if (reason === 'evict') opts.onEvict?.(cache);
    };
    const mergedEvicted = evicted('merged');
    const dispose = (view: MergedView, key: string, reason: LRUCache.DisposeReason): void => {
      this.count(view, -1);
      this.link(view, key, false);
      mergedEvicted(reason);
    };
    this.shared = new LRUCache<string, MergedView>({ max: SHARED_VIEWS, dispose });
    this.own = new LRUCache<string, MergedView>({ maxSize: opts.maxPrivateBytes, sizeCalculation: (v) => Math.max(1, v.bytes), dispose });
    const pointerEvicted = evicted('callers');
    this.pointers = new LRUCache<string, string>({
      maxSize: opts.maxPointerBytes,
      sizeCalculation: (v, k) => v.length + k.length + POINTER_OVERHEAD_BYTES,
      dispose: (_v, _k, reason) => pointerEvicted(reason),
    });
  }

  get(key: string): MergedView | undefined {
    return this.shared.get(key) ?? this.own.get(key);
  }

  /** Keeps a view just built; `merges` counts it. */
  add(key: string, view: MergedView): void {
    this.merges++;
    const store = view.cacheScope === 'public' ? this.shared : this.own;
    if (store.has(key)) store.delete(key);
    store.set(key, view);
    // An entry over the budget is not kept at all: only count what is held.
    if (store.peek(key) !== view) return;
    this.count(view, 1);
    this.link(view, key, true);
  }

  /** A part left the part cache: the views built from it go too, so that no view keeps a
   * dropped part's items alive outside the budget, and none outlives the list it shows. */
  retire(generation: number): void {
    const keys = this.byGeneration.get(generation);
    if (!keys) return;
    for (const key of [...keys]) {
      this.shared.delete(key);
      this.own.delete(key);
    }
  }

  private link(view: MergedView, key: string, on: boolean): void {
    for (const generation of view.generations.values()) {
      let keys = this.byGeneration.get(generation);
      if (on) {
        if (!keys) this.byGeneration.set(generation, (keys = new Set()));
        keys.add(key);
      } else if (keys) {
        keys.delete(key);
        if (keys.size === 0) this.byGeneration.delete(generation);
      }
    }
  }

  /** The view this caller was last served, if still held. */
  last(kind: ListKind, authContext: string): MergedView | undefined {
    const key = this.pointers.get(`${kind}\u0000${authContext}`);
    return key === undefined ? undefined : this.get(key);
  }

  remember(kind: ListKind, authContext: string, key: string): void {
    const at = `${kind}\u0000${authContext}`;
    if (this.pointers.peek(at) !== key) this.pointers.set(at, key);
  }

  /** Whether some held view exposes this name: O(1), whatever the number of callers. */
  exposes(kind: 'tools' | 'prompts', name: string): boolean {
    return (this.exposed.get(`${kind}\u0000${name}`) ?? 0) > 0;
  }

  /** Bytes held by views with a private part and by pointers. */
  bytes(): { merged: number; callers: number } {
    return { merged: this.own.calculatedSize, callers: this.pointers.calculatedSize };
  }

  private count(view: MergedView, delta: 1 | -1): void {
    if (view.kind !== 'tools' && view.kind !== 'prompts') return;
    for (const name of view.index.keys()) {
      const k = `${view.kind}\u0000${name}`;
      const n = (this.exposed.get(k) ?? 0) + delta;
      if (n > 0) this.exposed.set(k, n);
      else this.exposed.delete(k);
    }
  }
}
