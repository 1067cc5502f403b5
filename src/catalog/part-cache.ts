// Fetches and caches one list kind of one upstream: every upstream page walked, ttlMs and
// cacheScope honoured (MCP 2026-07-28, server/utilities/caching), concurrent fetches shared, and the last good copy
// served for a while when a refresh fails (MCP 2026-07-28, server/utilities/caching: stale data MAY be served when a re-fetch
// fails). `private` parts are keyed by the caller's authorization context, never shared.
// Public parts (one per upstream and list kind, whoever asked) are held as long as they are
// current; private ones, of which there may be one per caller, share a byte budget.
import { LRUCache } from 'lru-cache';
import type { HeaderParam } from '../headers/annotations.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { CacheScope } from './merge.ts';
import { LIST_METHODS, type ListKind } from '../protocol/list-kinds.ts';
import { dropDeepItems } from './deep-items.ts';
import { filterTools } from './tool-filter.ts';
import { upstreamTasks } from '../tasks/task-shapes.ts';
import { jsonBytes } from './json-bytes.ts';
import type { WarnOnce } from './warn-once.ts';

export interface Part {
  upstream: string;
  items: JsonObject[];
  ttlMs: number;
  cacheScope: CacheScope;
  fetchedAt: number;
  /** Bumped on every successful fetch; merged views are memoised on it. */
  generation: number;
  /** Set by list_changed (or a header rejection): the upstream said this copy is wrong. */
  invalidated?: boolean;
  headerParams?: Map<string, readonly HeaderParam[]>;
  /** Size of the items as JSON text: what the byte budgets count. */
  bytes: number;
}

/** Budget of the private parts when none is given (tests). */
export const DEFAULT_PRIVATE_PART_BYTES = 128 * 1024 * 1024;

/** How long past its TTL a part may still stand in for an upstream whose refresh failed. */
export const STALE_IF_ERROR_MS = 5 * 60_000;
const MAX_PAGES = 100;

let generations = 0;

/** `onDeepItems` hears of every fetch that left items out as nested too deep (metrics). */
export async function fetchPart(upstream: Upstream, kind: ListKind, now: number, warnings: WarnOnce, onDeepItems?: (count: number) => void, authContext?: string): Promise<Result<Part, GatewayError>> {
  const { method, field } = LIST_METHODS[kind];
  const items: JsonObject[] = [];
  let cursor: string | undefined;
  let ttlMs = Number.POSITIVE_INFINITY;
  let scope: CacheScope = 'public';
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await upstream.request({ method, params: cursor === undefined ? {} : { cursor }, clientCapabilities: {}, ...(authContext !== undefined ? { principal: { authContext } } : {}) });
    if (!res.ok) return res;
    const list = res.value[field];
    if (!Array.isArray(list)) {
      return err({ kind: 'upstream_unavailable', upstream: upstream.name, reason: `${method} result has no "${field}" array` });
    }
    for (const it of list) if (isJsonObject(it)) items.push(it);
    // Legacy upstreams send no hints: the configured listTtl stands in (README, Protocol eras: bridging).
    const pageTtl = typeof res.value.ttlMs === 'number' ? Math.max(0, res.value.ttlMs) : upstream.config.listTtlMs;
    ttlMs = Math.min(ttlMs, pageTtl);
    if (res.value.cacheScope === 'private') scope = 'private';
    const next = res.value.nextCursor;
    if (typeof next !== 'string') break;
    cursor = next;
  }
  // First, before anything walks them (deep-items.ts).
  const bounded = dropDeepItems(items, upstream.config.limits.maxJsonDepth);
  if (bounded.dropped.length > 0) onDeepItems?.(bounded.dropped.length);
  const part: Part = { upstream: upstream.name, items: bounded.items, ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0, cacheScope: scope, fetchedAt: now, generation: ++generations, bytes: 0 };
  if (kind !== 'tools') {
    warnings.report(`deep\u0000${upstream.name}\u0000${kind}`, `item left out of ${method}`, bounded.dropped.map((d) => ({ upstream: upstream.name, item: d.item, reason: d.reason })));
  } else {
    const filtered = filterTools(bounded.items, upstreamTasks(upstream.status().era, upstream.identity()) !== undefined);
    const deep = bounded.dropped.map((d) => ({ upstream: upstream.name, tool: d.item, reason: d.reason }));
    const dropped = [...deep, ...filtered.dropped.map((d) => ({ upstream: upstream.name, tool: d.tool, reason: d.reason }))];
    warnings.report(`dropped\u0000${upstream.name}`, 'tool left out of tools/list', dropped);
    part.items = filtered.tools;
    part.headerParams = filtered.headerParams;
  }
  part.bytes = jsonBytes(part.items);
  return ok(part);
}

export interface PartCacheOptions {
  /** Most bytes (as JSON) of private parts kept; the least recently used go first. */
  maxPrivateBytes?: number;
  /** Told when a part leaves the cache: replaced by a newer fetch, or (`evicted`) dropped to
   * stay within the budget. Views built from it are dropped with it. */
  onRetire?: (part: Part, evicted: boolean) => void;
  /** Told of the outcome of every fetch (once per fetch, however many callers wait on it):
   * undefined when it answered, else its error. */
  onFetch?: (upstream: string, kind: ListKind, error: GatewayError | undefined) => void;
}

