// Tool search mode (README, Context budget): tools/list answers with three gateway tools, and
// tools/call of those tools searches, describes and runs the caller's visible catalog.
//
// Nothing here is per session or per request. A search index is built once per merged tools
// list (its version, a digest of the list) and shared by every caller who sees that list; what
// one caller may see is a visibility mask kept per (list version, policy view) — the key the
// catalog's filtered lists use — and applied inside the search, so a hidden tool is never
// scored, described or run. tools/list never waits for an index: it schedules the build and
// answers; a search that comes first builds it itself. gatehouse__call_tool hands the named
// tool to the one target sequence (`runTool`), so policy, approvals, validation, headers and
// the audit record are those of the real tool.
import { LRUCache } from 'lru-cache';
import type { Catalog, ListFilter, MergedView } from '../catalog/catalog.ts';
import { GATEWAY_UPSTREAM, type Call, type Handled } from '../protocol/call.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';
import { compileGlobSet } from '../policy/glob.ts';
import type { Enforcer } from '../policy/enforcer.ts';
import type { Logger } from '../telemetry/logger.ts';
import { CALL_TOOL_NAME, DESCRIBE_TOOL_NAME, SEARCH_TOOL_NAME, searchToolDescription } from './catalog-summary.ts';
import { callArguments, describeArguments, META_TOOL_NAMES, metaTools, searchArguments } from './meta-tools.ts';
import { buildSearchIndex, type IndexedTool, type SearchIndex, type VisibleSet } from './search-index.ts';
import { describeResult, searchResult } from './search-results.ts';
import type { ToolSearchConfig } from './tool-search-config.ts';

/** `_meta` key with which one tools/list request asks for the whole catalog. */
export const FULL_LIST_META_KEY = 'io.gatehouse/fullToolList';

/** Merged tools lists indexed at once (each list version has one index). */
const MAX_INDEXES = 8;
/** Policy views (list version x filter key) kept. */
const MAX_VIEWS = 2000;

interface CatalogEntry {
  tools: IndexedTool[];
  byName: Map<string, number>;
  index?: Promise<SearchIndex>;
}

/** One caller's view of a list version. It names tools by position in that version's list,
 * which is the same for every build of it, and holds no index: evicting an index frees it. */
interface ViewEntry {
  visible?: VisibleSet;
  total: number;
  list: JsonObject[];
}

export interface ToolSearch {
  /** This call's tools/list answers with the search tools. */
  answersList(call: Call): boolean;
  list(call: Call): Promise<Handled>;
  /** tools/call of a gateway tool; undefined for any other name. `narrow`: what else keeps a
   * tool from this caller's searches and descriptions besides policy (tasks: task-list-view.ts). */
  call(call: Call, runTool: (call: Call) => Promise<Handled>, narrow?: (base: ListFilter | undefined) => ListFilter | undefined): Promise<Handled> | undefined;
  /** Time and size of index builds, for the benchmark. */
  onIndexBuilt(listener: (stats: { tools: number; ms: number; bytes: number }) => void): void;
}

