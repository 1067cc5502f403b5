// Picks the target of a routed upstream from the decoded `Mcp-Param-<by>` value (spec digest
// (c): the header exists so that intermediaries can route without reading the body).
// Pure: reading the header, contacting the target and logging are routed-upstream.ts's job.
import type { HttpRoute } from '../../config/types.ts';

export type RouteChoice =
  /** A pattern matched; `pattern` is the one written in the config. */
  | { kind: 'pattern'; pattern: string; url: string }
  /** No pattern matched and the route has a default. */
  | { kind: 'default'; url: string }
  /** No pattern matched and there is no default: the caller refuses the call. */
  | { kind: 'unmatched' };

/** Patterns are tried in config order; the first match wins, then `default`. */
export function chooseTarget(route: HttpRoute, value: string): RouteChoice {
  for (const t of route.targets) {
    if (globMatches(t.pattern, value)) return { kind: 'pattern', pattern: t.pattern, url: t.url };
  }
  return route.default === undefined ? { kind: 'unmatched' } : { kind: 'default', url: route.default };
}

/**
 * `*` matches any run of characters (also none), `?` exactly one; everything else is literal
 * and case-sensitive (header values are, RFC 9110 / MCP 2026-07-28, basic/transports/streamable-http (request headers)). Characters are Unicode code
 * points, so `?` matches "ü" in a Base64-carried value. Greedy matching with one backtrack
 * point (the last `*`) is O(pattern x value) at worst: values come from clients, so no
 * regular expression that could backtrack exponentially.
 */
export function globMatches(pattern: string, value: string): boolean {
  const p = Array.from(pattern);
  const v = Array.from(value);
  let pi = 0;
  let vi = 0;
  let star = -1;
  let resume = 0;
  while (vi < v.length) {
    if (pi < p.length && p[pi] === '*') {
      star = pi++;
      resume = vi;
    } else if (pi < p.length && (p[pi] === '?' || p[pi] === v[vi])) {
      pi++;
      vi++;
    } else if (star !== -1) {
      // Let the last `*` swallow one more character and try again from there.
      pi = star + 1;
      vi = ++resume;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}
