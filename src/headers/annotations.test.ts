import { describe, it, expect } from 'vitest';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, scanHeaderAnnotations } from './annotations.ts';

// The spec's own example tool (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters, "Where it goes").
const EXECUTE_SQL = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'Region to run in', 'x-mcp-header': 'Region' },
    query: { type: 'string' },
  },
  required: ['region', 'query'],
};

function objectWith(properties: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', properties };
}

describe('scanHeaderAnnotations: valid annotations', () => {
  it('finds the spec example annotation', () => {
    expect(scanHeaderAnnotations(EXECUTE_SQL)).toEqual({ ok: true, value: [{ name: 'Region', path: ['region'], type: 'string' }] });
  });

  it('returns an empty list for schemas without annotations', () => {
    expect(scanHeaderAnnotations({ type: 'object' })).toEqual({ ok: true, value: [] });
    expect(scanHeaderAnnotations({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({ ok: true, value: [] });
    expect(scanHeaderAnnotations(true)).toEqual({ ok: true, value: [] });
  });

  it('accepts nested properties chains', () => {
    const schema = objectWith({ a: objectWith({ b: { type: 'integer', 'x-mcp-header': 'Tenant' } }) });
    expect(scanHeaderAnnotations(schema)).toEqual({ ok: true, value: [{ name: 'Tenant', path: ['a', 'b'], type: 'integer' }] });
  });

  it('accepts string, integer and boolean properties and sorts by name case-insensitively', () => {
    const schema = objectWith({
      z: { type: 'boolean', 'x-mcp-header': 'dry-run' },
      y: { type: 'integer', 'x-mcp-header': 'Count' },
      x: { type: 'string', 'x-mcp-header': 'Region' },
    });
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: true,
      value: [
        { name: 'Count', path: ['y'], type: 'integer' },
        { name: 'dry-run', path: ['z'], type: 'boolean' },
        { name: 'Region', path: ['x'], type: 'string' },
      ],
    });
  });

  it('allows a name that repeats a standard header name', () => {
    const schema = objectWith({ m: { type: 'string', 'x-mcp-header': 'Method' } });
    expect(scanHeaderAnnotations(schema)).toEqual({ ok: true, value: [{ name: 'Method', path: ['m'], type: 'string' }] });
  });

  it('accepts a type array whose only non-null type is allowed', () => {
    const schema = objectWith({ r: { type: ['string', 'null'], 'x-mcp-header': 'Region' } });
    expect(scanHeaderAnnotations(schema)).toEqual({ ok: true, value: [{ name: 'Region', path: ['r'], type: 'string' }] });
    const single = objectWith({ n: { type: ['null', 'integer'], 'x-mcp-header': 'N' } });
    expect(scanHeaderAnnotations(single)).toEqual({ ok: true, value: [{ name: 'N', path: ['n'], type: 'integer' }] });
  });

  it('does not mistake property or definition names, or data keywords, for annotations', () => {
    const schema = {
      type: 'object',
      properties: { 'x-mcp-header': { type: 'string' } },
      $defs: { 'x-mcp-header': { type: 'string' } },
      default: { 'x-mcp-header': 'Fake' },
      examples: [{ 'x-mcp-header': 'Fake' }],
      enum: [{ 'x-mcp-header': 'Fake' }],
      const: { 'x-mcp-header': 'Fake' },
    };
    expect(scanHeaderAnnotations(schema)).toEqual({ ok: true, value: [] });
  });

  it('keeps property names with special characters in the path', () => {
    const schema = objectWith({ 'a/b~c': { type: 'string', 'x-mcp-header': 'Odd' } });
    expect(scanHeaderAnnotations(schema)).toEqual({ ok: true, value: [{ name: 'Odd', path: ['a/b~c'], type: 'string' }] });
  });
});

describe('scanHeaderAnnotations: reachability (rule 5)', () => {
  const annotated = { type: 'string', 'x-mcp-header': 'Region' };

  it.each([
    ['items', { type: 'object', properties: { a: { type: 'array', items: annotated } } }, '/properties/a/items'],
    ['prefixItems', { type: 'object', properties: { a: { type: 'array', prefixItems: [annotated] } } }, '/properties/a/prefixItems/0'],
    ['tuple items (draft-07)', { type: 'object', properties: { a: { type: 'array', items: [annotated] } } }, '/properties/a/items/0'],
    ['contains', { type: 'object', properties: { a: { type: 'array', contains: annotated } } }, '/properties/a/contains'],
    ['oneOf', { oneOf: [{ type: 'object', properties: { id: annotated } }] }, '/oneOf/0/properties/id'],
    ['anyOf', { anyOf: [{ type: 'object', properties: { id: annotated } }] }, '/anyOf/0/properties/id'],
    ['allOf', { allOf: [{ type: 'object', properties: { id: annotated } }] }, '/allOf/0/properties/id'],
    ['not', { not: { type: 'object', properties: { id: annotated } } }, '/not/properties/id'],
    ['if', { if: { properties: { id: annotated } } }, '/if/properties/id'],
    ['then', { then: { properties: { id: annotated } } }, '/then/properties/id'],
    ['else', { else: { properties: { id: annotated } } }, '/else/properties/id'],
    ['$defs behind $ref', { type: 'object', properties: { r: { $ref: '#/$defs/R' } }, $defs: { R: annotated } }, '/$defs/R'],
    ['definitions', { definitions: { R: annotated } }, '/definitions/R'],
    ['additionalProperties', { type: 'object', additionalProperties: annotated }, '/additionalProperties'],
    ['patternProperties', { type: 'object', patternProperties: { '^r': annotated } }, '/patternProperties/^r'],
    ['dependentSchemas', { dependentSchemas: { a: { properties: { b: annotated } } } }, '/dependentSchemas/a/properties/b'],
    ['propertyNames', { propertyNames: annotated }, '/propertyNames'],
    ['unevaluatedProperties', { unevaluatedProperties: annotated }, '/unevaluatedProperties'],
    ['an unknown keyword', { 'x-vendor': { nested: annotated } }, '/x-vendor/nested'],
  ])('rejects an annotation reached through %s', (_label, schema, pointer) => {
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: false,
      error: `x-mcp-header "Region" at ${pointer} is not reachable through properties alone`,
    });
  });

  it('rejects an annotation on the schema root', () => {
    expect(scanHeaderAnnotations({ type: 'string', 'x-mcp-header': 'Root' })).toEqual({
      ok: false,
      error: 'x-mcp-header "Root" at / annotates the schema root, not a property',
    });
  });

  it('escapes JSON Pointer tokens in the reported location', () => {
    const schema = { type: 'object', patternProperties: { 'a/b~': { type: 'string', 'x-mcp-header': 'P' } } };
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: false,
      error: 'x-mcp-header "P" at /patternProperties/a~1b~0 is not reachable through properties alone',
    });
  });
});

