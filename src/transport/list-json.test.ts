import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../protocol/message.ts';
import { shapeResult } from './era-result.ts';
import { listResultJson } from './list-json.ts';

const tools: JsonObject[] = [
  { name: 'a__echo', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: {} } },
  // 2025-11-25 wants an object outputSchema: the legacy shape drops this one.
  { name: 'b__sum', inputSchema: { type: 'object' }, outputSchema: { type: 'number' } as unknown as JsonObject },
  { name: 'c__plain', description: 'quote " and \\ and \u2028', inputSchema: { type: 'object' } },
];
const result: JsonObject = { tools, ttlMs: 60_000, cacheScope: 'public', nextCursor: 'abc' };

describe('listResultJson', () => {
  it.each(['legacy', 'modern'] as const)('is the JSON of the %s-shaped result, item for item', (era) => {
    const text = listResultJson('tools/list', result, era)!;
    expect(JSON.parse(text)).toEqual(shapeResult('tools/list', result, era));
  });

  it('drops a non-object outputSchema for legacy clients and keeps it for modern ones', () => {
    const legacy = JSON.parse(listResultJson('tools/list', result, 'legacy')!);
    const modern = JSON.parse(listResultJson('tools/list', result, 'modern')!);
    expect(legacy.tools[1]).toEqual({ name: 'b__sum', inputSchema: { type: 'object' } });
    expect(modern.tools[1].outputSchema).toEqual({ type: 'number' });
    expect(legacy).not.toHaveProperty('ttlMs');
    expect(modern.resultType).toBe('complete');
  });

  it('serialises an empty list and a list with no other fields', () => {
    expect(JSON.parse(listResultJson('prompts/list', { prompts: [] }, 'legacy')!)).toEqual({ prompts: [] });
    expect(JSON.parse(listResultJson('resources/templates/list', { resourceTemplates: [{ uriTemplate: 'x://{id}', name: 't' }] }, 'legacy')!)).toEqual({
      resourceTemplates: [{ uriTemplate: 'x://{id}', name: 't' }],
    });
  });

  it('serialises a new item object afresh (a new list version brings new objects)', () => {
    const first = JSON.parse(listResultJson('tools/list', { tools: [{ name: 'x', inputSchema: { type: 'object' } }] }, 'modern')!);
    const second = JSON.parse(listResultJson('tools/list', { tools: [{ name: 'x', description: 'now described', inputSchema: { type: 'object' } }] }, 'modern')!);
    expect(first.tools[0].description).toBeUndefined();
    expect(second.tools[0].description).toBe('now described');
  });

  it('leaves other methods and malformed lists to the general path', () => {
    expect(listResultJson('tools/call', { content: [] }, 'legacy')).toBeUndefined();
    expect(listResultJson('tools/list', { tools: 'nope' }, 'legacy')).toBeUndefined();
  });
});
