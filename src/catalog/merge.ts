// Merges one list kind from several upstreams into the gateway's own list (MCP 2026-07-28:
// server/tools, server/utilities/caching, server/resources and server/prompts). Pure: takes the per-upstream pages already fetched, returns the merged list,
// its cache hints and the index that routes an exposed key back to its upstream.
//
// Order is config order of upstreams, then each upstream's own order (MCP 2026-07-28, server/tools: deterministic
// order keeps client and LLM prompt caches warm).
//
// Left to others: fetching and caching the parts (per-upstream cursors, ttl clocks),
// paginating the result (cursor.ts), filtering by policy, logging `renames` and `skipped`,
// and rewriting `uri` fields inside resources/read replies and resource_link blocks.
import type { ListKind } from '../protocol/list-kinds.ts';
import type { JsonObject } from '../protocol/message.ts';
import { gatehouseUri, isGatehouseUri } from './gatehouse-uri.ts';
import { assignNames, type Rename } from './naming.ts';

export type CacheScope = 'public' | 'private';

export interface MergePart {
  upstream: string;
  prefix: string;
  items: readonly JsonObject[];
  ttlMs: number;
  cacheScope: CacheScope;
}

export interface MergeOptions {
  separator: string;
  maxNameLength: number;
}

/** Where an exposed name (tools, prompts) or uri / uriTemplate (resources, templates) came from. */
export interface ItemOrigin {
  upstream: string;
  original: string;
  /** The name policy rules and pins judge, when it is not the exposed one: a virtual server
   * that shows other names (server-view.ts) keeps the default endpoint's name here, so a rule
   * or pin written once holds on every endpoint. */
  policyName?: string;
}

export type ItemIndex = ReadonlyMap<string, ItemOrigin>;

/** An item whose key field is missing or not a string: left out of the list (nothing could
 * route to it) and reported here so the edge can log it. */
export interface SkippedItem {
  upstream: string;
  position: number;
  field: string;
}

export interface MergedList {
  items: JsonObject[];
  ttlMs: number;
  cacheScope: CacheScope;
  index: ItemIndex;
  renames: Rename[];
  skipped: SkippedItem[];
}

const KEY_FIELD: Readonly<Record<ListKind, string>> = {
  tools: 'name',
  prompts: 'name',
  resources: 'uri',
  resourceTemplates: 'uriTemplate',
};

export function mergeLists(kind: ListKind, parts: readonly MergePart[], opts: MergeOptions): MergedList {
  const field = KEY_FIELD[kind];
  const skipped: SkippedItem[] = [];
  const keyed = parts.map((part) => ({
    part,
    items: part.items.filter((item, position) => {
      if (typeof item[field] === 'string') return true;
      skipped.push({ upstream: part.upstream, position, field });
      return false;
    }),
  }));

  const merged =
    kind === 'tools' || kind === 'prompts'
      ? mergeNamed(keyed, opts)
      : kind === 'resources'
        ? mergeResources(keyed)
        : mergeTemplates(keyed);
  return { ...merged, ttlMs: mergeTtl(parts), cacheScope: mergeScope(parts), skipped };
}

/** MCP 2026-07-28, server/utilities/caching / README, Protocol eras: bridging: the merged list is fresh only as long as its stalest part; a negative or
 * non-finite ttl counts as 0. No parts means nothing worth caching. */
function mergeTtl(parts: readonly MergePart[]): number {
  if (parts.length === 0) return 0;
  const min = Math.min(...parts.map((p) => p.ttlMs));
  return Number.isFinite(min) && min > 0 ? Math.floor(min) : 0;
}

/** MCP 2026-07-28, server/utilities/caching: one private part makes the whole list private (it carries someone's data). */
function mergeScope(parts: readonly MergePart[]): CacheScope {
  return parts.some((p) => p.cacheScope === 'private') ? 'private' : 'public';
}

interface KeyedPart {
  part: MergePart;
  items: readonly JsonObject[];
}

type MergeCore = Pick<MergedList, 'items' | 'index' | 'renames'>;

function mergeNamed(keyed: readonly KeyedPart[], opts: MergeOptions): MergeCore {
  const { names, renames } = assignNames(
    keyed.map(({ part, items }) => ({
      upstream: part.upstream,
      prefix: part.prefix,
      names: items.map((item) => item.name as string),
    })),
    opts,
  );
  const flat = keyed.flatMap(({ items }) => items);
  const index = new Map<string, ItemOrigin>();
  // Shallow copy: only `name` changes; inputSchema (with its x-mcp-header annotations),
  // _meta and every other field stay the upstream's own objects.
  const items = flat.map((item, i) => {
    const n = names[i]!;
    index.set(n.exposed, { upstream: n.upstream, original: n.original });
    return { ...item, name: n.exposed };
  });
  return { items, index, renames };
}

function mergeResources(keyed: readonly KeyedPart[]): MergeCore {
  const owner = new Map<string, string>();
  for (const { part, items } of keyed) {
    for (const item of items) {
      const uri = item.uri as string;
      if (!owner.has(uri) && !isGatehouseUri(uri)) owner.set(uri, part.upstream);
    }
  }

  const index = new Map<string, ItemOrigin>();
  const renames: Rename[] = [];
  const items: JsonObject[] = [];
  for (const { part, items: own } of keyed) {
    const rewritten = new Set<string>();
    for (const item of own) {
      const uri = item.uri as string;
      // Resource `name` is a display name, not a key: left as the upstream sent it.
      if (owner.get(uri) === part.upstream) {
        index.set(uri, { upstream: part.upstream, original: uri });
        items.push(item);
        continue;
      }
      // A later upstream's duplicate (or an upstream's own uri in the reserved scheme) becomes
      // gatehouse://<upstream>/<uri>; see gatehouse-uri.ts for the form and why it is safe.
      const exposed = gatehouseUri(part.upstream, uri);
      index.set(exposed, { upstream: part.upstream, original: uri });
      if (!rewritten.has(uri)) {
        rewritten.add(uri);
        renames.push({ upstream: part.upstream, original: uri, exposed, reason: 'collision' });
      }
      items.push({ ...item, uri: exposed });
    }
  }
  return { items, index, renames };
}

/** uriTemplates may collide: reads are routed by matching, first match in config order wins
 * (resource-routing.ts). The index records the first holder of each template text. */
function mergeTemplates(keyed: readonly KeyedPart[]): MergeCore {
  const index = new Map<string, ItemOrigin>();
  const items: JsonObject[] = [];
  for (const { part, items: own } of keyed) {
    for (const item of own) {
      const template = item.uriTemplate as string;
      if (!index.has(template)) index.set(template, { upstream: part.upstream, original: template });
      items.push(item);
    }
  }
  return { items, index, renames: [] };
}
