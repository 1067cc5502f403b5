// Whether a state-changing browser request came from another site, from what browsers say
// about it: `Sec-Fetch-Site` (Fetch Metadata) and `Origin` (RFC 6454 section 7). Both are
// absent from non-browser clients (curl, SDKs), which this check lets through: those carry
// the gateway credential in a header, which no other site can make a browser send. Used by
// the approvals console's decisions and by a user's disconnect; each route adds its own
// checks (a custom header, a content type) on top.

export interface SiteHeaders {
  get(name: string): string | null | undefined;
}

/** Why the request may be cross-site, or undefined when nothing says it is. `origins`: the
 * origins this gateway answers as (the request URL's and the configured public URL's). */
export function crossSiteReason(headers: SiteHeaders, origins: readonly string[]): string | undefined {
  const site = headers.get('sec-fetch-site') ?? undefined;
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'cross-site requests are refused';
  const origin = headers.get('origin') ?? undefined;
  if (origin === undefined) return undefined;
  return origins.includes(origin) ? undefined : 'cross-origin requests are refused';
}

/** The origins of `urls`, skipping undefined ones. */
export function originsOf(...urls: (string | undefined)[]): string[] {
  return urls.flatMap((u) => (u === undefined ? [] : [new URL(u).origin]));
}
