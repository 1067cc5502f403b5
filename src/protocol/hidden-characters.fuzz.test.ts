// Property tests of the escaping that keeps client text inert on operators' screens: JSON
// text escaped this way is the same JSON value, and holds no hidden character any more.
// Bounded runs; fast-check prints the seed and the shrunk case on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHiddenCharacters, hasHiddenCharacters, valueHasHiddenCharacters } from './hidden-characters.ts';

const RUNS = { numRuns: 300 };
const sneaky = fc.string({ unit: fc.constantFrom('a', 'é', '"', '\\', '\n', '\u001b', '\u0085', '\u200b', '\u202e', '\u2066', '\u2028', '\ufeff', '😀'), maxLength: 12 });
const json = fc.jsonValue({ maxDepth: 3 }).chain((v) => sneaky.map((s) => ({ v, s, key: { [s]: s } })));

describe('hidden characters, properties', () => {
  it('escaping JSON text keeps its value and leaves no hidden character in it', () => {
    fc.assert(
      fc.property(json, ({ v, key }) => {
        const text = JSON.stringify([v, key]);
        const inert = escapeHiddenCharacters(text);
        expect(hasHiddenCharacters(inert)).toBe(false);
        expect(JSON.parse(inert)).toEqual(JSON.parse(text));
      }),
      RUNS,
    );
  });

  it('finds a hidden character in a value exactly when its JSON text has one or JSON escaped a control', () => {
    fc.assert(
      fc.property(sneaky, (s) => {
        expect(valueHasHiddenCharacters({ [s]: [s] })).toBe(hasHiddenCharacters(s));
      }),
      RUNS,
    );
  });
});
