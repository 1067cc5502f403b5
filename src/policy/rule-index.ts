// Finds the few rules that could apply to an action without looking at all of them, so a
// policy of thousands of rules still decides in microseconds.
//
// Rules are bucketed per item kind. A rule that names items (tool/prompt/resource globs) is
// filed under each glob's literal prefix ("weather__" for "weather__*", the whole name for a
// literal); a rule that names none but has upstream globs is filed under theirs; the rest
// are candidates for everything of the kind. A lookup tries the value's own text, then each
// prefix length that some glob has. Candidates still go through every condition: the index
// only ever removes rules that cannot match.

import type { ActionKind, PolicyAction } from './decision.ts';
import type { CompiledRule } from './compile-rule.ts';
import type { GlobSet } from './glob.ts';
import { nameGlobs } from './rule-match.ts';

const KINDS: readonly ActionKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

export interface RuleIndex {
  /** Indexes of rules that may apply to `action`, ascending (load order). */
  candidates(action: PolicyAction): number[];
}

interface PrefixIndex {
  exact: Map<string, number[]>;
  prefixes: Map<string, number[]>;
  /** Distinct prefix lengths, ascending. */
  lengths: number[];
}

interface KindIndex {
  byName: PrefixIndex;
  byUpstream: PrefixIndex;
  always: number[];
}

export function buildRuleIndex(rules: readonly CompiledRule[]): RuleIndex {
  const kinds = new Map<ActionKind, KindIndex>();
  for (const kind of KINDS) {
    const index: KindIndex = { byName: emptyPrefixIndex(), byUpstream: emptyPrefixIndex(), always: [] };
    for (const rule of rules) {
      const names = nameGlobs(rule, kind);
      if (names === null) continue;
      if (names !== undefined) file(index.byName, names, rule.index);
      else if (rule.upstream !== undefined) file(index.byUpstream, rule.upstream, rule.index);
      else index.always.push(rule.index);
    }
    index.byName.lengths.sort((a, b) => a - b);
    index.byUpstream.lengths.sort((a, b) => a - b);
    kinds.set(kind, index);
  }
  // Marks "already collected" without clearing an array per lookup.
  const seen = new Uint32Array(rules.length);
  let stamp = 0;

  return {
    candidates(action) {
      const index = kinds.get(action.kind);
      if (index === undefined) return [];
      stamp = stamp === 0xffffffff ? (seen.fill(0), 1) : stamp + 1;
      const out: number[] = [];
      const collect = (ids: readonly number[] | undefined): void => {
        if (ids === undefined) return;
        for (const id of ids) {
          if (seen[id] !== stamp) {
            seen[id] = stamp;
            out.push(id);
          }
        }
      };
      lookup(index.byName, action.name, collect);
      lookup(index.byUpstream, action.upstream, collect);
      collect(index.always);
      return out.length > 1 ? out.sort((a, b) => a - b) : out;
    },
  };
}

function emptyPrefixIndex(): PrefixIndex {
  return { exact: new Map(), prefixes: new Map(), lengths: [] };
}

function file(index: PrefixIndex, globs: GlobSet, rule: number): void {
  for (const glob of globs.globs) {
    const map = glob.literal ? index.exact : index.prefixes;
    const key = glob.literal ? glob.pattern : glob.prefix;
    const ids = map.get(key);
    if (ids === undefined) map.set(key, [rule]);
    else if (ids[ids.length - 1] !== rule) ids.push(rule);
    if (!glob.literal && !index.lengths.includes(key.length)) index.lengths.push(key.length);
  }
}

function lookup(index: PrefixIndex, value: string, collect: (ids: readonly number[] | undefined) => void): void {
  collect(index.exact.get(value));
  for (const length of index.lengths) {
    if (length > value.length) break;
    collect(index.prefixes.get(length === value.length ? value : value.slice(0, length)));
  }
}