export function createToolSearch(deps: { settings: ToolSearchConfig; catalog: Catalog; enforcer: Enforcer; logger: Logger }): ToolSearch {
  const { settings, catalog, enforcer, logger } = deps;
  const fullListFor = compileGlobSet(settings.fullListFor);
  const catalogs = new LRUCache<string, CatalogEntry>({ max: MAX_INDEXES });
  const views = new LRUCache<string, ViewEntry>({ max: MAX_VIEWS });
  const built: ((s: { tools: number; ms: number; bytes: number }) => void)[] = [];

  const catalogEntry = (merged: MergedView): CatalogEntry => {
    const hit = catalogs.get(merged.version);
    if (hit) return hit;
    const tools: IndexedTool[] = [];
    for (const item of merged.items) {
      const origin = merged.index.get(item.name as string);
      if (origin) tools.push({ name: item.name as string, upstream: origin.upstream, original: origin.original, item });
    }
    const entry: CatalogEntry = { tools, byName: new Map(tools.map((t, i) => [t.name, i])) };
    catalogs.set(merged.version, entry);
    return entry;
  };

  /** The index of a list version: built once, and shared by whoever asks while it builds. */
  const indexOf = (entry: CatalogEntry): Promise<SearchIndex> => {
    if (entry.index) return entry.index;
    const started = performance.now();
    entry.index = buildSearchIndex(entry.tools).then((index) => {
      const stats = { tools: entry.tools.length, ms: performance.now() - started, bytes: index.approxBytes() };
      logger.info('tool search index built', { tools: stats.tools, ms: Math.round(stats.ms * 10) / 10 });
      for (const l of built) l(stats);
      return index;
    });
    return entry.index;
  };

  const viewOf = async (call: Call, narrow?: (base: ListFilter | undefined) => ListFilter | undefined): Promise<{ view: ViewEntry; entry: CatalogEntry; merged: MergedView; filter: ListFilter | undefined }> => {
    const merged = await catalog.view('tools', call.authContext);
    const policy = enforcer.listFilter(call.principal, 'tools');
    const filter = narrow ? narrow(policy) : policy;
    const entry = catalogEntry(merged);
    const key = `${merged.version}\u0000${filter?.key ?? ''}`;
    const hit = views.get(key);
    if (hit) return { view: hit, entry, merged, filter };
    let visible: VisibleSet | undefined;
    let shown = entry.tools;
    if (filter) {
      const bits = new Uint8Array(entry.tools.length);
      shown = entry.tools.filter((t, i) => {
        const keep = filter.keep(t.item, { upstream: t.upstream, original: t.original });
        if (keep) bits[i] = 1;
        return keep;
      });
      visible = { bits, count: shown.length };
    }
    const view: ViewEntry = { ...(visible ? { visible } : {}), total: shown.length, list: metaTools(searchToolDescription(shown)) };
    views.set(key, view);
    return { view, entry, merged, filter };
  };

  const record = (name: string): Handled['record'] => ({ target: { upstream: GATEWAY_UPSTREAM, name, upstreamName: name } });
  const visibleDoc = (view: ViewEntry, doc: number | undefined): doc is number => doc !== undefined && (view.visible === undefined || view.visible.bits[doc] === 1);

  type Narrow = Parameters<ToolSearch['call']>[2];
  const search = async (call: Call, narrow: Narrow): Promise<Handled> => {
    const args = searchArguments(call.params, settings.defaultLimit);
    if (!args.ok) return { reply: args, record: record(SEARCH_TOOL_NAME) };
    const { view, entry } = await viewOf(call, narrow);
    const hits = (await indexOf(entry)).search(args.value.query, args.value.limit, view.visible, args.value.upstream);
    const tools = hits.map((h) => entry.tools[h.doc]!);
    return { reply: ok(searchResult(args.value.query, tools, view.total)), record: record(SEARCH_TOOL_NAME) };
  };

  const describe = async (call: Call, narrow: Narrow): Promise<Handled> => {
    const names = describeArguments(call.params);
    if (!names.ok) return { reply: names, record: record(DESCRIBE_TOOL_NAME) };
    const { view, entry } = await viewOf(call, narrow);
    const found: JsonObject[] = [];
    const unknown: string[] = [];
    for (const name of names.value) {
      const doc = entry.byName.get(name);
      if (visibleDoc(view, doc)) found.push(entry.tools[doc]!.item);
      else unknown.push(name);
    }
    return { reply: ok(describeResult(found, unknown)), record: record(DESCRIBE_TOOL_NAME) };
  };

  const callThrough = async (call: Call, runTool: (call: Call) => Promise<Handled>): Promise<Handled> => {
    const inner = callArguments(call.params);
    if (!inner.ok) return { reply: inner, record: { ...record(CALL_TOOL_NAME), via: CALL_TOOL_NAME } };
    const { arguments: _outer, ...rest } = call.params;
    const params: JsonObject = { ...rest, name: inner.value.name, ...(inner.value.arguments ? { arguments: inner.value.arguments } : {}) };
    const handled = await runTool({ ...call, params });
    return { reply: handled.reply, record: { ...handled.record, via: CALL_TOOL_NAME, arguments: handled.record.arguments ?? inner.value.arguments ?? {} } };
  };

  return {
    answersList(call) {
      if (!settings.enabled) return false;
      const meta = call.params._meta;
      if (isJsonObject(meta) && meta[FULL_LIST_META_KEY] === true) return false;
      const client = call.clientInfo?.name;
      return !(typeof client === 'string' && fullListFor.matches(client));
    },
    async list(call) {
      if (call.params.cursor !== undefined) return { reply: err({ kind: 'invalid_params', message: 'Invalid cursor: in tool search mode tools/list has a single page' }), record: {} };
      const { view, entry, merged, filter } = await viewOf(call);
      // The index is built after this answer has gone, once per list version.
      // A failed build is the next search's to report; here it is only logged.
      if (!entry.index) setImmediate(() => void indexOf(entry).catch((e: unknown) => logger.warn('tool search index not built', { error: (e as Error).message })));
      return { reply: ok({ tools: view.list, ttlMs: merged.ttlMs, cacheScope: filter ? 'private' : merged.cacheScope }), record: {} };
    },
    call(call, runTool, narrow) {
      const name = call.params.name;
      if (!settings.enabled || typeof name !== 'string' || !META_TOOL_NAMES.has(name)) return undefined;
      if (name === SEARCH_TOOL_NAME) return search(call, narrow);
      if (name === DESCRIBE_TOOL_NAME) return describe(call, narrow);
      return callThrough(call, runTool);
    },
    onIndexBuilt(listener) {
      built.push(listener);
    },
  };
}
