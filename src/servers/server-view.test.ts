import { describe, expect, it } from 'vitest';
import { mergeLists } from '../catalog/merge.ts';
import { normalizeServers } from './servers-config.ts';
import { gatewayName, serverScope } from './server-view.ts';

const NAMING = { separator: '__', maxNameLength: 64, prefixOf: (u: string) => u };
const tools = (...names: string[]) => names.map((name) => ({ name, inputSchema: { type: 'object' } }));

function view(raw: Parameters<typeof normalizeServers>[0], parts: { upstream: string; names: string[] }[], kind: 'tools' | 'prompts' = 'tools') {
  const [server] = normalizeServers(raw, '/mcp', parts.map((p) => p.upstream));
  const scope = serverScope(server!, NAMING);
  const merged = mergeLists(kind, parts.map((p) => ({ upstream: p.upstream, prefix: scope.prefixOf(p.upstream), items: tools(...p.names), ttlMs: 1000, cacheScope: 'public' as const })), NAMING);
  return scope.shape(kind, merged);
}

describe('a server view', () => {
  it('keeps what an include glob matches by exposed or by upstream name, minus the excludes', () => {
    const v = view([{ name: 's', tools: { include: ['a__*', 'read'], exclude: ['*delete*'] } }], [
      { upstream: 'a', names: ['list', 'delete_all'] },
      { upstream: 'b', names: ['read', 'write'] },
    ]);
    expect(v.items.map((t) => t.name)).toEqual(['a__list', 'b__read']);
    expect([...v.index.keys()]).toEqual(['a__list', 'b__read']);
    expect(v.index.get('b__read')).toEqual({ upstream: 'b', original: 'read' });
  });

  it('an exclude by the upstream\'s own name holds whatever the exposed name', () => {
    const v = view([{ name: 's', tools: { exclude: ['write'] } }], [{ upstream: 'b', names: ['read', 'write'] }]);
    expect(v.items.map((t) => t.name)).toEqual(['b__read']);
  });

  it('with prefix none shows the upstream\'s names and keeps the default endpoint\'s name for policy', () => {
    const v = view([{ name: 's', prefix: 'none' }], [{ upstream: 'gh', names: ['create_issue'] }]);
    expect(v.items.map((t) => t.name)).toEqual(['create_issue']);
    expect(v.index.get('create_issue')).toEqual({ upstream: 'gh', original: 'create_issue', policyName: 'gh__create_issue' });
  });

  it('selects prompts by their own globs, and an unmatched selection leaves the list empty', () => {
    expect(view([{ name: 's', prompts: { include: ['nothing'] } }], [{ upstream: 'a', names: ['greet'] }], 'prompts').items).toEqual([]);
  });

  it('names for policy as the default endpoint does, shortened past maxNameLength', () => {
    expect(gatewayName(NAMING, 'gh', 'x')).toBe('gh__x');
    const long = gatewayName({ ...NAMING, maxNameLength: 12 }, 'gh', 'a_very_long_name');
    expect(long).toHaveLength(12);
    expect(long.startsWith('gh_')).toBe(true);
  });
});
