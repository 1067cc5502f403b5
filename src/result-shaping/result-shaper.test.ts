import { describe, expect, it } from 'vitest';
import { ok, err } from '../protocol/result.ts';
import type { JsonObject } from '../protocol/message.ts';
import { SchemaValidator } from '../validation/schema-validator.ts';
import { createResultShaper } from './result-shaper.ts';
import { normalizeShapingConfig } from './shaping-config.ts';

const REDACTION = { keys: ['password'], paths: [], patterns: [{ kind: 'builtin' as const, name: 'bearer-token' as const }, { kind: 'builtin' as const, name: 'card-number' as const }] };
const shaper = (raw = {}) => createResultShaper({ config: normalizeShapingConfig({ maxResultBytes: 100, ...raw }).config, redaction: REDACTION, validator: new SchemaValidator() });
const ctx = { tool: 'up__t', upstream: 'up', outputSchema: undefined, owner: 'key:alice' };

describe('result shaper', () => {
  it('redacts text, embedded text and structured content with the audit patterns, counting what it changed', () => {
    const s = shaper({ redact: true });
    const content: JsonObject[] = [{ type: 'text', text: 'Authorization: Bearer abcdefghijklmnop' }, { type: 'resource', resource: { uri: 'x:1', text: 'card 4111 1111 1111 1111' } }, { type: 'text', text: 'clean' }];
    const out = s.shape(ok({ content, structuredContent: { password: 'hunter2', n: 1 } }), ctx);
    const v = out.reply.ok ? out.reply.value : ({} as JsonObject);
    expect(JSON.stringify(v)).not.toMatch(/abcdefghijklmnop|4111 1111|hunter2/);
    expect(JSON.stringify(v)).toContain('[REDACTED]');
    expect(out.record).toMatchObject({ redacted: 3 });
  });

  it('withholds a structured result that redaction made invalid for its outputSchema', () => {
    const s = shaper({ redact: true });
    const schema = { type: 'object', properties: { card: { type: 'integer' } } };
    const out = s.shape(ok({ content: [], structuredContent: { card: 4111111111111111 } }), { ...ctx, outputSchema: schema });
    expect(out.reply.ok && out.reply.value.isError).toBe(true);
    expect(out.reply.ok && JSON.stringify(out.reply.value)).toContain("no longer matches the tool's outputSchema");
    expect(out.reply.ok && JSON.stringify(out.reply.value)).not.toContain('4111');
  });

  it('leaves results alone without redact, and errors and input_required results always', () => {
    const s = shaper();
    const secret = ok({ content: [{ type: 'text', text: 'Bearer abcdefghijklmnop' }] });
    expect(s.shape(secret, ctx)).toEqual({ reply: secret });
    const failure = err({ kind: 'invalid_params' as const, message: 'x' });
    expect(s.shape(failure, ctx).reply).toBe(failure);
    const ask = ok({ resultType: 'input_required', content: [{ type: 'text', text: 'y'.repeat(500) }] });
    expect(s.shape(ask, ctx).reply).toBe(ask);
  });

  it('reads back what it kept for the owner; other uris and other principals are left to routing', () => {
    const s = shaper();
    const out = s.shape(ok({ content: [{ type: 'text', text: 'q'.repeat(300) }] }), ctx);
    const id = out.record!.kept![0]!;
    const read = s.read(`gatehouse://results/${id}?offset=100&length=50`, 'key:alice');
    expect(read?.ok && (read.value.contents as { text: string }[])[0]!.text).toBe('q'.repeat(50));
    expect(s.read(`gatehouse://results/${id}`, 'key:bob')).toBeUndefined();
    expect(s.read('gatehouse://results/other/x', 'key:alice')).toBeUndefined();
    expect(s.read(`gatehouse://results/${id}?offset=x`, 'key:alice')).toMatchObject({ ok: false, error: { kind: 'invalid_params' } });
  });
});
