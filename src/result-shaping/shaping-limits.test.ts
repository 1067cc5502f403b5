import { describe, expect, it } from 'vitest';
import { compileLimits } from './shaping-limits.ts';

const defaults = { maxBytes: 1000, strategy: 'head' as const, structured: 'keep' as const, maxMediaBytes: 500 };

describe('compileLimits', () => {
  const limitsFor = compileLimits({
    defaults,
    rules: [
      { upstream: 'files', maxBytes: 200, strategy: 'refuse' },
      { tool: 'files__grep*', maxBytes: 50 },
      { tool: 'files__*', structured: 'refuse' },
      { tool: 'files__grep_all', maxBytes: 10 },
    ],
  });

  it('gives a tool rule precedence over an upstream rule, field by field, first match first', () => {
    expect(limitsFor('files__grep_all', 'files')).toEqual({ maxBytes: 50, strategy: 'refuse', structured: 'refuse', maxMediaBytes: 500 });
    expect(limitsFor('files__read', 'files')).toEqual({ maxBytes: 200, strategy: 'refuse', structured: 'refuse', maxMediaBytes: 500 });
  });

  it('falls back to the gateway-wide settings', () => {
    expect(limitsFor('web__fetch', 'web')).toEqual(defaults);
  });
});
