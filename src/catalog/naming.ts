// Exposed names for merged tools and prompts (docs/architecture.md §5 "Tool prefix"; MCP 2026-07-28, server/tools (tools/list):
// proxies that merge servers SHOULD resolve name collisions, names SHOULD be <= 128 chars).
//
// exposed = prefix === '' ? name : prefix + separator + name. A name over the length limit
// and a name already taken are both resolved deterministically and reported, never dropped:
// the same inputs always give the same names, on every replica and every run, so cached
// lists and LLM prompt caches stay valid. Names are documented as "split on the first
// separator", but resolution goes through the index below, so renamed items resolve too.
//
// Left to others: logging the renames (this module returns them), and the length limit's
// default and validation (config/).
import { createHash } from 'node:crypto';

export interface NamingSource {
  upstream: string;
  /** '' means no prefix. */
  prefix: string;
  /** The upstream's own item names, in the upstream's order. */
  names: readonly string[];
}

export interface NamingOptions {
  separator: string;
  maxNameLength: number;
}

export interface ExposedName {
  upstream: string;
  original: string;
  exposed: string;
}

export type RenameReason = 'too_long' | 'collision';

export interface Rename {
  upstream: string;
  original: string;
  exposed: string;
  /** 'collision' wins when an item was both shortened and then displaced. */
  reason: RenameReason;
}

export interface NamingResult {
  /** One entry per input name, flattened in (config order, then upstream order). */
  names: ExposedName[];
  renames: Rename[];
}

export interface NameTarget {
  upstream: string;
  name: string;
}

export type NameIndex = ReadonlyMap<string, NameTarget>;

const HASH_LENGTH = 8;
/** '_' + 8 hex chars appended to a shortened name. */
const SUFFIX_LENGTH = HASH_LENGTH + 1;

/** Keeps room for at least one character of the original before the hash suffix. */
export const MIN_NAME_LENGTH = SUFFIX_LENGTH + 1;

export function hash8(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, HASH_LENGTH);
}

export function prefixName(prefix: string, separator: string, name: string): string {
  return prefix === '' ? name : `${prefix}${separator}${name}`;
}

/** First (max - 9) chars + '_' + hash8 of the full name: stable, and distinct full names stay
 * distinct with overwhelming probability. */
export function shortenName(full: string, maxNameLength: number): string {
  if (full.length <= maxNameLength) return full;
  return `${full.slice(0, maxNameLength - SUFFIX_LENGTH)}_${hash8(full)}`;
}

export function assignNames(sources: readonly NamingSource[], opts: NamingOptions): NamingResult {
  const { separator, maxNameLength } = opts;
  if (!Number.isInteger(maxNameLength) || maxNameLength < MIN_NAME_LENGTH) {
    // Bad config, caught at boot by the first merge.
    throw new RangeError(`maxNameLength must be an integer >= ${MIN_NAME_LENGTH}, got ${maxNameLength}`);
  }

  // Pass 1: every item's natural (prefixed, maybe shortened) name; the first holder keeps it.
  const candidates: { upstream: string; original: string; base: string; shortened: boolean }[] = [];
  for (const source of sources) {
    for (const original of source.names) {
      const full = prefixName(source.prefix, separator, original);
      const base = shortenName(full, maxNameLength);
      candidates.push({ upstream: source.upstream, original, base, shortened: base !== full });
    }
  }
  const taken = new Set<string>();
  const keepsBase = candidates.map((c) => {
    if (taken.has(c.base)) return false;
    taken.add(c.base);
    return true;
  });

  // Pass 2: displaced items get a hashed suffix. Running after pass 1 means a generated name
  // never takes another item's natural name, so adding a duplicate in one upstream cannot
  // rename an unrelated item of another.
  const names: ExposedName[] = [];
  const renames: Rename[] = [];
  candidates.forEach((c, i) => {
    let exposed = c.base;
    let reason: RenameReason | undefined = c.shortened ? 'too_long' : undefined;
    if (!keepsBase[i]) {
      exposed = displacedName(c.base, c.upstream, c.original, maxNameLength, taken);
      taken.add(exposed);
      reason = 'collision';
    }
    names.push({ upstream: c.upstream, original: c.original, exposed });
    if (reason !== undefined) renames.push({ upstream: c.upstream, original: c.original, exposed, reason });
  });
  return { names, renames };
}

function displacedName(
  base: string,
  upstream: string,
  original: string,
  maxNameLength: number,
  taken: ReadonlySet<string>,
): string {
  // The first attempt hashes upstream + '/' + name; an upstream listing the same name twice
  // gives the same hash, so later attempts add a counter. Terminates: each attempt is new.
  for (let attempt = 0; ; attempt++) {
    const seed = attempt === 0 ? `${upstream}/${original}` : `${upstream}/${original}#${attempt}`;
    const suffix = `_${hash8(seed)}`;
    const head = base.length + suffix.length <= maxNameLength ? base : base.slice(0, maxNameLength - suffix.length);
    const name = `${head}${suffix}`;
    if (!taken.has(name)) return name;
  }
}

export function buildNameIndex(names: readonly ExposedName[]): NameIndex {
  const index = new Map<string, NameTarget>();
  for (const n of names) {
    if (index.has(n.exposed)) {
      // assignNames never produces duplicates; reaching here is a bug in the caller.
      throw new Error(`duplicate exposed name: ${n.exposed}`);
    }
    index.set(n.exposed, { upstream: n.upstream, name: n.original });
  }
  return index;
}

export function resolveName(index: NameIndex, exposed: string): NameTarget | undefined {
  return index.get(exposed);
}
