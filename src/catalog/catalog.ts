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
import { decodeCursor, encodeCursor, listVersion, paginate } from './cursor.ts';
import { LRUCache } from 'lru-cache';
import { mergeLists, type CacheScope, type ItemOrigin, type MergedList } from './merge.ts';
import { type ListKind } from '../protocol/list-kinds.ts';
import { PartCache, type Part } from './part-cache.ts';
import { LIST_METHODS } from '../protocol/list-kinds.ts';
import { resourceDirectory, routeResourceUri, type ExposedRoute } from './resource-routing.ts';
import { WarnOnce } from './warn-once.ts';

/** How often an unknown name may make the catalog re-fetch every upstream's list. MCP 2026-07-28, server/utilities/caching
 * allows re-fetching early on an unexpected unknown name; unbounded, every unknown (or, with
 * policy, denied) name a client sends would cost one list request to every upstream. */
export const MISS_REFRESH_INTERVAL_MS = 5_000;

export interface MergedView extends MergedList {
  version: string;
  /** Header params of each exposed tool name (tools only). */
  headerParams: Map<string, readonly HeaderParam[]>;
  /** Upstreams whose part is missing from this view, with why. */
  missing: { upstream: string; reason: string }[];
  /** Tools and prompts by exposed name (empty for resources). */
  byName: ReadonlyMap<string, JsonObject>;
  /** Generation of each part the view was built from. */
  generations: ReadonlyMap<string, number>;
}

/** Which items one caller sees: `key` names the filter's inputs (policy version, principal),
 * so equal keys share the filtered result. */
export interface ListFilter {
  key: string;
  keep(item: JsonObject, origin: ItemOrigin): boolean;
}

/** Merged views kept per (list kind, authorization context). */
const MAX_VIEWS = 2000;

const KEY_FIELD: Readonly<Record<ListKind, string>> = { tools: 'name', prompts: 'name', resources: 'uri', resourceTemplates: 'uriTemplate' };

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
}

