// Picks the target of a routed upstream from the decoded `Mcp-Param-<by>` value (MCP 2026-07-28,
// custom headers from tool parameters: the header exists so that intermediaries can route without reading the body).
// Pure: reading the header, contacting the target and logging are routed-upstream.ts's job.
import type { HttpRoute } from '../../config/types.ts';
import { compileGlob, type Glob } from '../../policy/glob.ts';

export type RouteChoice =
  /** A pattern matched; `pattern` is the one written in the config. */
  | { kind: 'pattern'; pattern: string; url: string }
  /** No pattern matched and the route has a default. */
  | { kind: 'default'; url: string }
  /** No pattern matched and there is no default: the caller refuses the call. */
  | { kind: 'unmatched' };

/** Each target's glob, compiled on first use (the config is frozen, so targets are stable). */
const compiled = new WeakMap<object, Glob>();
function globOf(target: { pattern: string }): Glob {
  let g = compiled.get(target);
  if (g === undefined) compiled.set(target, (g = compileGlob(target.pattern)));
  return g;
}

/** Patterns are tried in config order; the first match wins, then `default`. Patterns are
 * the policy's globs (policy/glob.ts): `*` any run, `?` one code point, the rest literal and
 * case-sensitive (header values are: RFC 9110), matched in time linear in pattern x value. */
export function chooseTarget(route: HttpRoute, value: string): RouteChoice {
  for (const t of route.targets) {
    if (globOf(t).matches(value)) return { kind: 'pattern', pattern: t.pattern, url: t.url };
  }
  return route.default === undefined ? { kind: 'unmatched' } : { kind: 'default', url: route.default };
}
