import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../protocol/message.ts';
import type { KeptPart } from './result-store.ts';
import { shapeResult, type ShapeInput } from './shape-result.ts';
import type { ShapingLimits } from './shaping-config.ts';

const LIMITS: ShapingLimits = { maxBytes: 100, strategy: 'head', structured: 'keep', maxMediaBytes: 50 };
const NOTICE = { tool: 'up__big', ttlMs: 600_000, pageBytes: 64, maxEntryBytes: 10_000 };

function shape(result: JsonObject, limits: Partial<ShapingLimits> = {}, opts: Partial<ShapeInput> = {}) {
  const kept: KeptPart[] = [];
  const out = shapeResult({
    result,
    limits: { ...LIMITS, ...limits },
    hasOutputSchema: false,
    keep: (part) => {
      if (part.data.length > NOTICE.maxEntryBytes) return undefined;
      kept.push(part);
      return `id${String(kept.length).padStart(20, '0')}`;
    },
    notice: NOTICE,
    ...opts,
  });
  return { ...out, kept };
}

const text = (t: string) => ({ type: 'text', text: t });
const textOf = (r: JsonObject, i = 0): string => ((r.content as JsonObject[])[i]!.text as string);

describe('shapeResult: within limits', () => {
  it('returns the very same result and no record', () => {
    const result = { content: [text('small')], structuredContent: { a: 1 } };
    const out = shape(result);
    expect(out.result).toBe(result);
    expect(out.record).toBeUndefined();
    expect(out.kept).toEqual([]);
  });

  it('applies no budget when maxBytes is 0', () => {
    const result = { content: [text('x'.repeat(10_000))] };
    expect(shape(result, { maxBytes: 0 }).result).toBe(result);
  });
});

describe('shapeResult: text over the budget', () => {
  const long = 'abcdefghij'.repeat(30); // 300 bytes

  it('head: keeps the first bytes, says how much was cut and where the whole text is', () => {
    const out = shape({ content: [text(long)] });
    const t = textOf(out.result);
    expect(t.startsWith(long.slice(0, 100))).toBe(true);
    expect(t).toContain('first 100 bytes of 300 bytes; 200 bytes (~50 tokens) were cut');
    expect(t).toContain('gatehouse://results/id00000000000000000001?offset=100&length=64');
    expect(out.kept[0]!.data.toString()).toBe(long);
    expect(out.record).toMatchObject({ bytes: 300, sentBytes: 100, cutBytes: 200, kept: ['id00000000000000000001'] });
  });

  it('head+tail: keeps both ends and names the missing byte range', () => {
    const out = shape({ content: [text(long)] }, { strategy: 'head+tail' });
    const t = textOf(out.result);
    expect(t.startsWith(long.slice(0, 50))).toBe(true);
    expect(t.endsWith(long.slice(250))).toBe(true);
    expect(t).toContain('bytes 50 to 250 of 300 bytes are missing');
    expect(t).toContain('?offset=50&length=64');
    expect(out.record).toMatchObject({ sentBytes: 100, cutBytes: 200 });
  });

  it('refuse: replaces the result with an error result that points at the kept copy', () => {
    const out = shape({ content: [text(long)], _meta: { x: 1 } }, { strategy: 'refuse' });
    expect(out.result.isError).toBe(true);
    expect(out.result._meta).toEqual({ x: 1 });
    expect(textOf(out.result)).toMatch(/withheld the result of up__big: it is 300 bytes .* budget of 100 bytes/);
    expect(textOf(out.result)).toContain('?offset=0&length=64');
    expect(out.record).toMatchObject({ refused: true, sentBytes: 0 });
  });

  it('never splits a UTF-8 character, in the head or in the tail', () => {
    const euros = '€'.repeat(100); // 3 bytes each
    const head = textOf(shape({ content: [text(euros)] }).result);
    expect(head.startsWith('€'.repeat(33) + '\n')).toBe(true);
    expect(head).not.toContain('\uFFFD');
    const both = textOf(shape({ content: [text(euros)] }, { strategy: 'head+tail' }).result);
    expect(both).not.toContain('\uFFFD');
    expect(both.endsWith('€'.repeat(16))).toBe(true);
  });

  it('shares the budget among text blocks in order', () => {
    const out = shape({ content: [text('a'.repeat(60)), text('b'.repeat(60)), text('c'.repeat(60))] });
    expect(textOf(out.result, 0)).toBe('a'.repeat(60));
    expect(textOf(out.result, 1).startsWith(`${'b'.repeat(40)}\n\n[Gatehouse cut`)).toBe(true);
    expect(textOf(out.result, 2).startsWith('\n\n[Gatehouse cut this text: it shows the first 0 bytes')).toBe(true);
    expect(out.kept).toHaveLength(2);
  });

  it('says so when the whole text is too large to keep', () => {
    const out = shape({ content: [text('z'.repeat(20_000))] });
    expect(textOf(out.result)).toContain('larger than the gateway keeps (10,000 bytes), so the rest cannot be read');
    expect(out.record?.kept).toBeUndefined();
  });
});