export class Catalog {
  private readonly cache: PartCache;
  private readonly byName: Map<string, Upstream>;
  // Keyed per authorization context: bounded, so many callers cannot grow them without end.
  private readonly memo = new LRUCache<string, { gens: string; view: MergedView }>({ max: MAX_VIEWS });
  private readonly lastView = new LRUCache<string, MergedView>({ max: MAX_VIEWS });
  private lookupListener: ((kind: ListKind, hit: boolean) => void) | undefined;
  private readonly filteredCache = new LRUCache<string, { items: JsonObject[]; version: string }>({ max: 2000 });
  private readonly listeners: ((kind: ListKind) => void)[] = [];
  private readonly warnings: WarnOnce;
  private readonly lastMissRefresh = new Map<ListKind, number>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly upstreams: readonly Upstream[],
    private readonly logger: Logger,
    private readonly cursorSecret: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    this.warnings = new WarnOnce(logger);
    this.cache = new PartCache(logger, this.warnings, now);
    this.byName = new Map(upstreams.map((u) => [u.name, u]));
    for (const u of upstreams) {
      u.onEvent((ev) => {
        if (ev.type !== 'list_changed') return;
        const kinds: ListKind[] = ev.list === 'resources' ? ['resources', 'resourceTemplates'] : [ev.list];
        for (const k of kinds) this.cache.invalidate(u.name, k);
        this.changed(kinds[0]!);
      });
    }
  }

  /** Told of every per-upstream list lookup: answered from the cache or not (metrics). */
  onCacheLookup(listener: (kind: ListKind, hit: boolean) => void): void {
    this.lookupListener = listener;
  }

  /** Told of every upstream list item left out as nested deeper than limits.maxJsonDepth (metrics). */
  onDeepItems(listener: (count: number) => void): void {
    this.cache.onDeepItems = listener;
  }
  /** Called with the list kind whose merged content may have changed. */
  onChange(listener: (kind: ListKind) => void): void {
    this.listeners.push(listener);
  }

  private changed(kind: ListKind): void {
    for (const l of this.listeners) l(kind);
  }

  private offers(u: Upstream, kind: ListKind): boolean {
    const ident = u.identity();
    // Before the first successful probe we do not know: ask, the request will tell.
    return !ident || isJsonObject(ident.capabilities[LIST_METHODS[kind].capability]);
  }

  async view(kind: ListKind, authContext: string): Promise<MergedView> {
    const missing: { upstream: string; reason: string }[] = [];
    const parts = await Promise.all(this.upstreams.map((u) => this.partWithin(u, kind, authContext, missing)));
    const present = parts.filter((p): p is Part => p !== undefined);
    const gens = present.map((p) => `${p.upstream}:${p.generation}`).join(',');
    const memoKey = `${kind}\u0000${authContext}`;
    const memo = this.memo.get(memoKey);
    if (memo && memo.gens === gens && missing.length === 0) return { ...memo.view, ttlMs: this.ttl(present) };
    const merged = mergeLists(
      kind,
      present.map((p) => ({ upstream: p.upstream, prefix: this.byName.get(p.upstream)!.config.prefix, items: p.items, ttlMs: p.ttlMs, cacheScope: p.cacheScope })),
      { separator: this.config.separator, maxNameLength: this.config.maxNameLength },
    );
    const scope = `${kind}\u0000${authContext}`;
    this.warnings.report(`renames\u0000${scope}`, 'name changed while merging', merged.renames.map((r) => ({ ...r, kind })));
    this.warnings.report(`skipped\u0000${scope}`, 'list item without a usable key left out', merged.skipped.map((s) => ({ ...s, kind })));
    const headerParams = new Map<string, readonly HeaderParam[]>();
    if (kind === 'tools') {
      for (const [exposed, origin] of merged.index) {
        const hp = present.find((p) => p.upstream === origin.upstream)?.headerParams?.get(origin.original);
        if (hp) headerParams.set(exposed, hp);
      }
    }
    const byName = new Map<string, JsonObject>();
    if (kind === 'tools' || kind === 'prompts') for (const item of merged.items) byName.set(item.name as string, item);
    const generations = new Map(present.map((p) => [p.upstream, p.generation]));
    const view: MergedView = { ...merged, ttlMs: this.ttl(present), version: listVersion(merged.items), headerParams, missing, byName, generations };
    if (missing.length === 0) this.memo.set(memoKey, { gens, view });
    this.lastView.set(memoKey, view);
    return view;
  }

  /** Remaining freshness of the merged list: the minimum over its parts (README, Protocol eras: bridging). */
  private ttl(parts: readonly Part[]): number {
    const t = this.now();
    return parts.reduce((min, p) => Math.min(min, Math.max(0, p.fetchedAt + p.ttlMs - t)), parts.length ? Number.POSITIVE_INFINITY : 0);
  }

  private async partWithin(u: Upstream, kind: ListKind, authContext: string, missing: { upstream: string; reason: string }[]): Promise<Part | undefined> {
    if (!this.offers(u, kind)) return undefined;
    const fresh = this.cache.fresh(u.name, kind, authContext);
    this.lookupListener?.(kind, fresh !== undefined);
    if (fresh) return fresh;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((r) => {
      timer = setTimeout(() => r('deadline'), this.config.listDeadlineMs);
    });
    const res = await Promise.race([this.cache.get(u, kind, authContext), deadline]);
    clearTimeout(timer);
    if (res === 'deadline') {
      const stale = this.cache.lastGood(u.name, kind, authContext);
      missing.push({ upstream: u.name, reason: `no answer within ${this.config.listDeadlineMs} ms` });
      this.logger.warn('upstream too slow for list, answering without it', { upstream: u.name, kind, servedStale: !!stale });
      return stale;
    }
    if (!res.ok) {
      // An upstream that does not implement a list (e.g. -32601) simply contributes nothing.
      if (res.error.kind === 'upstream_error' && res.error.error.code === -32601) return undefined;
      missing.push({ upstream: u.name, reason: describeError(res.error) });
      this.logger.warn('upstream list failed, answering without it', { upstream: u.name, kind, error: describeError(res.error) });
      return undefined;
    }
    return res.value;
  }

  async page(kind: ListKind, authContext: string, cursor: unknown, filter?: ListFilter): Promise<Result<ListPage, GatewayError>> {
    const view = await this.view(kind, authContext);
    const { items, version } = filter ? this.filtered(kind, authContext, view, filter) : view;
    let offset = 0;
    if (cursor !== undefined) {
      if (typeof cursor !== 'string') return err({ kind: 'invalid_params', message: 'Invalid cursor: must be a string' });
      const pos = decodeCursor(this.cursorSecret, cursor, kind);
      if (!pos.ok) return err({ kind: 'invalid_params', message: `Invalid cursor: ${pos.error}` });
      if (pos.value.version !== version) return err({ kind: 'invalid_params', message: 'Invalid cursor: the list changed; start again without a cursor' });
      offset = pos.value.offset;
    }
    if (offset > items.length) return err({ kind: 'invalid_params', message: 'Invalid cursor: past the end of the list' });
    const { page, nextOffset } = paginate(items, this.config.limits.pageSize, offset);
    return ok({
      items: page,
      ttlMs: view.ttlMs,
      // A list filtered per caller is that caller's alone: never shareable (MCP 2026-07-28, server/utilities/caching).
      cacheScope: filter ? 'private' : view.cacheScope,
      ...(nextOffset !== undefined ? { nextCursor: encodeCursor(this.cursorSecret, { kind, offset: nextOffset, version }) } : {}),
    });
  }

  /** The items a filter keeps, computed once per (list version, filter key) and reused. */
  private filtered(kind: ListKind, authContext: string, view: MergedView, filter: ListFilter): { items: JsonObject[]; version: string } {
    const key = `${kind}\u0000${authContext}\u0000${view.version}\u0000${filter.key}`;
    const hit = this.filteredCache.get(key);
    if (hit) return hit;
    const field = KEY_FIELD[kind];
    const items = view.items.filter((item) => {
      const origin = view.index.get(item[field] as string);
      return origin !== undefined && filter.keep(item, origin);
    });
    const out = { items, version: listVersion(items) };
    this.filteredCache.set(key, out);
    return out;
  }

  /** The item behind an exposed name or URI in the current merged view, if any. */
  async item(kind: ListKind, key: string, authContext: string): Promise<{ item: JsonObject; origin: ItemOrigin } | undefined> {
    const view = this.lastView.get(`${kind}\u0000${authContext}`) ?? (await this.view(kind, authContext));
    const origin = view.index.get(key);
    if (!origin) return undefined;
    const field = KEY_FIELD[kind];
    const item = view.byName.get(key) ?? view.items.find((i) => i[field] === key);
    return item ? { item, origin } : undefined;
  }

  /** Exposed tool/prompt name -> upstream. Refreshes on a miss, at most once per
   * MISS_REFRESH_INTERVAL_MS: the upstream's list may have changed without telling us
   * (MCP 2026-07-28, server/utilities/caching: an unexpected unknown name). Synchronous when the last view answers. */
  resolve(kind: 'tools' | 'prompts', exposed: string, authContext: string): Resolved | undefined | Promise<Resolved | undefined> {
    return this.routable(kind, exposed, authContext) ?? this.resolveFetching(kind, exposed, authContext);
  }

  private async resolveFetching(kind: 'tools' | 'prompts', exposed: string, authContext: string): Promise<Resolved | undefined> {
    const found = this.target(await this.view(kind, authContext), exposed);
    if (found) return found;
    const t = this.now();
    if (t - (this.lastMissRefresh.get(kind) ?? Number.NEGATIVE_INFINITY) < MISS_REFRESH_INTERVAL_MS) return undefined;
    this.lastMissRefresh.set(kind, t);
    for (const u of this.upstreams) this.cache.invalidate(u.name, kind);
    return this.lookup(kind, exposed, authContext);
  }

  /** Hot path: the last merged view names this tool and its owner's part is the one the view
   * was built from (no list_changed since). A slow or dead *other* upstream must not hold up
   * a call to a healthy one; an upstream that sends ttlMs 0 must not cost a list per call. */
  private routable(kind: 'tools' | 'prompts', exposed: string, authContext: string): Resolved | undefined {
    const last = this.lastView.get(`${kind}\u0000${authContext}`);
    const known = last?.index.get(exposed);
    const current = last && known && this.cache.routable(known.upstream, kind, authContext)?.generation === last.generations.get(known.upstream);
    return current ? this.target(last, exposed) : undefined;
  }

  private async lookup(kind: 'tools' | 'prompts', exposed: string, authContext: string): Promise<Resolved | undefined> {
    return this.routable(kind, exposed, authContext) ?? this.target(await this.view(kind, authContext), exposed);
  }

  private target(view: MergedView, exposed: string): Resolved | undefined {
    const origin = view.index.get(exposed);
    if (!origin) return undefined;
    const upstream = this.byName.get(origin.upstream)!;
    return { upstream, name: origin.original, item: view.byName.get(exposed) ?? {}, headerParams: view.headerParams.get(exposed) ?? [] };
  }

  /** The route of a uri (resource-routing.ts): undefined when no list or template accounts
   * for it, an error string when the uri itself is refused. */
  async routeResource(uri: string, authContext: string): Promise<Result<ExposedRoute | undefined, string>> {
    const [resources, templates] = await Promise.all([this.view('resources', authContext), this.view('resourceTemplates', authContext)]);
    const withResources = this.upstreams.filter((u) => this.offers(u, 'resources')).map((u) => u.name);
    return routeResourceUri(uri, resourceDirectory(resources.index, templates.index, withResources));
  }

  /** Whether some caller's current merged list exposes this name (bounds metric labels). */
  exposes(kind: 'tools' | 'prompts', name: string): boolean {
    for (const [key, view] of this.lastView) if (key.startsWith(`${kind}\u0000`) && view.index.has(name)) return true;
    return false;
  }

  /** Drops one upstream's cached list, e.g. after it rejected our Mcp-Param-* headers. */
  invalidate(upstream: string, kind: ListKind): void {
    this.cache.invalidate(upstream, kind);
  }

  upstream(name: string): Upstream | undefined {
    return this.byName.get(name);
  }
}

export function describeError(e: GatewayError): string {
  switch (e.kind) {
    case 'upstream_unavailable':
      return e.reason;
    case 'upstream_timeout':
      return `timed out after ${e.timeoutMs} ms`;
    case 'upstream_error':
      return `${e.error.code} ${e.error.message}`;
    default:
      return e.kind;
  }
}
