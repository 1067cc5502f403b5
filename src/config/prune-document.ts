// The part of a config document the schema accepted: the document with every value a schema
// issue points at taken out (an object's key deleted, an array's item dropped), so the later
// loading stages (normalisation, the checks between fields, reading the files it names) can
// still run on the rest and report their own problems in the same run. Array items dropped
// shift the indices after them; `toOriginal` maps a path in the pruned document back to the
// path in the document as written, where the operator will look. Pure: no I/O.

import { fromPointer, toPointer } from './config-error.ts';

export interface PrunedDocument {
  value: unknown;
  /** A JSON pointer into `value`, as a pointer into the document before pruning. */
  toOriginal(path: string): string;
}

/** Undefined when the root itself is pointed at: nothing is left to check. */
export function pruneDocument(data: unknown, pointers: ReadonlySet<string>): PrunedDocument | undefined {
  if (pointers.has('')) return undefined;
  // For each array that lost items (by its original pointer): the original index of each kept item.
  const kept = new Map<string, number[]>();
  const REMOVED = Symbol('removed');
  const walk = (v: unknown, at: string): unknown => {
    if (pointers.has(at)) return REMOVED;
    if (Array.isArray(v)) {
      const items = v.map((item, i) => ({ i, value: walk(item, `${at}${toPointer([i])}`) })).filter((x) => x.value !== REMOVED);
      if (items.length !== v.length) kept.set(at, items.map((x) => x.i));
      return items.map((x) => x.value);
    }
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        const value = walk(item, `${at}${toPointer([k])}`);
        if (value !== REMOVED) out[k] = value;
      }
      return out;
    }
    return v;
  };
  const value = walk(data, '');
  return {
    value,
    toOriginal(path) {
      let at = '';
      for (const segment of fromPointer(path)) {
        const indices = kept.get(at);
        const index = Number(segment);
        at += toPointer([indices !== undefined && Number.isInteger(index) ? (indices[index] ?? index) : segment]);
      }
      return at;
    },
  };
}

/** One path is the other or lies within it: a problem at one may be the other's consequence. */
export function relatedPaths(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}
