// The tool-search service in-process, over a stand-in catalog view (no upstreams): when
// tools/list answers with the gateway tools, that lists never wait for the index, and that
// one index serves every caller of a list version.
import { describe, expect, it } from 'vitest';
import type { Catalog, MergedView } from '../catalog/catalog.ts';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import type { Call, Handled } from '../protocol/call.ts';
import type { JsonObject } from '../protocol/message.ts';
import { OPEN_ENFORCER } from '../policy/enforcer.ts';
import { createMemoryLogger } from '../telemetry/logger.ts';
import { createToolSearch } from './tool-search.ts';

const items = Array.from({ length: 300 }, (_, i) => ({ name: `up__tool_${i}`, description: `does thing ${i}`, inputSchema: { type: 'object' } }));
const view = {
  items,
  index: new Map(items.map((t) => [t.name, { upstream: 'up', original: t.name.slice(4) }])),
  version: 'v1',
  ttlMs: 0,
  cacheScope: 'public',
} as unknown as MergedView;
const catalog = { view: async () => view } as unknown as Catalog;

const call = (params: JsonObject, clientName?: string): Call => ({
  era: 'modern',
  id: 1,
  method: 'tools/call',
  params,
  protocolVersion: '2026-07-28',
  clientCapabilities: {},
  ...(clientName ? { clientInfo: { name: clientName, version: '1' } } : {}),
  principal: ANONYMOUS_PRINCIPAL,
  authContext: 'anonymous',
  headers: () => undefined,
  signal: new AbortController().signal,
  notify: () => undefined,
});

const service = (enabled = true) => {
  const s = createToolSearch({ settings: { enabled, fullListFor: ['inspector-*'], defaultLimit: 5 }, catalog, enforcer: OPEN_ENFORCER, logger: createMemoryLogger().logger });
  const builds: number[] = [];
  s.onIndexBuilt((st) => builds.push(st.tools));
  return { s, builds };
};
const never = async (): Promise<Handled> => {
  throw new Error('not a catalog call');
};
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('tool search service', () => {
  it('answers tools/list with the gateway tools unless off, asked for in _meta, or the client is named', () => {
    const { s } = service();
    expect(s.answersList(call({}))).toBe(true);
    expect(s.answersList(call({ _meta: { 'io.gatehouse/fullToolList': true } }))).toBe(false);
    expect(s.answersList(call({}, 'inspector-web'))).toBe(false);
    expect(s.answersList(call({}, 'claude'))).toBe(true);
    expect(service(false).s.answersList(call({}))).toBe(false);
  });

  it('leaves any other tool name to the catalog, and every name when off', () => {
    expect(service().s.call(call({ name: 'up__tool_1' }), never)).toBeUndefined();
    expect(service(false).s.call(call({ name: 'gatehouse__search_tools' }), never)).toBeUndefined();
  });

  it('answers a list before the index exists, then builds it once for all callers', async () => {
    const { s, builds } = service();
    const listed = await s.list(call({}));
    expect(listed.reply.ok && (listed.reply.value.tools as { name: string }[]).map((t) => t.name)).toEqual(['gatehouse__search_tools', 'gatehouse__describe_tools', 'gatehouse__call_tool']);
    expect(builds).toEqual([]);
    await s.list(call({}));
    await expect.poll(async () => (await turn(), builds)).toEqual([300]);
    const found = await s.call(call({ name: 'gatehouse__search_tools', arguments: { query: 'up__tool_7' } }), never)!;
    expect(found.reply.ok && (found.reply.value.structuredContent as { tools: { name: string }[] }).tools[0]!.name).toBe('up__tool_7');
    expect(builds).toEqual([300]);
  });

  it('shares one build between searches that arrive before it is done', async () => {
    const { s, builds } = service();
    const [a, b] = await Promise.all([
      s.call(call({ name: 'gatehouse__search_tools', arguments: { query: 'thing 3' } }), never)!,
      s.call(call({ name: 'gatehouse__search_tools', arguments: { query: 'thing 4' } }), never)!,
    ]);
    expect(a.reply.ok && b.reply.ok).toBe(true);
    expect(builds).toEqual([300]);
  });

  it('hands gatehouse__call_tool the real tool\'s name and arguments, and records where it came through', async () => {
    const { s } = service();
    let seen: JsonObject = {};
    const out = await s.call(call({ name: 'gatehouse__call_tool', arguments: { name: 'up__tool_2', arguments: { x: 1 } }, _meta: { progressToken: 9 } }), async (c) => {
      seen = c.params;
      return { reply: { ok: true, value: { content: [] } }, record: { target: { upstream: 'up', name: 'up__tool_2', upstreamName: 'tool_2' } } };
    })!;
    expect(seen).toEqual({ name: 'up__tool_2', arguments: { x: 1 }, _meta: { progressToken: 9 } });
    expect(out.record).toMatchObject({ target: { name: 'up__tool_2' }, via: 'gatehouse__call_tool', arguments: { x: 1 } });
    const nested = await s.call(call({ name: 'gatehouse__call_tool', arguments: { name: 'gatehouse__search_tools' } }), never)!;
    expect(!nested.reply.ok && nested.reply.error.kind).toBe('invalid_params');
  });
});
