// The merged catalog: fans a list out to every upstream concurrently, merges the parts
// (merge.ts), paginates with the gateway's own signed cursors, and resolves exposed names
// back to their upstream. One slow or dead upstream never holds the others: the fan-out
// waits at most `listDeadlineMs`, then answers with what it has (MCP 2026-07-28, server/tools).
import type { GatewayConfig } from '../config/types.ts';
import type { HeaderParam } from '../headers/annotations.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import type { Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { pageOf, type ListPage } from './list-page.ts';
import type { ItemOrigin } from './merge.ts';
import type { PartCache, Part } from './part-cache.ts';
import { SharedParts } from './shared-parts.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import { resourceDirectory, routeResourceUri, type ExposedRoute } from './resource-routing.ts';
import { buildMergedView, viewKey, type MergedView, type MissingPart } from './merged-view.ts';
import { ViewCache, type CatalogCacheName } from './view-cache.ts';
import { FilteredViews, type ListFilter } from './filtered-views.ts';
import type { OpenList } from './list-circuit.ts';
import { offersList, partWithin } from './part-within.ts';
import type { ServerScope } from '../servers/server-view.ts';
import { OverlayStates, type AppliedOverlay } from '../overlays/overlay-states.ts';
import { warmLists } from './list-warm.ts';

export type { MergedView } from './merged-view.ts';
export type { ListFilter } from './filtered-views.ts';
export type { CatalogCacheName } from './view-cache.ts';

/** How often an unknown name may make the catalog re-fetch every upstream's list (MCP 2026-07-28, server/utilities/caching
 * allows it early on an unexpected unknown name); unbounded, every unknown or denied name would cost a list of every upstream. */
export const MISS_REFRESH_INTERVAL_MS = 5_000;

export interface Resolved {
  upstream: Upstream;
  name: string;
  item: JsonObject;
  headerParams: readonly HeaderParam[];
  /** The name policy judges, when it is not the exposed one (merge.ts ItemOrigin). */
  policyName?: string;
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
  // upstream lists (shared-parts.ts), a quarter for the merged views built from them (their own
  // copies and maps), an eighth each for filtered views and the caller -> view pointers. Public
  // parts and the views built only from them are shared by every caller and not charged.
  // Each virtual server's catalog has view budgets of the same size (README, Virtual servers).
  private views: ViewCache;
  private readonly filters: FilteredViews;
  private readonly shared: SharedParts;
  private readonly listeners: ((kind: ListKind) => void)[] = [];
  private readonly lastMissRefresh = new Map<ListKind, number>();
  /** A server's catalog: version of the public view last served per kind (announce). */
  private readonly served = new Map<ListKind, string | undefined>();
  /** The default catalog: the servers' catalogs it tells of upstream list changes (serve). */
  private servers: readonly Catalog[] = [];
  /** The overlays of this catalog's endpoint (a server's own, then the gateway-wide ones for the items those do not name), applied once per built view. */
  readonly overlays: OverlayStates;

  constructor(
    private config: GatewayConfig,
    private upstreams: readonly Upstream[],
    private readonly logger: Logger,
    private readonly cursorSecret: Buffer,
    private readonly now: () => number = Date.now,
    /** A virtual server's catalog: the default one's parts, the server's naming and selection. */
    private readonly within?: { shared: SharedParts; scope: ServerScope },
  ) {
    this.overlays = within ? new OverlayStates(within.scope.overlays, logger, (kind) => this.changed(kind), config.overlays, within.scope.name) : new OverlayStates(config.overlays, logger, (kind) => this.changed(kind));
    const shared = (this.shared = within?.shared ?? new SharedParts(config, logger, now));
    this.cache = shared.cache;
    this.views = this.newViews();
    this.filters = new FilteredViews(Math.floor(config.limits.catalogCacheBytes / 8), () => shared.evicted('filtered'));
    shared.onRetire((generation) => this.views.retire(generation));
    this.byName = new Map(upstreams.map((u) => [u.name, u]));
    // The default catalog alone listens: it marks the shared parts stale, then asks the servers'.
    if (!within) for (const u of upstreams) this.watch(u);
  }

  private newViews(): ViewCache {
    const b = this.config.limits.catalogCacheBytes;
    return new ViewCache({ maxPrivateBytes: Math.floor(b / 4), maxPointerBytes: Math.floor(b / 8), onEvict: (cache) => this.shared.evicted(cache) });
  }

  private watch(u: Upstream): void {
    u.onEvent((ev) => {
      // A connection a config reload replaced may still speak while its last calls finish.
      if (this.byName.get(u.name) !== u) return;
      if (ev.type === 'state' && ev.state === 'up' && this.config.identity === undefined) warmLists(this.cache, u, this.logger);
      if (ev.type !== 'list_changed') return;
      const kinds: ListKind[] = ev.list === 'resources' ? ['resources', 'resourceTemplates'] : [ev.list];
      for (const k of kinds) this.cache.invalidate(u.name, k);
      this.changed(kinds[0]!);
      const failed = (s: Catalog) => (e: unknown): void => this.logger.error("cannot tell a server's listeners its list changed", { server: s.within?.scope.name, error: (e as Error).message });
      for (const s of this.servers) if (s.byName.get(u.name) === u) s.announce(kinds).catch(failed(s));
    });
  }

