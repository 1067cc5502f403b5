import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../protocol/message.ts';
import { SchemaValidator } from '../validation/schema-validator.ts';
import type { ArgumentOverlay } from './overlay-config.ts';
import { narrowInputSchema } from './narrow-input-schema.ts';
import { checkWith } from './overlay-states.ts';

const check = checkWith(new SchemaValidator());
const INPUT: JsonObject = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    level: { type: 'string', enum: ['low', 'mid', 'high'] },
    name: { type: 'string', pattern: '^[a-z]+$' },
  },
  required: ['region'],
  additionalProperties: false,
};
const arg = (a: Partial<ArgumentOverlay>): ArgumentOverlay => ({ hidden: false, required: false, narrow: {}, ...a });

describe('narrowInputSchema', () => {
  it('removes fixed and hidden arguments (and their required entry), keeps the rest and their header annotations', () => {
    const r = narrowInputSchema(INPUT, { region: arg({ fixed: 'eu', hidden: true }), level: arg({ hidden: true }) }, check);
    expect(r).toEqual({ ok: true, value: { enforced: false, schema: { type: 'object', additionalProperties: false, properties: { limit: INPUT.properties && (INPUT.properties as JsonObject).limit, name: (INPUT.properties as JsonObject).name } } } });
  });

  it('adds tighter keywords beside the upstream ones and marks the schema as enforced', () => {
    const r = narrowInputSchema(INPUT, { limit: arg({ narrow: { maximum: 10 }, required: true }), level: arg({ narrow: { enum: ['low'] } }), region: arg({ narrow: { maxLength: 8 }, description: 'EU or US' }) }, check);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.enforced).toBe(true);
    const props = r.value.schema.properties as Record<string, JsonObject>;
    expect(props.limit).toEqual({ type: 'integer', minimum: 1, maximum: 10 });
    expect(props.level!.enum).toEqual(['low']);
    expect(props.region).toEqual({ type: 'string', 'x-mcp-header': 'Region', maxLength: 8, description: 'EU or US' });
    expect(r.value.schema.required).toEqual(['region', 'limit']);
  });

  it('refuses what would admit more than the upstream schema, naming the keyword', () => {
    const r = narrowInputSchema(INPUT, { limit: arg({ narrow: { maximum: 500, minimum: 0 } }), level: arg({ narrow: { enum: ['low', 'critical'] } }), name: arg({ narrow: { pattern: '^.*$' } }) }, check);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.path)).toEqual(['/arguments/limit/maximum', '/arguments/limit/minimum', '/arguments/level/enum', '/arguments/name/pattern']);
    expect(r.problems[0]!.message).toBe("not a subset of the upstream schema: maximum 500 is above the upstream's maximum 100");
    expect(r.problems[2]!.message).toContain('the upstream does not accept "critical"');
  });

  it('refuses a hidden required argument without a value, a fixed value the upstream rejects, a bad default and an unknown argument', () => {
    const r = narrowInputSchema(INPUT, { region: arg({ hidden: true }), limit: arg({ fixed: 1000, hidden: true }), level: arg({ default: 'critical' }), nope: arg({}) }, check);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.path)).toEqual(['/arguments/region/hidden', '/arguments/limit/fixed', '/arguments/level/default', '/arguments/nope']);
  });
});