export class PartCache {
  /** Keyed by upstream and kind: as many as the config has upstreams, whoever asks. */
  private readonly shared = new Map<string, Part>();
  // Private parts are per authorization context: bounded by bytes; evicting one only costs a refetch.
  private readonly privateParts: LRUCache<string, Part>;
  private readonly inflight = new Map<string, Promise<Result<Part, GatewayError>>>();
  /** Invalidations per upstream list, so a fetch can tell that a change overtook it. */
  private readonly epochs = new Map<string, number>();
  /** Told how many list items a fetch left out as nested too deep (metrics). */
  onDeepItems: ((count: number) => void) | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly warnings: WarnOnce,
    private readonly now: () => number,
    opts: PartCacheOptions = {},
  ) {
    const maxSize = opts.maxPrivateBytes ?? DEFAULT_PRIVATE_PART_BYTES;
    this.retire = opts.onRetire ?? (() => undefined);
    this.fetched = opts.onFetch ?? (() => undefined);
    this.privateParts = new LRUCache<string, Part>({
      maxSize,
      sizeCalculation: (p) => Math.max(1, p.bytes),
      dispose: (p, _k, reason) => this.retire(p, reason === 'evict'),
    });
  }

  private readonly retire: (part: Part, evicted: boolean) => void;
  private readonly fetched: (upstream: string, kind: ListKind, error: GatewayError | undefined) => void;

  private cached(upstream: string, kind: ListKind, authContext: string): Part | undefined {
    const list = `${upstream}\u0000${kind}`;
    return this.shared.get(list) ?? this.privateParts.get(`${list}\u0000${authContext}`);
  }

  /** Bytes (as JSON) of the private parts held now. */
  privateBytes(): number {
    return this.privateParts.calculatedSize;
  }

  /** The freshest usable part, fetching when stale. A failure falls back to a stale copy. */
  async get(upstream: Upstream, kind: ListKind, authContext: string): Promise<Result<Part, GatewayError>> {
    const hit = this.cached(upstream.name, kind, authContext);
    const t = this.now();
    if (hit && t < hit.fetchedAt + hit.ttlMs) return ok(hit);
    const list = `${upstream.name}\u0000${kind}`;
    const flightKey = `${list}\u0000${authContext}`;
    let flight = this.inflight.get(flightKey);
    if (!flight) {
      const epoch = this.epochs.get(list) ?? 0;
      const started: Promise<Result<Part, GatewayError>> = fetchPart(upstream, kind, t, this.warnings, this.onDeepItems, authContext).then((res) => {
        if (this.inflight.get(flightKey) === started) this.inflight.delete(flightKey);
        this.fetched(upstream.name, kind, res.ok ? undefined : res.error);
        // A list_changed that arrived while this fetch was under way may describe a newer list
        // than the one it got: hand it to whoever waits, but do not cache it as fresh.
        if (res.ok && (this.epochs.get(list) ?? 0) === epoch) this.store(upstream.name, kind, authContext, res.value);
        return res;
      });
      flight = started;
      this.inflight.set(flightKey, flight);
    }
    const res = await flight;
    if (res.ok) return res;
    if (hit && t < hit.fetchedAt + hit.ttlMs + STALE_IF_ERROR_MS) {
      this.logger.warn('serving last good list of a failing upstream', { upstream: upstream.name, kind, error: res.error.kind });
      return ok(hit);
    }
    return res;
  }

  /** A fresh part replaces this context's copy and the shared one, never other contexts'
   * private copies: a public part shadows them anyway (cached() looks there first). */
  private store(upstream: string, kind: ListKind, authContext: string, part: Part): void {
    const list = `${upstream}\u0000${kind}`;
    const own = `${list}\u0000${authContext}`;
    const replaced = this.shared.get(list);
    if (replaced) {
      this.shared.delete(list);
      this.retire(replaced, false);
    }
    this.privateParts.delete(own);
    if (part.cacheScope === 'public') this.shared.set(list, part);
    else this.privateParts.set(own, part);
  }

  /** The cached part, fresh or not, unless the upstream said it changed. Routing a call by
   * the most recently obtained list is right even past its TTL (SEP-2243: use the most
   * recently obtained inputSchema); a TTL is a hint for serving lists, not for routing. */
  routable(upstream: string, kind: ListKind, authContext: string): Part | undefined {
    const hit = this.cached(upstream, kind, authContext);
    return hit && !hit.invalidated ? hit : undefined;
  }

  /** The cached part if it is still fresh, without fetching or waiting (the hot path). */
  fresh(upstream: string, kind: ListKind, authContext: string): Part | undefined {
    const hit = this.cached(upstream, kind, authContext);
    return hit && this.now() < hit.fetchedAt + hit.ttlMs ? hit : undefined;
  }

  /** A copy usable without waiting: fresh, or stale within the stale-if-error window. */
  lastGood(upstream: string, kind: ListKind, authContext: string): Part | undefined {
    const hit = this.cached(upstream, kind, authContext);
    return hit && this.now() < hit.fetchedAt + hit.ttlMs + STALE_IF_ERROR_MS ? hit : undefined;
  }

  /** Makes every cached copy of this upstream's list stale (list_changed), and makes the next
   * reader start a new fetch rather than join one that began before the change. */
  invalidate(upstream: string, kind: ListKind): void {
    const list = `${upstream}\u0000${kind}`;
    this.epochs.set(list, (this.epochs.get(list) ?? 0) + 1);
    for (const k of this.inflight.keys()) if (k.startsWith(`${list}\u0000`)) this.inflight.delete(k);
    const stale = (part: Part): void => {
      part.ttlMs = Math.min(part.ttlMs, Math.max(0, this.now() - part.fetchedAt - 1));
      part.invalidated = true;
    };
    const own = this.shared.get(list);
    if (own) stale(own);
    for (const [k, part] of this.privateParts.entries()) if (k.startsWith(`${list}\u0000`)) stale(part);
  }
}
