// Globs of policy rules, compiled once when the policy loads.
//
// `*` matches any run of characters (also none), `?` exactly one character (a Unicode code
// point); everything else is literal and case-sensitive. There is no escape: `?` also
// matches a literal "?", and MCP tool and prompt names cannot contain `*` or `?`.
//
// Why not a RegExp: values come from clients (Mcp-Param-* headers, claims) and a pattern like
// `*a*a*a*b` backtracks polynomially in V8. A glob splits at `*` into fixed-length segments;
// the first is anchored at the start, the last at the end, and each middle one is placed at
// its leftmost fit, which is exact for fixed-length segments and O(pattern x value).

export const GLOB_WILDCARDS = /[*?]/;

export interface Glob {
  readonly pattern: string;
  /** No wildcard: the glob matches exactly its own text. */
  readonly literal: boolean;
  /** The text before the first wildcard; every match starts with it (rule indexing). */
  readonly prefix: string;
  matches(value: string): boolean;
}

export function compileGlob(pattern: string): Glob {
  const wildcard = pattern.search(GLOB_WILDCARDS);
  const literal = wildcard === -1;
  const prefix = literal ? pattern : pattern.slice(0, wildcard);
  return { pattern, literal, prefix, matches: literal ? (v) => v === pattern : segmentMatcher(pattern) };
}

function segmentMatcher(pattern: string): (value: string) => boolean {
  if (!pattern.includes('?')) {
    const parts = pattern.split('*');
    const first = parts[0] ?? '';
    const last = parts[parts.length - 1] ?? '';
    const middle = parts.slice(1, -1).filter((p) => p !== '');
    const fixed = first.length + last.length;
    // The common shapes get one string call.
    if (middle.length === 0 && last === '') return (v) => v.startsWith(first);
    if (middle.length === 0 && first === '') return (v) => v.endsWith(last);
    return (v) => {
      if (v.length < fixed || !v.startsWith(first) || !v.endsWith(last)) return false;
      let at = first.length;
      const end = v.length - last.length;
      for (const part of middle) {
        const found = v.indexOf(part, at);
        if (found === -1 || found + part.length > end) return false;
        at = found + part.length;
      }
      return true;
    };
  }
  // With `?`, positions count code points, so compare arrays of them.
  const parts = pattern.split('*').map((p) => Array.from(p));
  const first = parts[0] ?? [];
  const last = parts.length > 1 ? (parts[parts.length - 1] ?? []) : [];
  const middle = parts.slice(1, -1).filter((p) => p.length > 0);
  const exact = parts.length === 1;
  return (value) => {
    const v = Array.from(value);
    if (exact) return v.length === first.length && fitsAt(first, v, 0);
    const end = v.length - last.length;
    if (end < first.length || !fitsAt(first, v, 0) || !fitsAt(last, v, end)) return false;
    let at = first.length;
    for (const part of middle) {
      while (at + part.length <= end && !fitsAt(part, v, at)) at++;
      if (at + part.length > end) return false;
      at += part.length;
    }
    return true;
  };
}

function fitsAt(segment: readonly string[], value: readonly string[], at: number): boolean {
  for (let i = 0; i < segment.length; i++) {
    const s = segment[i];
    if (s !== '?' && s !== value[at + i]) return false;
  }
  return true;
}

/** Any-of list of globs: literals in a Set, the rest tried in order. */
export interface GlobSet {
  readonly patterns: readonly string[];
  readonly globs: readonly Glob[];
  matches(value: string): boolean;
  /** The first pattern (in written order) that matches, for explanations. */
  firstMatch(value: string): string | undefined;
}

export function compileGlobSet(patterns: string | readonly string[]): GlobSet {
  const list = typeof patterns === 'string' ? [patterns] : [...patterns];
  const globs = list.map(compileGlob);
  const exact = new Set(globs.filter((g) => g.literal).map((g) => g.pattern));
  const wild = globs.filter((g) => !g.literal);
  return {
    patterns: list,
    globs,
    matches(value) {
      if (exact.has(value)) return true;
      for (const g of wild) if (g.matches(value)) return true;
      return false;
    },
    firstMatch(value) {
      return globs.find((g) => g.matches(value))?.pattern;
    },
  };
}