describe('scanHeaderAnnotations: names (rules 1-3)', () => {
  function named(name: unknown): Record<string, unknown> {
    return objectWith({ a: { type: 'string', 'x-mcp-header': name } });
  }

  it('rejects an empty name', () => {
    expect(scanHeaderAnnotations(named(''))).toEqual({ ok: false, error: 'x-mcp-header "" at /properties/a is empty' });
  });

  it.each([
    ['a space', 'Re gion', '"Re gion"'],
    ['a colon', 'Region:', '"Region:"'],
    ['non-ASCII', 'Régión', '"Régión"'],
    ['CR LF', 'A\r\nB', '"A\\r\\nB"'],
  ])('rejects a name with %s', (_label, name, shown) => {
    expect(scanHeaderAnnotations(named(name))).toEqual({ ok: false, error: `x-mcp-header ${shown} at /properties/a is not an RFC 9110 token` });
  });

  it('rejects a name that is not a string', () => {
    expect(scanHeaderAnnotations(named(7))).toEqual({ ok: false, error: 'x-mcp-header at /properties/a must be a string, got 7' });
  });

  it('rejects names that are equal case-insensitively', () => {
    const schema = objectWith({
      a: { type: 'string', 'x-mcp-header': 'Region' },
      b: objectWith({ c: { type: 'string', 'x-mcp-header': 'REGION' } }),
    });
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: false,
      error: 'x-mcp-header "REGION" at /properties/b/properties/c duplicates the one at /properties/a (names are case-insensitive)',
    });
  });
});

