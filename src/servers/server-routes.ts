// Which endpoint answers a request: by path, then by Host for servers that name one (pure).
// A server with `host` answers its path on that host only; one without answers it on every
// host that has no server of its own there; the default endpoint is such a host-less entry.
// Built with each config (a reload builds another); a lookup is two map reads.

/** The host of a Host header value, lower-cased, without its port (RFC 9110 section 7.2). */
export function hostOf(header: string | undefined): string {
  if (header === undefined) return '';
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

export interface RouteEntry<T> {
  path: string;
  /** Lower-case host name; undefined: any host. */
  host: string | undefined;
  target: T;
}

export type RouteLookup<T> = (path: string, hostHeader: string | undefined) => T | undefined;

export function buildRouteTable<T>(entries: readonly RouteEntry<T>[]): RouteLookup<T> {
  const byPath = new Map<string, { any?: T; hosts: Map<string, T> }>();
  for (const e of entries) {
    let at = byPath.get(e.path);
    if (at === undefined) byPath.set(e.path, (at = { hosts: new Map() }));
    // First one wins; the config check has refused clashes already.
    if (e.host === undefined) at.any ??= e.target;
    else if (!at.hosts.has(e.host)) at.hosts.set(e.host, e.target);
  }
  return (path, hostHeader) => {
    const at = byPath.get(path);
    if (at === undefined) return undefined;
    return (at.hosts.size > 0 ? at.hosts.get(hostOf(hostHeader)) : undefined) ?? at.any;
  };
}
