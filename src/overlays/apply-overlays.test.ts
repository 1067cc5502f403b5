import { describe, expect, it } from 'vitest';
import { buildMergedView } from '../catalog/merged-view.ts';
import type { Part } from '../catalog/part-cache.ts';
import type { JsonObject } from '../protocol/message.ts';
import { SchemaValidator } from '../validation/schema-validator.ts';
import { applyOverlays } from './apply-overlays.ts';
import { normalizeOverlaysConfig, type RawOverlaysConfig } from './overlay-config.ts';
import { overlayHash } from './overlay-hash.ts';
import { checkWith } from './overlay-states.ts';

const check = checkWith(new SchemaValidator());
const SEARCH: JsonObject = { name: 'search', description: 'Searches', inputSchema: { type: 'object', properties: { q: { type: 'string' }, tenant: { type: 'string', 'x-mcp-header': 'Tenant' } }, required: ['q', 'tenant'] } };
const ECHO: JsonObject = { name: 'echo', inputSchema: { type: 'object' } };

function part(upstream: string, items: JsonObject[], generation: number): Part {
  return { upstream, items, ttlMs: 0, cacheScope: 'public', fetchedAt: 0, generation, bytes: 0, headerParams: new Map([['search', [{ name: 'Tenant', path: ['tenant'], type: 'string' as const }]]]) };
}
const view = () => buildMergedView('tools', [part('a', [SEARCH, ECHO], 1), part('b', [ECHO], 2)], [], (u) => u, { separator: '__', maxNameLength: 64 });
const overlays = (raw: RawOverlaysConfig) => normalizeOverlaysConfig(raw, '/gw.yaml').config.tools;

describe('applyOverlays', () => {
  it('renames and re-describes, routes the new name to the upstream own, and keeps only the visible header params', () => {
    const sha256 = overlayHash('tools', SEARCH);
    const out = applyOverlays(view(), overlays({ tools: [{ tool: 'search', upstream: 'a', sha256, name: 'find', description: 'Finds', arguments: { tenant: { fixed: 'acme' } } }] }), check);
    expect(out.items.map((i) => i.name)).toEqual(['find', 'a__echo', 'b__echo']);
    expect(out.index.get('find')).toEqual({ upstream: 'a', original: 'search' });
    expect(out.byName.get('find')).toMatchObject({ description: 'Finds', inputSchema: { properties: { q: { type: 'string' } }, required: ['q'] } });
    expect(out.headerParams.has('find')).toBe(false);
    expect(out.overlays.get('find')).toMatchObject({ fixed: { tenant: 'acme' }, hidden: ['tenant'], upstreamHeaderParams: [{ name: 'Tenant' }] });
    expect(out.held).toEqual([]);
    expect(out.version).not.toBe(view().version);
  });

  it('quarantines on a changed definition and holds back an unconfirmed overlay', () => {
    const out = applyOverlays(view(), overlays({ tools: [{ tool: 'a__search', sha256: 'ab'.repeat(32) }, { tool: 'echo', upstream: 'b', description: 'x' }] }), check);
    expect(out.items.map((i) => i.name)).toEqual(['a__echo']);
    expect(out.held.map((h) => [h.state, h.current])).toEqual([['quarantined', overlayHash('tools', SEARCH)], ['unconfirmed', overlayHash('tools', ECHO)]]);
  });

  it('holds back a rename that takes a name another tool keeps, and reports overlays whose tool is not listed', () => {
    const out = applyOverlays(view(), overlays({ tools: [{ tool: 'echo', upstream: 'b', sha256: overlayHash('tools', ECHO), name: 'a__echo' }, { tool: 'gone', upstream: 'a' }, { tool: 'gone', upstream: 'c' }] }), check);
    expect(out.items.map((i) => i.name)).toEqual(['a__search', 'a__echo']);
    expect(out.held.map((h) => `${h.state}: ${h.reason}`)).toEqual(['missing: upstream "a" lists no tool "gone"', 'invalid: the rename to "a__echo" collides with the tool "a__echo" of upstream "a"']);
  });
});

describe('applyOverlays on a virtual server', () => {
  // A `prefix: none` server over upstream a: own names, the default endpoint's kept for policy.
  const serverView = () => {
    const v = buildMergedView('tools', [part('a', [SEARCH, ECHO], 1)], [], () => '', { separator: '__', maxNameLength: 64 });
    return { ...v, index: new Map([...v.index].map(([k, o]) => [k, { ...o, policyName: `a__${k}` }])) };
  };
  const confirmed = (tool: string, item: JsonObject, rest: Record<string, unknown> = {}) => ({ tool, sha256: overlayHash('tools', item), ...rest });

  it("applies the server's own overlay of an item instead of the gateway-wide one, and the gateway-wide one to the others", () => {
    const own = overlays({ tools: [confirmed('search', SEARCH, { description: 'own' })] });
    const wide = overlays({ tools: [confirmed('a__search', SEARCH, { description: 'wide' }), confirmed('a__echo', ECHO, { description: 'wide echo' })] });
    const out = applyOverlays(serverView(), own, check, wide);
    expect(out.items.map((i) => [i.name, i.description])).toEqual([['search', 'own'], ['echo', 'wide echo']]);
    expect(out.held).toEqual([]);
  });

  it('judges a renamed item by its new name and keeps the default-endpoint name of the others', () => {
    const out = applyOverlays(serverView(), overlays({ tools: [confirmed('search', SEARCH, { name: 'find' })] }), check);
    expect(out.index.get('find')).toEqual({ upstream: 'a', original: 'search' });
    expect(out.index.get('echo')).toEqual({ upstream: 'a', original: 'echo', policyName: 'a__echo' });
  });

  it("holds back a rename to the name policy knows another item by, and reports nothing missing of the gateway-wide ones", () => {
    const out = applyOverlays(serverView(), overlays({ tools: [confirmed('search', SEARCH, { name: 'a__echo' })] }), check, overlays({ tools: [{ tool: 'b__echo', description: 'elsewhere' }] }));
    expect(out.items.map((i) => i.name)).toEqual(['echo']);
    expect(out.held.map((h) => `${h.state}: ${h.reason}`)).toEqual(['invalid: the rename to "a__echo" collides with the name policy knows the tool "echo" of upstream "a" by']);
  });
});

describe('overlayHash', () => {
  it('hashes a tool as a version-2 pin and a prompt by its arguments, description and title', () => {
    expect(overlayHash('tools', { name: 't', description: 'd' })).toMatch(/^[0-9a-f]{64}$/);
    const p = overlayHash('prompts', { name: 'p', description: 'd', arguments: [{ name: 'x' }] });
    expect(overlayHash('prompts', { name: 'renamed', description: 'd', arguments: [{ name: 'x' }] })).toBe(p);
    expect(overlayHash('prompts', { name: 'p', description: 'd', arguments: [{ name: 'x', required: true }] })).not.toBe(p);
  });
});
