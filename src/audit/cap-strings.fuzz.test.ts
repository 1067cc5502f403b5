// Property tests of the audit record's string cap: a cut string is a prefix of the original
// within the byte budget, never half a character, and says exactly how many bytes it left
// out; an uncut one is the original. Bounded runs; fast-check prints the seed on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capString, CUT_MARKER_PREFIX } from './cap-strings.ts';

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