  /** A config reload. The default catalog drops the shared lists of every upstream new, gone or
   * replaced (all when naming changed, tools and prompts when overlays did); a server's takes its
   * upstreams and scope and drops its views. Budgets stay (catalogCacheBytes is restart-only). */
  reconfigure(config: GatewayConfig, upstreams: readonly Upstream[], scope?: ServerScope): void {
    const renamed = config.separator !== this.config.separator || config.maxNameLength !== this.config.maxNameLength;
    const before = this.byName;
    [this.config, this.upstreams, this.byName] = [config, upstreams, new Map(upstreams.map((u) => [u.name, u]))];
    if (this.within) {
      if (scope) this.within.scope = scope;
      this.overlays.reconfigure(this.within.scope.overlays, config.overlays); // its views are all rebuilt below
      this.views = this.newViews();
      return;
    }
    const reshaped = this.overlays.reconfigure(config.overlays);
    const dropped = new Set<string>();
    for (const name of new Set([...before.keys(), ...this.byName.keys()])) {
      const now = this.byName.get(name);
      if (now !== undefined && now !== before.get(name)) this.watch(now);
      if (renamed || now !== before.get(name)) dropped.add(name);
      else if (reshaped) for (const kind of ['tools', 'prompts'] as const) this.cache.invalidate(name, kind);
    }
    this.shared.reconfigure(config, dropped);
  }

  /** A server's catalog over this one's parts (servers/server-view.ts); told of list changes once served. */
  forServer(upstreams: readonly Upstream[], scope: ServerScope): Catalog {
    return new Catalog(this.config, upstreams, this.logger, this.cursorSecret, this.now, { shared: this.shared, scope });
  }

  /** The servers' catalogs in service now (at start and after each config reload). */
  serve(servers: readonly Catalog[]): void {
    this.servers = servers;
  }

  /** A server is told of a change only when what it serves changed (its selection may leave the
   * items out), judged on the public view it last served; a private one is told always. */
  private async announce(kinds: readonly ListKind[]): Promise<void> {
    const version = (k: ListKind): Promise<string | undefined> => this.current(k, '').then((c) => (c.view.cacheScope === 'public' ? c.view.version : undefined), () => undefined);
    for (const k of kinds) {
      const before = this.served.get(k);
      if (before === undefined || (await version(k)) !== before) return this.changed(kinds[0]!);
    }
  }

  /** Metrics: each upstream list lookup (cached or not), each entry evicted to keep a per-caller
   * budget, each upstream list item left out as nested deeper than limits.maxJsonDepth. */
  measure(m: { lookup(kind: ListKind, hit: boolean): void; evicted(cache: CatalogCacheName): void; deepItems(count: number): void }): void {
    this.shared.within.onLookup = m.lookup;
    this.shared.evicted = m.evicted;
    this.cache.onDeepItems = m.deepItems;
  }

  /** Upstream lists left out of merged lists since they missed the list deadline or kept failing (/readyz). */
  failingLists(): OpenList[] {
    return this.shared.circuit.list();
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

  /** The merged view this caller is served now, with its remaining freshness. */
  async view(kind: ListKind, authContext: string): Promise<MergedView> {
    const { view, ttlMs } = await this.current(kind, authContext);
    return { ...view, ttlMs };
  }

  private async current(kind: ListKind, authContext: string): Promise<{ view: MergedView; ttlMs: number }> {
    const missing: MissingPart[] = [];
    const parts = await Promise.all(this.upstreams.map((u) => (offersList(u, kind) ? partWithin(this.shared.within, u, kind, authContext, missing) : undefined)));
    const present = parts.filter((p): p is Part => p !== undefined);
    missing.sort((a, b) => (a.upstream < b.upstream ? -1 : a.upstream > b.upstream ? 1 : 0));
    const key = viewKey(kind, present, missing);
    let view = this.views.get(key);
    if (!view) {
      const server = this.within?.scope;
      view = buildMergedView(kind, present, missing, server ? server.prefixOf : (u) => this.byName.get(u)!.config.prefix, { separator: this.config.separator, maxNameLength: this.config.maxNameLength }, server?.shape);
      view = this.overlays.apply(view);
      // Logged once per condition: per caller only where the list is the caller's own.
      const scope = view.cacheScope === 'private' ? `${kind}\u0000${authContext}` : kind;
      this.shared.warnings.report(`renames\u0000${scope}`, 'name changed while merging', view.renames.map((r) => ({ ...r, kind })));
      this.shared.warnings.report(`skipped\u0000${scope}`, 'list item without a usable key left out', view.skipped.map((s) => ({ ...s, kind })));
      this.views.add(key, view);
    }
    this.views.remember(kind, authContext, key);
    if (this.within) this.served.set(kind, view.cacheScope === 'public' ? view.version : undefined);
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
    return pageOf(view, filter ? this.filters.of(view, filter) : undefined, { secret: this.cursorSecret, cursorKind: this.cursorKind(kind), pageSize: this.config.limits.pageSize, cursor, ttlMs });
  }

  /** A server's cursors name it: one is refused on any other endpoint's lists. */
  private cursorKind(kind: ListKind): string {
    return this.within ? `${this.within.scope.name}/${kind}` : kind;
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
    const policy = origin.policyName === undefined ? {} : { policyName: origin.policyName };
    return { upstream, name: origin.original, item: view.byName.get(exposed) ?? {}, headerParams: view.headerParams.get(exposed) ?? [], ...policy, ...(overlay ? { overlay } : {}) };
  }

  /** The route of a uri (resource-routing.ts): undefined when no list or template accounts
   * for it, an error string when the uri itself is refused. */
  async routeResource(uri: string, authContext: string): Promise<Result<ExposedRoute | undefined, string>> {
    const [resources, templates] = await Promise.all([this.current('resources', authContext), this.current('resourceTemplates', authContext)]);
    const withResources = this.upstreams.filter((u) => offersList(u, 'resources')).map((u) => u.name);
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
