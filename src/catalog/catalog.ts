// The merged catalog: fans a list out to every upstream concurrently, merges the parts
// (merge.ts), paginates with the gateway's own signed cursors, and resolves exposed names
// back to their upstream. One slow or dead upstream never holds the others: the fan-out
// waits at most `listDeadlineMs`, then answers with what it has (MCP 2026-07-28, server/tools).
import type { GatewayConfig } from '../config/types.ts';
import type { HeaderParam } from '../headers/annotations.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { cursorWindow } from './cursor.ts';
import type { CacheScope, ItemOrigin } from './merge.ts';
import { LIST_METHODS, type ListKind } from '../protocol/list-kinds.ts';
import { PartCache, type Part } from './part-cache.ts';
import { resourceDirectory, routeResourceUri, type ExposedRoute } from './resource-routing.ts';
import { WarnOnce } from './warn-once.ts';
import { buildMergedView, viewKey, type MergedView, type MissingPart } from './merged-view.ts';
import { ViewCache, type CatalogCacheName } from './view-cache.ts';
import { FilteredViews, itemsAt, type ListFilter } from './filtered-views.ts';
import { ListCircuit, type OpenList } from './list-circuit.ts';
import { isUnsupportedList, partWithin, type PartWithinDeps } from './part-within.ts';
import { OverlayStates, type AppliedOverlay } from '../overlays/overlay-states.ts';

export type { MergedView } from './merged-view.ts';
export type { ListFilter } from './filtered-views.ts';
export type { CatalogCacheName } from './view-cache.ts';
export type { OpenList } from './list-circuit.ts';
export { describeError } from './part-within.ts';

/** How often an unknown name may make the catalog re-fetch every upstream's list. MCP 2026-07-28, server/utilities/caching
 * allows re-fetching early on an unexpected unknown name; unbounded, every unknown (or, with
 * policy, denied) name a client sends would cost one list request to every upstream. */
export const MISS_REFRESH_INTERVAL_MS = 5_000;

export interface ListPage {
  items: JsonObject[];
  nextCursor?: string;
  ttlMs: number;
  cacheScope: CacheScope;
}

export interface Resolved {
  upstream: Upstream;
  name: string;
  item: JsonObject;
  headerParams: readonly HeaderParam[];
  /** Set when an overlay shapes this item (the item and headerParams are then the client's view). */
  overlay?: AppliedOverlay;
}

/** What the caches hold and have done (metrics, tests). */
export interface CatalogStats {
  merges: number;
  filterPasses: number;
  /** Bytes charged to each per-caller budget. */
  bytes: Record<CatalogCacheName, number>;
}

export class Catalog {
  private readonly cache: PartCache;
  private byName: Map<string, Upstream>;
  // Everything kept per caller is bounded by bytes (limits.catalogCacheBytes): half for private
  // upstream lists, a quarter for the merged views built from them (their own copies and
  // maps), an eighth each for filtered views and the caller -> view pointers. Public parts and
  // the views built only from them are shared by every caller and not charged.
  private readonly views: ViewCache;
  private readonly filters: FilteredViews;
  private readonly circuit: ListCircuit;
  private readonly parts: PartWithinDeps;
  private evictListener: ((cache: CatalogCacheName) => void) | undefined;
  private readonly listeners: ((kind: ListKind) => void)[] = [];
  private readonly warnings: WarnOnce;
  private readonly lastMissRefresh = new Map<ListKind, number>();
  /** The overlays of this catalog's endpoint, applied once per built view (overlays/). */
  readonly overlays: OverlayStates;

