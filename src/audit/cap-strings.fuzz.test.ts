// Property tests of the audit record's string cap: a cut string is a prefix of the original
// within the byte budget, never half a character, and says exactly how many bytes it left
// out; an uncut one is the original; the one-walk record text equals cut-then-canonicalize. Bounded runs; fast-check prints the seed on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capRecordStrings, cappedCanonicalRecord, capString, CUT_MARKER_PREFIX } from './cap-strings.ts';
import { canonicalRecord } from './hash-chain.ts';

const text = fc.string({ unit: fc.constantFrom('a', 'é', '日', '😀', '…', '['), maxLength: 200 });

describe('capString, properties', () => {
  it('keeps a prefix within the budget and counts the rest exactly', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 120 }), (s, max) => {
        const out = capString(s, max);
        const total = Buffer.byteLength(s);
        if (total <= max) {
          expect(out).toBe(s);
          return;
        }
        const m = /^([\s\S]*)…\[cut (\d+) bytes\]$/.exec(out);
        expect(m).not.toBeNull();
        const kept = m![1]!;
        expect(s.startsWith(kept)).toBe(true);
        expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(max);
        expect(Buffer.byteLength(kept) + Number(m![2])).toBe(total);
        // As much as fits: one more character would not.
        const nextChar = String.fromCodePoint(s.codePointAt(kept.length)!);
        expect(Buffer.byteLength(kept + nextChar)).toBeGreaterThan(max);
        expect(out.startsWith(kept + CUT_MARKER_PREFIX)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

// Records the pipeline could build: nested objects and arrays, keys in any order, strings of
// any size, a request record's bodies. The one-walk path must give exactly the text of the
// two-step one (cut, then canonicalize), and say so when it cut.
const key = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '_'), minLength: 1, maxLength: 90 });
const leaf = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null));
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
})).value;

describe('cappedCanonicalRecord, properties', () => {
  it('gives the text of cutting first and canonicalizing after, and reports a cut exactly when there was one', () => {
    fc.assert(
      fc.property(fc.dictionary(key, json, { maxKeys: 6 }), fc.boolean(), fc.integer({ min: 64, max: 160 }), (fields, request, max) => {
        const record = request ? { ...fields, type: 'request', arguments: { full: fields } } : { ...fields, type: 'event' };
        const capped = capRecordStrings(record, max);
        const out = cappedCanonicalRecord(record, max);
        expect(out.text).toBe(canonicalRecord(capped));
        expect(out.cut).toBe(capped !== record);
      }),
      { numRuns: 500 },
    );
  });
});
