import { describe, expect, it } from 'vitest';
import { createSchemaCheck } from './schema-issues.ts';

const GLOBS = {
  oneOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
  ],
  errorMessage: 'expected a glob or a non-empty list of globs',
};

const check = createSchemaCheck({
  type: 'object',
  additionalProperties: false,
  properties: {
    tool: GLOBS,
    pattern: { anyOf: [{ enum: ['jwt'] }, { type: 'object', required: ['regex'] }], errorMessage: 'expected "jwt" or { regex }' },
    id: { type: 'string', pattern: '^[a-z]+$', errorMessage: 'expected a lower-case id' },
    count: { type: 'integer' },
    names: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string' } },
    env: { type: 'object', propertyNames: { pattern: '^[A-Z]+$', errorMessage: 'expected an upper-case name' } },
    effect: { enum: ['allow', 'approve'] },
    approval: { type: 'object' },
  },
  if: { required: ['effect'], properties: { effect: { const: 'approve' } } },
  then: { required: ['approval'], errorMessage: 'effect approve needs `approval`' },
});

describe('createSchemaCheck: one message per fault, with path and what was found', () => {
  it('accepts a valid document', () => expect(check({ tool: ['a*'], count: 2 })).toEqual([]));

  it('lets a oneOf or anyOf with its own message speak for all of its branches', () => {
    expect(check({ tool: ['a', ''] })).toEqual([{ path: '/tool', atKey: false, message: 'expected a glob or a non-empty list of globs' }]);
    expect(check({ pattern: 'jwtt' })).toEqual([{ path: '/pattern', atKey: false, message: 'expected "jwt" or { regex }' }]);
  });

  it('ends a custom message with the value found when the keyword judges the value', () => {
    expect(check({ id: 7 })).toEqual([{ path: '/id', atKey: false, message: 'expected a lower-case id, got 7' }]);
    expect(check({ id: 'A' })).toEqual([{ path: '/id', atKey: false, message: 'expected a lower-case id, got "A"' }]);
  });

  it('shows a fraction where an integer belongs, and names other wrong types', () => {
    expect(check({ count: 1.5 })[0]?.message).toBe('expected integer, got 1.5');
    expect(check({ count: '1' })[0]?.message).toBe('expected integer, got string');
  });

  it('points at the later copy of a duplicate item and says which one it repeats', () => {
    expect(check({ names: ['a', 'b', 'a'] })).toEqual([{ path: '/names/2', atKey: false, message: 'duplicate item "a" (same as item 0)' }]);
    expect(check({ names: [] })[0]?.message).toBe('expected at least one item, got none');
  });

  it('reports keys at the key: unknown ones with the allowed list, badly named ones with the rule', () => {
    expect(check({ bogus: 1 })[0]).toEqual({ path: '/bogus', atKey: true, message: expect.stringMatching(/^unknown key "bogus" \(allowed: tool, pattern, /) });
    expect(check({ env: { lower: 'x' } })).toEqual([{ path: '/env/lower', atKey: true, message: 'invalid key "lower": expected an upper-case name' }]);
  });

  it('reports what `then` asks for, not that `if` matched', () => {
    expect(check({ effect: 'approve' })).toEqual([{ path: '', atKey: false, message: 'effect approve needs `approval`' }]);
  });
});
