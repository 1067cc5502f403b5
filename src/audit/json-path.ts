// The simple JSON paths of `audit.redact.paths`: a subset of JSONPath (RFC 9535) that names
// places, with no filters or slices, because redaction only needs "this member, any item,
// at any depth":
//
//   $                 the whole value
//   .name  ['name']   an object member ("name" may be any text inside quotes)
//   [3]               an array item
//   .*  [*]           any member or item
//   ..name  ..*  ..[0]  the same selector at any depth below (descendant segment)
//
// Paths are matched while the redactor walks the value, as a small NFA: a state is
// (path, position), and each step down a member or item advances every state at once, so
// many paths cost one walk. Parsing is at boot; matching is pure.
import { err, ok, type Result } from '../protocol/result.ts';

export type PathSelector = { kind: 'name'; name: string } | { kind: 'index'; index: number } | { kind: 'any' };

export interface PathSegment {
  /** `..`: the selector applies at this level or any level below. */
  descendant: boolean;
  selector: PathSelector;
}

const NAME = /^[^.[\]\s'"*]+/;
const BRACKET = /^\[(?:(\d+)|\*|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/;

export function parseJsonPath(text: string): Result<PathSegment[], string> {
  if (!text.startsWith('$')) return err('a path starts with "$"');
  const segments: PathSegment[] = [];
  let rest = text.slice(1);
  while (rest !== '') {
    let descendant = false;
    if (rest.startsWith('..')) {
      descendant = true;
      rest = rest.slice(2);
    } else if (rest.startsWith('.')) {
      rest = rest.slice(1);
    } else if (!rest.startsWith('[')) {
      return err(`expected ".", ".." or "[" at ${JSON.stringify(rest)}`);
    }
    const dotted = !rest.startsWith('[');
    if (dotted && rest.startsWith('*')) {
      segments.push({ descendant, selector: { kind: 'any' } });
      rest = rest.slice(1);
      continue;
    }
    const name = dotted ? NAME.exec(rest) : null;
    if (name !== null) {
      segments.push({ descendant, selector: { kind: 'name', name: name[0] } });
      rest = rest.slice(name[0].length);
      continue;
    }
    const bracket = dotted ? null : BRACKET.exec(rest);
    if (bracket === null) return err(`expected a member name, "*", [index], [*] or ['name'] at ${JSON.stringify(rest)}`);
    const [whole, index, single, double] = bracket;
    const quoted = single ?? double;
    const selector: PathSelector =
      index !== undefined
        ? { kind: 'index', index: Number(index) }
        : quoted !== undefined
          ? { kind: 'name', name: quoted.replace(/\\(.)/g, '$1') }
          : { kind: 'any' };
    segments.push({ descendant, selector });
    rest = rest.slice(whole.length);
  }
  return ok(segments);
}

/** States of the path NFA: `path * STRIDE + position`. */
export type PathStates = readonly number[];

export interface PathSet {
  /** States before the first step; empty when there are no paths. */
  readonly initial: PathStates;
  /** Some path is `$`: the whole value matches. */
  readonly matchesRoot: boolean;
  /** States after stepping into member or item `key`, and whether a path ends there. */
  step(states: PathStates, key: string | number): { states: PathStates; matched: boolean };
}

const STRIDE = 1024;

export function compilePathSet(paths: readonly (readonly PathSegment[])[]): PathSet {
  if (paths.some((p) => p.length >= STRIDE)) throw new Error('compilePathSet: path too long');
  const live = paths.map((p, i) => ({ p, i })).filter(({ p }) => p.length > 0);
  return {
    initial: live.map(({ i }) => i * STRIDE),
    matchesRoot: paths.some((p) => p.length === 0),
    step(states, key) {
      const next = new Set<number>();
      let matched = false;
      for (const state of states) {
        const path = paths[Math.floor(state / STRIDE)] ?? [];
        const position = state % STRIDE;
        const segment = path[position];
        if (segment === undefined) continue;
        // A descendant segment may still match further down, so it stays alive.
        if (segment.descendant) next.add(state);
        if (!selects(segment.selector, key)) continue;
        if (position + 1 === path.length) matched = true;
        else next.add(state + 1);
      }
      return { states: [...next], matched };
    },
  };
}

function selects(selector: PathSelector, key: string | number): boolean {
  switch (selector.kind) {
    case 'any':
      return true;
    case 'name':
      return key === selector.name;
    case 'index':
      return key === selector.index;
  }
}