  constructor(
    private config: GatewayConfig,
    private upstreams: readonly Upstream[],
    private readonly logger: Logger,
    private readonly cursorSecret: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    this.overlays = new OverlayStates(config.overlays, logger, (kind) => this.changed(kind));
    this.warnings = new WarnOnce(logger);
    const budget = config.limits.catalogCacheBytes;
    const evicted = (cache: CatalogCacheName): void => this.evictListener?.(cache);
    this.views = new ViewCache({ maxPrivateBytes: Math.floor(budget / 4), maxPointerBytes: Math.floor(budget / 8), onEvict: evicted });
    this.circuit = new ListCircuit(config.listRetry, now);
    this.cache = new PartCache(logger, this.warnings, now, {
      maxPrivateBytes: Math.floor(budget / 2),
      onRetire: (part, wasEvicted) => {
        if (wasEvicted) evicted('lists');
        this.views.retire(part.generation);
      },
      onFetch: (upstream, kind, error) => {
        // An upstream without this list (-32601) answers all the same: it contributes nothing.
        if (error !== undefined && !isUnsupportedList(error)) return this.circuit.failed(upstream, kind);
        if (this.circuit.answered(upstream, kind)) logger.info('upstream answers lists again', { upstream, kind });
      },
    });
    this.parts = { cache: this.cache, circuit: this.circuit, deadlineMs: config.listDeadlineMs, afterErrors: config.listRetry.afterErrors, logger };
    this.filters = new FilteredViews(Math.floor(budget / 8), () => evicted('filtered'));
    this.byName = new Map(upstreams.map((u) => [u.name, u]));
    for (const u of upstreams) this.watch(u);
  }

  private watch(u: Upstream): void {
    u.onEvent((ev) => {
      // A connection a config reload replaced may still speak while its last calls finish.
      if (ev.type !== 'list_changed' || this.byName.get(u.name) !== u) return;
      const kinds: ListKind[] = ev.list === 'resources' ? ['resources', 'resourceTemplates'] : [ev.list];
      for (const k of kinds) this.cache.invalidate(u.name, k);
      this.changed(kinds[0]!);
    });
  }

  /** A config reload: the new upstream set and settings. The lists of every upstream that is
   * new, gone or replaced are dropped (all of them when naming changed, every tools and prompts
   * list when the overlays did: their views are rebuilt); the rest stay cached.
   * The caches keep their start-time budgets (limits.catalogCacheBytes is restart-only). */
  reconfigure(config: GatewayConfig, upstreams: readonly Upstream[]): void {
    const renamed = config.separator !== this.config.separator || config.maxNameLength !== this.config.maxNameLength;
    const reshaped = this.overlays.reconfigure(config.overlays);
    const before = this.byName;
    this.config = config;
    this.upstreams = upstreams;
    this.byName = new Map(upstreams.map((u) => [u.name, u]));
    this.parts.deadlineMs = config.listDeadlineMs;
    const names = new Set([...before.keys(), ...this.byName.keys()]);
    for (const name of names) {
      const now = this.byName.get(name);
      if (now !== undefined && now !== before.get(name)) this.watch(now);
      if (reshaped) for (const kind of ['tools', 'prompts'] as const) this.cache.invalidate(name, kind);
      if (!renamed && now === before.get(name)) continue;
      this.circuit.forget(name);
      for (const kind of Object.keys(LIST_METHODS) as ListKind[]) this.cache.invalidate(name, kind);
    }
  }

  /** Told of every per-upstream list lookup: answered from the cache or not (metrics). */
  onCacheLookup(listener: (kind: ListKind, hit: boolean) => void): void {
    this.parts.onLookup = listener;
  }

  /** Upstream lists left out of merged lists since they missed the list deadline or kept failing (/readyz). */
  failingLists(): OpenList[] {
    return this.circuit.list();
  }

  /** Told of every entry dropped to keep a per-caller cache within its byte budget (metrics). */
  onCacheEvict(listener: (cache: CatalogCacheName) => void): void {
    this.evictListener = listener;
  }

  /** Told of every upstream list item left out as nested deeper than limits.maxJsonDepth (metrics). */
  onDeepItems(listener: (count: number) => void): void {
    this.cache.onDeepItems = listener;
  }
  /** Called with the list kind whose merged content may have changed. */
  onChange(listener: (kind: ListKind) => void): void {
    this.listeners.push(listener);
  }

