import { describe, expect, it } from 'vitest';
import type { HttpRoute } from '../../config/types.ts';
import { chooseTarget } from './route-match.ts';

// The patterns are the policy's globs: their matching is tested in policy/glob.test.ts.
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
