import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../protocol/message.ts';
import { SchemaValidator } from './schema-validator.ts';

describe('SchemaValidator', () => {
  const v = new SchemaValidator();
  const schema = { type: 'object', properties: { days: { type: 'integer', maximum: 7 } }, required: ['days'] };

  it('accepts valid arguments and names the first problem of invalid ones', () => {
    expect(v.validate(schema, { days: 3 })).toEqual({ kind: 'valid' });
    expect(v.validate(schema, { days: 9 })).toEqual({ kind: 'invalid', message: '/days must be <= 7' });
    expect(v.validate(schema, {})).toEqual({ kind: 'invalid', message: "(root) must have required property 'days'" });
  });

  it('compiles each schema object once', () => {
    const s = { type: 'object' };
    const a = v.validate(s, {});
    const b = v.validate(s, {});
    expect(a).toEqual(b);
  });

  it('honours draft-07 and 2020-12 dialects, and reports others as unchecked', () => {
    const d7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } };
    expect(v.validate(d7, { a: 1 })).toEqual({ kind: 'invalid', message: '/a must be string' });
    const d2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', prefixItems: [] };
    expect(v.validate(d2020, {})).toEqual({ kind: 'valid' });
    const odd = { $schema: 'http://example.com/my-dialect', type: 'object' };
    expect(v.validate(odd, {})).toEqual({ kind: 'unchecked', reason: 'unsupported JSON Schema dialect http://example.com/my-dialect' });
  });

  it('never fetches a network $ref: such a schema is unchecked, not an error', () => {
    const remote = { type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } };
    const r = v.validate(remote, { a: 1 });
    expect(r.kind).toBe('unchecked');
  });

  it('ignores unknown keywords such as x-mcp-header', () => {
    expect(v.validate({ type: 'object', properties: { r: { type: 'string', 'x-mcp-header': 'Region' } } }, { r: 'x' })).toEqual({ kind: 'valid' });
  });

  it('checks every copy of a schema with an $id, as a refreshed tool list brings (not "unchecked" after the first)', () => {
    const fresh = (): JsonObject => ({
      $id: 'https://tools.example.com/input.json',
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    });
    for (let i = 0; i < 3; i++) expect(v.validate(fresh(), { n: 'x' })).toEqual({ kind: 'invalid', message: '/n must be integer' });
  });

  it("never lets one tool's $id answer another tool's $ref", () => {
    const loose = { $id: 'https://tools.example.com/shared.json', type: 'object' };
    expect(v.validate(loose, { n: 'x' })).toEqual({ kind: 'valid' });
    const other = { type: 'object', properties: { n: { $ref: 'https://tools.example.com/shared.json' } } };
    expect(v.validate(other, { n: 'x' }).kind).toBe('unchecked');
  });
  it('runs pattern on RE2: a catastrophic pattern against a long string is answered', () => {
    const v = new SchemaValidator();
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    // Backtracking RegExp needs about 2^40 steps for this (hours): it would not end within the test.
    const res = v.validate(schema, { s: `${'a'.repeat(40)}!` });
    expect(res).toMatchObject({ kind: 'invalid', message: expect.stringContaining('must match pattern') });
    expect(v.validate(schema, { s: 'aaaa' })).toEqual({ kind: 'valid' });
  });

  it('keeps patterns RE2 cannot express (lookahead, backreference) working on RegExp', () => {
    const v = new SchemaValidator();
    const look = { type: 'object', properties: { s: { type: 'string', pattern: '^(?!admin).*$' } } };
    expect(v.validate(look, { s: 'user' })).toEqual({ kind: 'valid' });
    expect(v.validate(look, { s: 'admin1' })).toMatchObject({ kind: 'invalid' });
    const back = { type: 'object', properties: { s: { type: 'string', pattern: '^(\\w)\\1$' } } };
    expect(v.validate(back, { s: 'aa' })).toEqual({ kind: 'valid' });
    expect(v.validate(back, { s: 'ab' })).toMatchObject({ kind: 'invalid' });
  });

  it('matches patterns as JSON Schema does: unanchored unless anchored, unicode classes', () => {
    const v = new SchemaValidator();
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: 'eu-' }, b: { type: 'string', pattern: '^\\p{L}+$' } } };
    expect(v.validate(schema, { a: 'x-eu-west', b: 'Zürich' })).toEqual({ kind: 'valid' });
    expect(v.validate(schema, { a: 'us-east' })).toMatchObject({ kind: 'invalid' });
    expect(v.validate(schema, { b: 'abc1' })).toMatchObject({ kind: 'invalid' });
  });
});