  stats(): CatalogStats {
    const { merged, callers } = this.views.bytes();
    return { merges: this.views.merges, filterPasses: this.filters.passes, bytes: { lists: this.cache.privateBytes(), merged, filtered: this.filters.bytes(), callers } };
  }

  private changed(kind: ListKind): void {
    for (const l of this.listeners) l(kind);
  }

  private offers(u: Upstream, kind: ListKind): boolean {
    const ident = u.identity();
    // Before the first successful probe we do not know: ask, the request will tell.
    return !ident || isJsonObject(ident.capabilities[LIST_METHODS[kind].capability]);
  }

  /** The merged view this caller is served now, with its remaining freshness. */
  async view(kind: ListKind, authContext: string): Promise<MergedView> {
    const { view, ttlMs } = await this.current(kind, authContext);
    return { ...view, ttlMs };
  }

  private async current(kind: ListKind, authContext: string): Promise<{ view: MergedView; ttlMs: number }> {
    const missing: MissingPart[] = [];
    const parts = await Promise.all(this.upstreams.map((u) => (this.offers(u, kind) ? partWithin(this.parts, u, kind, authContext, missing) : undefined)));
    const present = parts.filter((p): p is Part => p !== undefined);
    missing.sort((a, b) => (a.upstream < b.upstream ? -1 : a.upstream > b.upstream ? 1 : 0));
    const key = viewKey(kind, present, missing);
    let view = this.views.get(key);
    if (!view) {
      view = buildMergedView(kind, present, missing, (u) => this.byName.get(u)!.config.prefix, { separator: this.config.separator, maxNameLength: this.config.maxNameLength });
      view = this.overlays.apply(view);
      // Logged once per condition: per caller only where the list is the caller's own.
      const scope = view.cacheScope === 'private' ? `${kind}\u0000${authContext}` : kind;
      this.warnings.report(`renames\u0000${scope}`, 'name changed while merging', view.renames.map((r) => ({ ...r, kind })));
      this.warnings.report(`skipped\u0000${scope}`, 'list item without a usable key left out', view.skipped.map((s) => ({ ...s, kind })));
      this.views.add(key, view);
    }
    this.views.remember(kind, authContext, key);
    return { view, ttlMs: this.ttl(present) };
  }

  /** Remaining freshness of the merged list: the minimum over its parts (README, Protocol eras: bridging). */
  private ttl(parts: readonly Part[]): number {
    const t = this.now();
    return parts.reduce((min, p) => Math.min(min, Math.max(0, p.fetchedAt + p.ttlMs - t)), parts.length ? Number.POSITIVE_INFINITY : 0);
  }

  async page(kind: ListKind, authContext: string, cursor: unknown, filter?: ListFilter): Promise<Result<ListPage, GatewayError>> {
    const { view, ttlMs } = await this.current(kind, authContext);
    // A filter keeps positions into the shared view; without one the view is the list.
    const kept = filter ? this.filters.of(view, filter) : undefined;
    const w = cursorWindow(this.cursorSecret, kind, kept ? kept.version : view.version, kept ? kept.indices.length : view.items.length, this.config.limits.pageSize, cursor);
    if (!w.ok) return err({ kind: 'invalid_params', message: `Invalid cursor: ${w.error}` });
    const { offset, end, nextCursor } = w.value;
    return ok({
      items: kept ? itemsAt(view, kept.indices, offset, end - offset) : view.items.slice(offset, end),
      ttlMs,
      // A list filtered per caller is that caller's alone: never shareable (MCP 2026-07-28, server/utilities/caching).
      cacheScope: filter ? 'private' : view.cacheScope,
      ...(nextCursor !== undefined ? { nextCursor } : {}),
    });
  }

