// Which upstream serves a resources/read (or a completion ref/resource, or a subscription) for
// a uri the client sent, under which uri that upstream knows it, and under which uri policy
// judges it (MCP 2026-07-28, server/resources: the aggregation key for resources is the uri).
// Pure: the index and template list come from the last merge (merge.ts); nothing here fetches
// or caches lists.
//
// A client may spell one resource many ways, and an upstream that parses uris serves them
// all as one; a rule written for the listed spelling must catch every one. So, after the
// exact spellings the lists show, a uri is judged in its canonical form (canonical-uri.ts),
// and only a uri that a list or a template accounts for goes anywhere. Order, first hit wins:
//   1. an exact uri from the merged resources list (gatehouse:// rewrites included);
//   2. a uriTemplate itself, exactly as listed: a completion ref/resource names the template
//      (`search://docs{?q}`), which its own pattern need not match;
//   then, canonicalised (whitespace and control characters refused with the reason):
//   3. gatehouse://<upstream>/<uri>, the gateway's own form (gatehouse-uri.ts): that
//      upstream's listed uri or template, as in 1, 2, 4 and 5 but within that upstream. The
//      scheme is reserved, so one that does not decode to a known upstream goes nowhere;
//   4. a listed uri whose canonical form it is;
//   5. the first resource template, in config order, whose RFC 6570 pattern matches it: the
//      canonical uri is what is judged and what is sent upstream, so the two never differ.
// Otherwise nothing: the caller answers -32602 "Resource not found" (MCP 2026-07-28,
// server/resources, error handling). An unlisted uri is never sent to "the only upstream
// with resources" on a guess.
import { ok, type Result } from '../protocol/result.ts';
import { canonicalUri } from './canonical-uri.ts';
import { gatehouseUri, isGatehouseUri, parseGatehouseUri } from './gatehouse-uri.ts';
import type { ItemIndex } from './merge.ts';
import { matchesUriTemplate } from './uri-template-match.ts';

export interface TemplateOwner {
  upstream: string;
  uriTemplate: string;
}

export interface ResourceRoute {
  upstream: string;
  /** The uri in the upstream's own terms, to send it in place of the client's. */
  uri: string;
}

/** A route with `exposed`, the uri policy judges whatever spelling the client used, and the
 * template that accounts for it when no list names it (rate limits key on that). */
export type ExposedRoute = ResourceRoute & { exposed: string; template?: string };

/** The lists, indexed for routing once per merged view. */
export interface ResourceDirectory {
  index: ItemIndex;
  templates: readonly TemplateOwner[];
  upstreams: readonly string[];
  /** Canonical uri of each listed uri shown as itself -> that exposed uri. */
  plain: ReadonlyMap<string, string>;
  /** upstream NUL original uri (as listed, and canonical) -> its exposed uri. */
  owned: ReadonlyMap<string, string>;
}

const key = (upstream: string, uri: string): string => `${upstream}\u0000${uri}`;

export function buildResourceDirectory(index: ItemIndex, templates: readonly TemplateOwner[], upstreams: readonly string[]): ResourceDirectory {
  const plain = new Map<string, string>();
  const owned = new Map<string, string>();
  for (const [exposed, o] of index) {
    owned.set(key(o.upstream, o.original), exposed);
    const c = canonicalUri(o.original);
    if (!c.ok) continue;
    if (!owned.has(key(o.upstream, c.value))) owned.set(key(o.upstream, c.value), exposed);
    if (exposed === o.original && !plain.has(c.value)) plain.set(c.value, exposed);
  }
  return { index, templates, upstreams, plain, owned };
}

// Directories are built once per merged list: views are reused while their lists are
// unchanged, so their index objects key the cache, and a new list simply misses.
const directories = new WeakMap<ItemIndex, { templates: ItemIndex; upstreams: string; directory: ResourceDirectory }>();

