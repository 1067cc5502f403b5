import { describe, expect, it } from 'vitest';
import { compileGlob, compileGlobSet } from './glob.ts';

function matches(pattern: string, value: string): boolean {
  return compileGlob(pattern).matches(value);
}

describe('globs', () => {
  it('matches a literal exactly and case-sensitively', () => {
    expect(matches('weather__forecast', 'weather__forecast')).toBe(true);
    expect(matches('weather__forecast', 'weather__Forecast')).toBe(false);
    expect(matches('weather__forecast', 'weather__forecast2')).toBe(false);
  });

  it('lets * match any run of characters, also none', () => {
    expect(matches('weather__*', 'weather__')).toBe(true);
    expect(matches('weather__*', 'weather__forecast')).toBe(true);
    expect(matches('weather__*', 'weathe__forecast')).toBe(false);
    expect(matches('*', '')).toBe(true);
    expect(matches('*__get-*', 'everything__get-sum')).toBe(true);
    expect(matches('*-sum', 'everything__get-sum')).toBe(true);
    expect(matches('a*b*c', 'abc')).toBe(true);
    expect(matches('a*b*c', 'axxbyyc')).toBe(true);
    expect(matches('a*b*c', 'acb')).toBe(false);
    expect(matches('a*a', 'a')).toBe(false);
    expect(matches('ab*ba', 'aba')).toBe(false);
  });

  it('lets ? match exactly one character (a code point)', () => {
    expect(matches('eu-?', 'eu-1')).toBe(true);
    expect(matches('eu-?', 'eu-12')).toBe(false);
    expect(matches('eu-?', 'eu-')).toBe(false);
    expect(matches('caf?', 'café')).toBe(true);
    expect(matches('?*?', 'ab')).toBe(true);
    expect(matches('?*?', 'a')).toBe(false);
    expect(matches('a?c*x?z', 'abcQQxyz')).toBe(true);
    expect(matches('a?c*x?z', 'abcQQxz')).toBe(false);
  });

  it('has no escapes: regex metacharacters are literal', () => {
    expect(matches('file:///data/(a|b).txt', 'file:///data/(a|b).txt')).toBe(true);
    expect(matches('a.b', 'axb')).toBe(false);
    expect(matches('[ab]*', '[ab]x')).toBe(true);
  });

  it('answers patterns that would backtrack as a RegExp (one would not end within the test)', () => {
    const value = 'a'.repeat(20_000);
    expect(matches('*a*a*a*a*a*b', value)).toBe(false);
    expect(matches('*a?a*a?a*a?b', value)).toBe(false);
  });

  it('reports the literal prefix used for indexing', () => {
    expect(compileGlob('weather__*').prefix).toBe('weather__');
    expect(compileGlob('eu-?x').prefix).toBe('eu-');
    expect(compileGlob('exact').prefix).toBe('exact');
    expect(compileGlob('exact').literal).toBe(true);
  });

  it('matches a set when any glob does and names the first that does', () => {
    const set = compileGlobSet(['a', 'b*', '*c']);
    expect(set.matches('a')).toBe(true);
    expect(set.matches('bz')).toBe(true);
    expect(set.matches('zc')).toBe(true);
    expect(set.matches('z')).toBe(false);
    expect(set.firstMatch('bc')).toBe('b*');
    expect(compileGlobSet('one').patterns).toEqual(['one']);
  });
});
