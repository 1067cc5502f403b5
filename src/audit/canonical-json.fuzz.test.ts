// Property tests of canonical JSON (RFC 8785) against JSON.parse round trips: the audit
// chain hashes canonicalJson of a record when writing and of JSON.parse(line) when verifying,
// so the two must agree for every value; and the text must be the one canonical spelling
// (keys sorted by UTF-16 code units at every depth, no whitespace), whatever the key order.
// Bounded runs; fast-check prints the seed and the shrunk case on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';

const RUNS = { numRuns: 300 };
const json = fc.jsonValue({ maxDepth: 4 });

/** The same value with every object's keys in another order. */
function shuffled(v: unknown, seed: number): unknown {
  if (Array.isArray(v)) return v.map((x, i) => shuffled(x, seed + i));
  if (typeof v !== 'object' || v === null) return v;
  const entries = Object.entries(v);
  const order = entries.map((e, i) => ({ e, k: (i * 7919 + seed) % (entries.length + 3) })).sort((a, b) => a.k - b.k);
  const out: Record<string, unknown> = {};
  for (const { e } of order) Object.defineProperty(out, e[0], { value: shuffled(e[1], seed + 1), enumerable: true, writable: true, configurable: true });
  return out;
}

/** RFC 8785 for JSON values, written plainly as a reference: members sorted by UTF-16 code
 * units (what Array.prototype.sort compares), primitives as JSON.stringify writes them. */
function reference(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

describe('canonicalJson, properties', () => {
  it('gives a value and its JSON.parse round trip the same text (what the writer and verify hash)', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(canonicalJson(JSON.parse(JSON.stringify(v)))).toBe(canonicalJson(v));
      }),
      RUNS,
    );
  });

  it('is the RFC 8785 text: members sorted by UTF-16 code units at every depth, no whitespace', () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
        expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      RUNS,
    );
  });

  it('does not depend on key order, and is a fixed point of parse-then-canonicalise', () => {
    fc.assert(
      fc.property(json, fc.nat(), (v, seed) => {
        const text = canonicalJson(v);
        expect(canonicalJson(shuffled(v, seed))).toBe(text);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      RUNS,
    );
  });
});
