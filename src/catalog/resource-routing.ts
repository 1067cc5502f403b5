// Which upstream serves a resources/read (or a completion ref/resource, or a subscription) for
// a uri the client sent, and under which uri that upstream knows it (MCP 2026-07-28, server/resources and server/prompts: the
// aggregation key for resources is the uri). Pure: the index and template list come from the
// last merge (merge.ts); nothing here fetches or caches lists.
//
// Order, first hit wins:
//   1. gatehouse://<upstream>/<uri>: the gateway's own rewrite (gatehouse-uri.ts). The scheme
//      is reserved, so a uri in it that does not decode to a known upstream goes nowhere rather
//      than to a fallback that never issued it.
//   2. an exact uri from the merged resources list.
//   3. a uriTemplate itself, exactly as listed: a completion ref/resource names the template
//      (`search://docs{?q}`), which its own pattern need not match.
//   4. the first resource template, in config order, whose RFC 6570 pattern matches.
//   5. the only upstream with resources, if there is exactly one: it may serve uris it does
//      not list (links in tool results, paginated lists not yet fetched), and it is the only
//      one that could.
// Otherwise undefined; the caller answers -32602 "Resource not found" (spec h, MUST).
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

export function routeResourceUri(
  uri: string,
  resourceIndex: ItemIndex,
  templates: readonly TemplateOwner[],
  upstreamsWithResources: readonly string[],
): ResourceRoute | undefined {
  if (isGatehouseUri(uri)) {
    const parts = parseGatehouseUri(uri);
    if (parts === undefined || !upstreamsWithResources.includes(parts.upstream)) return undefined;
    return { upstream: parts.upstream, uri: parts.original };
  }

  const listed = resourceIndex.get(uri);
  if (listed !== undefined) return { upstream: listed.upstream, uri: listed.original };

  const template = templates.find((t) => t.uriTemplate === uri) ?? templates.find((t) => matchesUriTemplate(t.uriTemplate, uri));
  if (template !== undefined) return { upstream: template.upstream, uri };

  const [only, ...others] = upstreamsWithResources;
  if (only !== undefined && others.length === 0) return { upstream: only, uri };
  return undefined;
}

/** A route with `exposed`: the uri policy judges, whatever spelling the client used. */
export type ExposedRoute = ResourceRoute & { exposed: string };

/**
 * The one spelling of a routed uri that policy judges: the uri the merged list shows (or would
 * show) for it. A client may address any resource through a gatehouse:// form, in any
 * %-escaping; judged under that spelling, a rule written for the listed uri (`file:///etc/*`)
 * would not apply, and a deny or approve rule could be walked around. Plain uris are already
 * the listed spelling. A gatehouse:// uri stands for the upstream's own uri unless that uri
 * belongs to another upstream (a real collision) or is itself in the reserved scheme: then
 * for the canonical gatehouse:// form, exactly as merge.ts writes it.
 */
export function exposedResourceUri(clientUri: string, route: ResourceRoute, resourceIndex: ItemIndex): string {
  if (!isGatehouseUri(clientUri)) return clientUri;
  const owner = resourceIndex.get(route.uri);
  const ownUri = !isGatehouseUri(route.uri) && (owner === undefined || (owner.upstream === route.upstream && owner.original === route.uri));
  return ownUri ? route.uri : gatehouseUri(route.upstream, route.uri);
}
