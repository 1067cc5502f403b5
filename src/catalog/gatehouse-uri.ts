// The gateway's own URI form for resources whose uri collides with an earlier upstream's
// (MCP 2026-07-28, server/resources and server/prompts: "URIs from different upstreams can collide, so a namespacing or URI-rewrite
// strategy is needed"):
//
//   gatehouse://<encodeURIComponent(upstream)>/<encodeURIComponent(original uri)>
//
// encodeURIComponent escapes '/', so the first '/' after the authority splits the two parts,
// and any original uri (its own scheme, query, fragment, spaces, non-ASCII) survives the trip.
// The scheme is reserved: merge.ts rewrites an upstream's own gatehouse: uri too, so a
// gatehouse: uri always means this form and resource-routing.ts can decode it first.
// Schemes are case-insensitive (RFC 3986 §3.1), so the checks here are too.

export const GATEHOUSE_SCHEME = 'gatehouse:';
const AUTHORITY_START = '//';

export interface GatehouseUriParts {
  upstream: string;
  original: string;
}

export function isGatehouseUri(uri: string): boolean {
  return uri.slice(0, GATEHOUSE_SCHEME.length).toLowerCase() === GATEHOUSE_SCHEME;
}

export function gatehouseUri(upstream: string, originalUri: string): string {
  return `${GATEHOUSE_SCHEME}${AUTHORITY_START}${encodeURIComponent(upstream)}/${encodeURIComponent(originalUri)}`;
}

/** The inverse of gatehouseUri; undefined when `uri` is not in that form. */
export function parseGatehouseUri(uri: string): GatehouseUriParts | undefined {
  if (!isGatehouseUri(uri)) return undefined;
  const rest = uri.slice(GATEHOUSE_SCHEME.length);
  if (!rest.startsWith(AUTHORITY_START)) return undefined;
  const body = rest.slice(AUTHORITY_START.length);
  const slash = body.indexOf('/');
  if (slash <= 0 || slash === body.length - 1) return undefined;
  try {
    return { upstream: decodeURIComponent(body.slice(0, slash)), original: decodeURIComponent(body.slice(slash + 1)) };
  } catch {
    // A malformed %-escape: not a uri the gateway issued.
    return undefined;
  }
}
