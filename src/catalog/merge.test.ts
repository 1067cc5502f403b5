import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../protocol/message.ts';
import { gatehouseUri } from './gatehouse-uri.ts';
import { mergeLists, type MergePart } from './merge.ts';

const OPTS = { separator: '__', maxNameLength: 64 };

function part(upstream: string, items: JsonObject[], extra: Partial<MergePart> = {}): MergePart {
  return { upstream, prefix: upstream, items, ttlMs: 60_000, cacheScope: 'public', ...extra };
}

const tool = (name: string, extra: JsonObject = {}): JsonObject => ({
  name,
  inputSchema: { type: 'object' },
  ...extra,
});

describe('mergeLists tools and prompts', () => {
  it('prefixes names in config order, then each upstream order, and indexes them', () => {
    const merged = mergeLists('tools', [part('b', [tool('z'), tool('a')]), part('a', [tool('m')])], OPTS);
    expect(merged.items.map((t) => t.name)).toEqual(['b__z', 'b__a', 'a__m']);
    expect([...merged.index]).toEqual([
      ['b__z', { upstream: 'b', original: 'z' }],
      ['b__a', { upstream: 'b', original: 'a' }],
      ['a__m', { upstream: 'a', original: 'm' }],
    ]);
    expect(merged.renames).toEqual([]);
    expect(merged.skipped).toEqual([]);
  });

  it('copies only the name, keeping every other field including nested x-mcp-header', () => {
    const inputSchema: JsonObject = {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
    };
    const original = tool('deploy', { title: 'Deploy', inputSchema, annotations: { readOnlyHint: false }, _meta: { k: 1 } });
    const merged = mergeLists('tools', [part('ops', [original])], OPTS);
    const out = merged.items[0]!;
    expect(out).toEqual({ ...original, name: 'ops__deploy' });
    expect(out.inputSchema).toBe(inputSchema);
    expect(original.name).toBe('deploy');
  });

  it('renames colliding prompts from empty-prefix upstreams and reports it', () => {
    const merged = mergeLists(
      'prompts',
      [part('a', [{ name: 'greet' }], { prefix: '' }), part('b', [{ name: 'greet' }], { prefix: '' })],
      OPTS,
    );
    const second = merged.items[1]!.name as string;
    expect(merged.items[0]!.name).toBe('greet');
    expect(second).toMatch(/^greet_[0-9a-f]{8}$/);
    expect(merged.index.get(second)).toEqual({ upstream: 'b', original: 'greet' });
    expect(merged.renames).toEqual([{ upstream: 'b', original: 'greet', exposed: second, reason: 'collision' }]);
  });

  it('leaves out and reports items without a string name', () => {
    const merged = mergeLists('tools', [part('a', [tool('ok'), { title: 'no name' }, { name: 7 }])], OPTS);
    expect(merged.items.map((t) => t.name)).toEqual(['a__ok']);
    expect(merged.skipped).toEqual([
      { upstream: 'a', position: 1, field: 'name' },
      { upstream: 'a', position: 2, field: 'name' },
    ]);
  });
});

describe('mergeLists cache hints', () => {
  it('takes the minimum ttl over parts', () => {
    const merged = mergeLists('tools', [part('a', [], { ttlMs: 5000 }), part('b', [], { ttlMs: 1200 })], OPTS);
    expect(merged.ttlMs).toBe(1200);
  });

  it('treats a negative ttl as 0 and answers 0 with public scope when there are no parts', () => {
    expect(mergeLists('tools', [part('a', [], { ttlMs: -5 }), part('b', [])], OPTS).ttlMs).toBe(0);
    const empty = mergeLists('resources', [], OPTS);
    expect(empty).toMatchObject({ items: [], ttlMs: 0, cacheScope: 'public' });
    expect(empty.index.size).toBe(0);
  });

  it('is private when any part is private, public otherwise', () => {
    expect(mergeLists('prompts', [part('a', []), part('b', [], { cacheScope: 'private' })], OPTS).cacheScope).toBe('private');
    expect(mergeLists('prompts', [part('a', []), part('b', [])], OPTS).cacheScope).toBe('public');
  });
});

describe('mergeLists resources', () => {
  it('keeps unique uris and display names unchanged', () => {
    const merged = mergeLists('resources', [part('a', [{ uri: 'file:///a.txt', name: 'a' }]), part('b', [{ uri: 'file:///b.txt', name: 'a' }])], OPTS);
    expect(merged.items).toEqual([
      { uri: 'file:///a.txt', name: 'a' },
      { uri: 'file:///b.txt', name: 'a' },
    ]);
    expect(merged.index.get('file:///b.txt')).toEqual({ upstream: 'b', original: 'file:///b.txt' });
  });

  it('rewrites a uri already taken by an earlier upstream into the gatehouse form', () => {
    const uri = 'file:///shared dir/ä?x=1&y=2#frag';
    const merged = mergeLists(
      'resources',
      [part('first', [{ uri, name: 'one' }]), part('second up/2', [{ uri, name: 'two', mimeType: 'text/plain' }])],
      OPTS,
    );
    const rewritten = 'gatehouse://second%20up%2F2/file%3A%2F%2F%2Fshared%20dir%2F%C3%A4%3Fx%3D1%26y%3D2%23frag';
    expect(gatehouseUri('second up/2', uri)).toBe(rewritten);
    expect(merged.items).toEqual([
      { uri, name: 'one' },
      { uri: rewritten, name: 'two', mimeType: 'text/plain' },
    ]);
    expect(merged.index.get(uri)).toEqual({ upstream: 'first', original: uri });
    expect(merged.index.get(rewritten)).toEqual({ upstream: 'second up/2', original: uri });
    expect(merged.renames).toEqual([{ upstream: 'second up/2', original: uri, exposed: rewritten, reason: 'collision' }]);
  });

  it('keeps an upstream listing its own uri twice as it is', () => {
    const merged = mergeLists('resources', [part('a', [{ uri: 'x://1', name: 'p' }, { uri: 'x://1', name: 'q' }])], OPTS);
    expect(merged.items.map((r) => r.uri)).toEqual(['x://1', 'x://1']);
    expect(merged.renames).toEqual([]);
  });

  it('rewrites an upstream uri that already uses the reserved gatehouse scheme', () => {
    const merged = mergeLists('resources', [part('a', [{ uri: 'GateHouse://b/x', name: 'spoof' }])], OPTS);
    expect(merged.items[0]!.uri).toBe(gatehouseUri('a', 'GateHouse://b/x'));
    expect(merged.renames).toHaveLength(1);
  });
});

describe('mergeLists resource templates', () => {
  it('keeps colliding uriTemplates unchanged and indexes the first holder', () => {
    const merged = mergeLists(
      'resourceTemplates',
      [part('a', [{ uriTemplate: 'file:///{path}', name: 'a' }]), part('b', [{ uriTemplate: 'file:///{path}', name: 'b' }])],
      OPTS,
    );
    expect(merged.items).toEqual([
      { uriTemplate: 'file:///{path}', name: 'a' },
      { uriTemplate: 'file:///{path}', name: 'b' },
    ]);
    expect([...merged.index]).toEqual([['file:///{path}', { upstream: 'a', original: 'file:///{path}' }]]);
    expect(merged.renames).toEqual([]);
  });
});
