// One merged list as the catalog serves it: the merge (merge.ts) plus what serving and
// routing need, built once per set of parts and shared by every caller those parts serve.
// Views are read-only once built: many callers, and the filtered views cut from it
// (filtered-views.ts), hold the same object.
import type { HeaderParam } from '../headers/annotations.ts';
import type { AppliedOverlay, HeldOverlay } from '../overlays/apply-overlays.ts';
import type { JsonObject } from '../protocol/message.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import { listVersion } from './cursor.ts';
import { mergeLists, type MergedList, type MergeOptions } from './merge.ts';
import type { Part } from './part-cache.ts';

export interface MissingPart {
  upstream: string;
  reason: string;
}

export interface MergedView extends MergedList {
  /** Unique per build: what the filtered views cut from this view are keyed on. */
  id: number;
  kind: ListKind;
  version: string;
  /** Header params of each exposed tool name (tools only). */
  headerParams: Map<string, readonly HeaderParam[]>;
  /** Upstreams whose part is missing from this view, with why. */
  missing: MissingPart[];
  /** Every item by its key: exposed name (tools, prompts), uri or uriTemplate. */
  byName: ReadonlyMap<string, JsonObject>;
  /** Generation of each part the view was built from. */
  generations: ReadonlyMap<string, number>;
  /** What the byte budget charges: the view's own copies and maps. The parts' items are the
   * part cache's; a view goes when one of its parts does (view-cache.ts retire). */
  bytes: number;
  /** Tools and prompts with an overlay configured (overlays/apply-overlays.ts): what each call
   * of an overlaid item needs, by exposed name, and the items held back. */
  overlays?: ReadonlyMap<string, AppliedOverlay>;
  held?: readonly HeldOverlay[];
}

export const KEY_FIELD: Readonly<Record<ListKind, string>> = { tools: 'name', prompts: 'name', resources: 'uri', resourceTemplates: 'uriTemplate' };

/** Per item, for the view's own shallow copy and three map entries, in the units the part
 * sizes use (JSON text; the heap holds both at a similar multiple). An estimate. */
const ITEM_OVERHEAD_BYTES = 96;

let views = 0;

/** The key that identifies a view's inputs: equal keys build equal views. Generations are
 * unique per fetch, so a private part makes the key its caller's own. */
export function viewKey(kind: ListKind, parts: readonly Part[], missing: readonly MissingPart[]): string {
  const gens = parts.map((p) => `${p.upstream}:${p.generation}`).join(',');
  return missing.length === 0 ? `${kind}\u0000${gens}` : `${kind}\u0000${gens}\u0000${JSON.stringify(missing)}`;
}

/** What an endpoint makes of the merge before it is served: a virtual server's selection
 * (servers/server-view.ts), and whatever else shapes one endpoint's view of the same parts. */
export type ViewShape = (kind: ListKind, merged: MergedList) => MergedList;

export function buildMergedView(kind: ListKind, parts: readonly Part[], missing: MissingPart[], prefixOf: (upstream: string) => string, opts: MergeOptions, shape?: ViewShape): MergedView {
  const all = mergeLists(
    kind,
    parts.map((p) => ({ upstream: p.upstream, prefix: prefixOf(p.upstream), items: p.items, ttlMs: p.ttlMs, cacheScope: p.cacheScope })),
    opts,
  );
  const merged = shape ? shape(kind, all) : all;
  const headerParams = new Map<string, readonly HeaderParam[]>();
  if (kind === 'tools') {
    const byUpstream = new Map(parts.map((p) => [p.upstream, p]));
    for (const [exposed, origin] of merged.index) {
      const hp = byUpstream.get(origin.upstream)?.headerParams?.get(origin.original);
      if (hp) headerParams.set(exposed, hp);
    }
  }
  const field = KEY_FIELD[kind];
  const byName = new Map<string, JsonObject>();
  // Templates may repeat across upstreams: the first holder, as the index and routing have it.
  for (const item of merged.items) if (!byName.has(item[field] as string)) byName.set(item[field] as string, item);
  const bytes = merged.items.length * ITEM_OVERHEAD_BYTES;
  return {
    ...merged,
    id: ++views,
    kind,
    version: listVersion(merged.items),
    headerParams,
    missing,
    byName,
    generations: new Map(parts.map((p) => [p.upstream, p.generation])),
    bytes,
  };
}