/** The directory of a merged resources list and templates list (cached per list). */
export function resourceDirectory(resources: ItemIndex, templates: ItemIndex, upstreams: readonly string[]): ResourceDirectory {
  const joined = upstreams.join('\u0000');
  const hit = directories.get(resources);
  if (hit !== undefined && hit.templates === templates && hit.upstreams === joined) return hit.directory;
  const owners = [...templates.values()].map((o) => ({ upstream: o.upstream, uriTemplate: o.original }));
  const directory = buildResourceDirectory(resources, owners, upstreams);
  directories.set(resources, { templates, upstreams: joined, directory });
  return directory;
}

/** The route, undefined when nothing accounts for the uri, or why the uri is refused. */
export function routeResourceUri(uri: string, dir: ResourceDirectory): Result<ExposedRoute | undefined, string> {
  const listed = dir.index.get(uri);
  if (listed !== undefined) return ok({ upstream: listed.upstream, uri: listed.original, exposed: uri });
  const named = dir.templates.find((t) => t.uriTemplate === uri);
  if (named !== undefined) return ok({ upstream: named.upstream, uri, exposed: uri, template: uri });
  const c = canonicalUri(uri);
  if (!c.ok) return c;
  if (isGatehouseUri(c.value)) return routeGatehouse(uri, dir);
  const exposed = dir.plain.get(c.value);
  if (exposed !== undefined) {
    const o = dir.index.get(exposed)!;
    return ok({ upstream: o.upstream, uri: o.original, exposed });
  }
  const t = dir.templates.find((owner) => matchesUriTemplate(owner.uriTemplate, c.value));
  return ok(t === undefined ? undefined : { upstream: t.upstream, uri: c.value, exposed: c.value, template: t.uriTemplate });
}

function routeGatehouse(uri: string, dir: ResourceDirectory): Result<ExposedRoute | undefined, string> {
  const parts = parseGatehouseUri(uri);
  if (parts === undefined || !dir.upstreams.includes(parts.upstream)) return ok(undefined);
  const { upstream, original } = parts;
  const own = (exposed: string | undefined): ExposedRoute | undefined => {
    const o = exposed === undefined ? undefined : dir.index.get(exposed);
    return o === undefined ? undefined : { upstream, uri: o.original, exposed: exposed! };
  };
  const exact = own(dir.owned.get(key(upstream, original)));
  if (exact !== undefined) return ok(exact);
  const mine = dir.templates.filter((t) => t.upstream === upstream);
  if (mine.some((t) => t.uriTemplate === original)) return ok({ upstream, uri: original, exposed: exposedAlias(original, upstream, dir), template: original });
  const c = canonicalUri(original);
  if (!c.ok) return c;
  const canonical = own(dir.owned.get(key(upstream, c.value)));
  if (canonical !== undefined) return ok(canonical);
  const t = mine.find((owner) => matchesUriTemplate(owner.uriTemplate, c.value));
  return ok(t === undefined ? undefined : { upstream, uri: c.value, exposed: exposedAlias(c.value, upstream, dir), template: t.uriTemplate });
}

/**
 * What policy judges for a gatehouse:// alias: the upstream's own uri, the spelling the list
 * shows for it, unless that uri belongs to another upstream (a real collision) or is itself
 * in the reserved scheme: then the canonical gatehouse:// form, exactly as merge.ts writes it.
 * Judged under the alias's own spelling, a rule written for the listed uri (`file:///etc/*`)
 * would not apply.
 */
function exposedAlias(original: string, upstream: string, dir: ResourceDirectory): string {
  const owner = dir.index.get(original);
  const ownUri = !isGatehouseUri(original) && (owner === undefined || (owner.upstream === upstream && owner.original === original));
  const c = canonicalUri(original);
  const takenByOther = c.ok && dir.plain.has(c.value) && dir.index.get(dir.plain.get(c.value)!)?.upstream !== upstream;
  return ownUri && !takenByOther ? original : gatehouseUri(upstream, original);
}

/** The refusal as the client sees it (-32602): names the problem, never policy. */
export function invalidUriMessage(reason: string): string {
  return `Invalid resource uri: ${reason}`;
}
