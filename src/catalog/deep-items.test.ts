import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../protocol/message.ts';
import { dropDeepItems } from './deep-items.ts';

const nest = (levels: number): JsonObject => JSON.parse('{"a":'.repeat(levels) + '{}' + '}'.repeat(levels)) as JsonObject;

describe('dropDeepItems', () => {
  it('keeps items within the limit, in order, and names each one it leaves out', () => {
    const items: JsonObject[] = [
      { name: 'fine', inputSchema: { type: 'object' } },
      { name: 'deep-meta', inputSchema: { type: 'object' }, _meta: nest(70) },
      { uri: 'file:///x', annotations: nest(70) },
      { uriTemplate: 'file:///{p}', title: 'ok' },
      { outputSchema: nest(70) },
    ];
    const out = dropDeepItems(items, 64);
    expect(out.items.map((i) => i.name ?? i.uriTemplate)).toEqual(['fine', 'file:///{p}']);
    expect(out.dropped).toEqual([
      { item: 'deep-meta', reason: 'nested deeper than 64 levels (limits.maxJsonDepth)' },
      { item: 'file:///x', reason: 'nested deeper than 64 levels (limits.maxJsonDepth)' },
      { item: '#4', reason: 'nested deeper than 64 levels (limits.maxJsonDepth)' },
    ]);
  });
});