describe('shapeResult: structured content', () => {
  const rows = { rows: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `row ${i}` })) };

  it('with an outputSchema and structured: keep, stays whole over the budget and the text is cut', () => {
    const out = shape({ content: [text(JSON.stringify(rows))], structuredContent: rows }, {}, { hasOutputSchema: true });
    expect(out.result.structuredContent).toBe(rows);
    expect(textOf(out.result)).toContain('[Gatehouse cut this text');
    expect(out.record).toMatchObject({ overBudget: true });
  });

  it('with an outputSchema and structured: refuse, refuses the result rather than cut it', () => {
    const out = shape({ content: [text('ok')], structuredContent: rows }, { structured: 'refuse' }, { hasOutputSchema: true });
    expect(out.result.isError).toBe(true);
    expect(out.result.structuredContent).toBeUndefined();
    expect(out.kept.map((k) => k.mimeType)).toEqual(['text/plain', 'application/json']);
    expect(JSON.parse(out.kept[1]!.data.toString())).toEqual(rows);
  });

  it('without an outputSchema, is withheld and kept when it does not fit, with a notice', () => {
    const out = shape({ content: [text('summary')], structuredContent: rows });
    expect(out.result.structuredContent).toBeUndefined();
    expect(textOf(out.result, 0)).toBe('summary');
    expect(textOf(out.result, 1)).toMatch(/withheld this result's structured content: \d+ bytes .* gatehouse:\/\/results\//);
    expect(JSON.parse(out.kept[0]!.data.toString())).toEqual(rows);
  });

  it('without an outputSchema, stays when it fits alone, and the text gets what is left', () => {
    const small = { n: 1 };
    const out = shape({ content: [text('t'.repeat(200))], structuredContent: small });
    expect(out.result.structuredContent).toBe(small);
    expect(textOf(out.result).startsWith(`${'t'.repeat(93)}\n\n`)).toBe(true);
  });
});

describe('shapeResult: media', () => {
  const png = Buffer.alloc(120, 7).toString('base64');

  it.each([
    ['image', { type: 'image', data: png, mimeType: 'image/png' }, 'image/png', 'blob'],
    ['audio', { type: 'audio', data: png, mimeType: 'audio/wav' }, 'audio/wav', 'blob'],
    ['embedded text resource', { type: 'resource', resource: { uri: 'file:///big.txt', mimeType: 'text/plain', text: 'r'.repeat(120) } }, 'text/plain', 'text'],
    ['embedded blob resource', { type: 'resource', resource: { uri: 'file:///big.bin', blob: png } }, 'application/octet-stream', 'blob'],
  ])('replaces a large %s with a resource link to the kept bytes', (_kind, block, mimeType, encoding) => {
    const out = shape({ content: [text('see below'), block] });
    const link = (out.result.content as JsonObject[])[1]!;
    expect(link).toMatchObject({ type: 'resource_link', uri: 'gatehouse://results/id00000000000000000001', mimeType, size: 120 });
    expect(typeof link.name).toBe('string');
    expect(out.kept[0]).toMatchObject({ mimeType, encoding });
    expect(out.kept[0]!.data.length).toBe(120);
    expect(out.record).toMatchObject({ linked: 1 });
  });

  it('leaves small media alone, and all media when maxMediaBytes is 0', () => {
    const small = { content: [{ type: 'image', data: Buffer.alloc(10).toString('base64'), mimeType: 'image/png' }] };
    expect(shape(small).result).toBe(small);
    const large = { content: [{ type: 'image', data: png, mimeType: 'image/png' }] };
    expect(shape(large, { maxMediaBytes: 0 }).result).toBe(large);
  });
});