  /** The item behind an exposed name or URI in the current merged view, if any. */
  async item(kind: ListKind, key: string, authContext: string): Promise<{ item: JsonObject; origin: ItemOrigin } | undefined> {
    const view = this.views.last(kind, authContext) ?? (await this.current(kind, authContext)).view;
    const origin = view.index.get(key);
    const item = origin && view.byName.get(key);
    return origin && item ? { item, origin } : undefined;
  }

  /** Exposed tool/prompt name -> upstream. Refreshes on a miss, at most once per
   * MISS_REFRESH_INTERVAL_MS: the upstream's list may have changed without telling us
   * (MCP 2026-07-28, server/utilities/caching: an unexpected unknown name). Synchronous when the last view answers. */
  resolve(kind: 'tools' | 'prompts', exposed: string, authContext: string): Resolved | undefined | Promise<Resolved | undefined> {
    return this.routable(kind, exposed, authContext) ?? this.resolveFetching(kind, exposed, authContext);
  }

  private async resolveFetching(kind: 'tools' | 'prompts', exposed: string, authContext: string): Promise<Resolved | undefined> {
    const found = this.target((await this.current(kind, authContext)).view, exposed);
    if (found) return found;
    const t = this.now();
    if (t - (this.lastMissRefresh.get(kind) ?? Number.NEGATIVE_INFINITY) < MISS_REFRESH_INTERVAL_MS) return undefined;
    this.lastMissRefresh.set(kind, t);
    for (const u of this.upstreams) this.cache.invalidate(u.name, kind);
    return this.lookup(kind, exposed, authContext);
  }

  /** Hot path: the last merged view names this tool and its owner's part is the one the view
   * was built from (no list_changed since). A slow or dead *other* upstream must not hold up
   * a call to a healthy one; an upstream that sends ttlMs 0 must not cost a list per call.
   * Map lookups only: nothing here grows with the size of the catalog. */
  private routable(kind: 'tools' | 'prompts', exposed: string, authContext: string): Resolved | undefined {
    const last = this.views.last(kind, authContext);
    const known = last?.index.get(exposed);
    const current = last && known && this.cache.routable(known.upstream, kind, authContext)?.generation === last.generations.get(known.upstream);
    return current ? this.target(last, exposed) : undefined;
  }

  private async lookup(kind: 'tools' | 'prompts', exposed: string, authContext: string): Promise<Resolved | undefined> {
    return this.routable(kind, exposed, authContext) ?? this.target((await this.current(kind, authContext)).view, exposed);
  }

  private target(view: MergedView, exposed: string): Resolved | undefined {
    const origin = view.index.get(exposed);
    if (!origin) return undefined;
    const upstream = this.byName.get(origin.upstream)!;
    const overlay = view.overlays?.get(exposed);
    return { upstream, name: origin.original, item: view.byName.get(exposed) ?? {}, headerParams: view.headerParams.get(exposed) ?? [], ...(overlay ? { overlay } : {}) };
  }

  /** The route of a uri (resource-routing.ts): undefined when no list or template accounts
   * for it, an error string when the uri itself is refused. */
  async routeResource(uri: string, authContext: string): Promise<Result<ExposedRoute | undefined, string>> {
    const [resources, templates] = await Promise.all([this.current('resources', authContext), this.current('resourceTemplates', authContext)]);
    const withResources = this.upstreams.filter((u) => this.offers(u, 'resources')).map((u) => u.name);
    return routeResourceUri(uri, resourceDirectory(resources.view.index, templates.view.index, withResources));
  }

  /** Whether some caller's current merged list exposes this name (bounds metric labels). */
  exposes(kind: 'tools' | 'prompts', name: string): boolean {
    return this.views.exposes(kind, name);
  }

  /** Drops one upstream's cached list, e.g. after it rejected our Mcp-Param-* headers. */
  invalidate(upstream: string, kind: ListKind): void {
    this.cache.invalidate(upstream, kind);
  }

  upstream(name: string): Upstream | undefined {
    return this.byName.get(name);
  }
}
