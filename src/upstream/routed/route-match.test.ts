import { describe, expect, it } from 'vitest';
import type { HttpRoute } from '../../config/types.ts';
import { compileGlob } from '../../policy/glob.ts';
import { chooseTarget } from './route-match.ts';

const globMatches = (pattern: string, value: string): boolean => compileGlob(pattern).matches(value);

describe('route patterns (the policy glob)', () => {
  it('matches literals exactly and case-sensitively', () => {
    expect(globMatches('us-east', 'us-east')).toBe(true);
    expect(globMatches('us-east', 'US-EAST')).toBe(false);
    expect(globMatches('us-east', 'us-east1')).toBe(false);
    expect(globMatches('', '')).toBe(true);
  });

  it('lets * match any run of characters, including none', () => {
    expect(globMatches('us-*', 'us-')).toBe(true);
    expect(globMatches('us-*', 'us-west-2')).toBe(true);
    expect(globMatches('*-west', 'eu-west')).toBe(true);
    expect(globMatches('a*b*c', 'aXXbYYbc')).toBe(true);
    expect(globMatches('a*b*c', 'aXXbYY')).toBe(false);
    expect(globMatches('*', '')).toBe(true);
    expect(globMatches('**', 'anything')).toBe(true);
  });

  it('lets ? match exactly one character, counted in code points', () => {
    expect(globMatches('eu-?', 'eu-1')).toBe(true);
    expect(globMatches('eu-?', 'eu-')).toBe(false);
    expect(globMatches('eu-?', 'eu-12')).toBe(false);
    expect(globMatches('eu-Z?rich', 'eu-Zürich')).toBe(true);
    expect(globMatches('tenant-?', 'tenant-😀')).toBe(true);
  });

  it('treats regular-expression and other punctuation as literal', () => {
    expect(globMatches('a.b', 'a.b')).toBe(true);
    expect(globMatches('a.b', 'aXb')).toBe(false);
    expect(globMatches('[ab]+', '[ab]+')).toBe(true);
    expect(globMatches('[ab]+', 'a')).toBe(false);
  });

  it('stays fast on inputs that make backtracking matchers explode', () => {
    const value = 'a'.repeat(20_000);
    const started = performance.now();
    expect(globMatches('*a*a*a*a*a*a*b', value)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('chooseTarget', () => {
  const route: HttpRoute = {
    by: 'Region',
    targets: [
      { pattern: 'us-*', url: 'http://us/mcp' },
      { pattern: 'eu-west', url: 'http://eu-west/mcp' },
      { pattern: 'eu-*', url: 'http://eu/mcp' },
    ],
    default: 'http://default/mcp',
  };

  it('takes the first matching pattern in config order', () => {
    expect(chooseTarget(route, 'eu-west')).toEqual({ kind: 'pattern', pattern: 'eu-west', url: 'http://eu-west/mcp' });
    expect(chooseTarget(route, 'eu-north')).toEqual({ kind: 'pattern', pattern: 'eu-*', url: 'http://eu/mcp' });
    expect(chooseTarget(route, 'us-east')).toEqual({ kind: 'pattern', pattern: 'us-*', url: 'http://us/mcp' });
  });

  it('falls back to the default, or reports no match when there is none', () => {
    expect(chooseTarget(route, 'ap-south')).toEqual({ kind: 'default', url: 'http://default/mcp' });
    const { default: _, ...strict } = route;
    expect(chooseTarget(strict, 'ap-south')).toEqual({ kind: 'unmatched' });
    expect(chooseTarget(strict, 'US-EAST')).toEqual({ kind: 'unmatched' });
  });
});