describe('scanHeaderAnnotations: property types (rule 4)', () => {
  it.each([
    ['number', '"number"'],
    ['object', '"object"'],
    ['array', '"array"'],
    ['null', '"null"'],
  ])('rejects type %s', (type, shown) => {
    const schema = objectWith({ a: { type, 'x-mcp-header': 'A' } });
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: false,
      error: `x-mcp-header "A" at /properties/a has type ${shown} (must be string, integer or boolean)`,
    });
  });

  it('rejects a property without a type', () => {
    const schema = objectWith({ a: { enum: ['x', 'y'], 'x-mcp-header': 'A' } });
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: false,
      error: 'x-mcp-header "A" at /properties/a has no "type" (must be string, integer or boolean)',
    });
  });

  it('rejects type arrays with more than one non-null type, or only null', () => {
    const two = objectWith({ a: { type: ['string', 'integer'], 'x-mcp-header': 'A' } });
    expect(scanHeaderAnnotations(two)).toEqual({
      ok: false,
      error: 'x-mcp-header "A" at /properties/a has type ["string","integer"] (must be string, integer or boolean)',
    });
    const onlyNull = objectWith({ a: { type: ['null'], 'x-mcp-header': 'A' } });
    expect(scanHeaderAnnotations(onlyNull)).toEqual({
      ok: false,
      error: 'x-mcp-header "A" at /properties/a has type ["null"] (must be string, integer or boolean)',
    });
    const numberOrNull = objectWith({ a: { type: ['number', 'null'], 'x-mcp-header': 'A' } });
    expect(scanHeaderAnnotations(numberOrNull)).toEqual({
      ok: false,
      error: 'x-mcp-header "A" at /properties/a has type ["number","null"] (must be string, integer or boolean)',
    });
  });

  it('reports every problem, not just the first', () => {
    const schema = objectWith({
      a: { type: 'number', 'x-mcp-header': 'A' },
      b: { type: 'array', items: { type: 'string', 'x-mcp-header': 'B' } },
    });
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: false,
      error:
        'x-mcp-header "A" at /properties/a has type "number" (must be string, integer or boolean); ' +
        'x-mcp-header "B" at /properties/b/items is not reachable through properties alone',
    });
  });
});

describe('scanHeaderAnnotations: pathological schemas', () => {
  it(`rejects schemas nested deeper than ${MAX_SCHEMA_DEPTH} levels`, () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) schema = { not: schema };
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: false,
      error: `inputSchema is nested deeper than 64 levels at ${'/not'.repeat(65)}`,
    });
  });

  it('accepts a schema just within the depth limit', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 64; i++) schema = { not: schema };
    expect(scanHeaderAnnotations(schema)).toEqual({ ok: true, value: [] });
  });

  it('stops on a cyclic object instead of looping', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic['not'] = cyclic;
    expect(scanHeaderAnnotations(cyclic)).toEqual({
      ok: false,
      error: `inputSchema is nested deeper than 64 levels at ${'/not'.repeat(65)}`,
    });
  });

  it(`rejects schemas with more than ${MAX_SCHEMA_NODES} nodes`, () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 10_001; i++) properties[`p${i}`] = { type: 'string' };
    expect(scanHeaderAnnotations({ type: 'object', properties })).toEqual({ ok: false, error: 'inputSchema has more than 10000 nodes' });
  });
});
