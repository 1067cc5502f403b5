import { describe, expect, it } from 'vitest';
import { mergeLists, type MergePart } from './merge.ts';
import { exposedResourceUri, routeResourceUri, type TemplateOwner } from './resource-routing.ts';

const OPTS = { separator: '__', maxNameLength: 64 };
const SHARED = 'file:///notes/todo list?.md#top';
const SPECIAL = 'custom://ünï côde/a%2Fb?q=1&r=2#frag';

function part(upstream: string, uris: string[]): MergePart {
  return { upstream, prefix: upstream, items: uris.map((uri) => ({ uri, name: uri })), ttlMs: 0, cacheScope: 'public' };
}

const merged = mergeLists(
  'resources',
  [part('alpha', [SHARED, 'file:///alpha-only']), part('beta/β', [SHARED, SPECIAL]), part('gamma', [SHARED])],
  OPTS,
);
const UPSTREAMS = ['alpha', 'beta/β', 'gamma'];
const TEMPLATES: TemplateOwner[] = [
  { upstream: 'alpha', uriTemplate: 'users://{id}' },
  { upstream: 'beta/β', uriTemplate: 'users://{id}' },
  { upstream: 'beta/β', uriTemplate: 'repo://{owner}/{+path}' },
];

describe('routeResourceUri', () => {
  it('routes every merged uri, rewritten ones included, back to its upstream and original uri', () => {
    const routes = merged.items.map((item) => routeResourceUri(item.uri as string, merged.index, TEMPLATES, UPSTREAMS));
    expect(routes).toEqual([
      { upstream: 'alpha', uri: SHARED },
      { upstream: 'alpha', uri: 'file:///alpha-only' },
      { upstream: 'beta/β', uri: SHARED },
      { upstream: 'beta/β', uri: SPECIAL },
      { upstream: 'gamma', uri: SHARED },
    ]);
    expect(merged.items[2]!.uri).not.toBe(SHARED);
    expect(merged.items[4]!.uri).not.toBe(SHARED);
  });

  it('decodes a gatehouse uri even when it is not in the index', () => {
    const uri = 'gatehouse://gamma/file%3A%2F%2F%2Funlisted%20file';
    expect(routeResourceUri(uri, new Map(), [], UPSTREAMS)).toEqual({ upstream: 'gamma', uri: 'file:///unlisted file' });
  });

  it('refuses a gatehouse uri naming an unknown upstream or malformed, without falling back', () => {
    expect(routeResourceUri('gatehouse://nobody/x', merged.index, TEMPLATES, ['alpha'])).toBeUndefined();
    expect(routeResourceUri('gatehouse://alpha', merged.index, TEMPLATES, ['alpha'])).toBeUndefined();
  });

  it('routes by the first matching template in config order', () => {
    expect(routeResourceUri('users://7', merged.index, TEMPLATES, UPSTREAMS)).toEqual({ upstream: 'alpha', uri: 'users://7' });
    expect(routeResourceUri('repo://octo/src/a.ts', merged.index, TEMPLATES, UPSTREAMS)).toEqual({
      upstream: 'beta/β',
      uri: 'repo://octo/src/a.ts',
    });
  });

  it('routes a template named as such (a completion ref) to the upstream that listed it', () => {
    const templates: TemplateOwner[] = [
      ...TEMPLATES,
      { upstream: 'gamma', uriTemplate: 'search://docs{?q}' },
      { upstream: 'gamma', uriTemplate: 'pages://{/path}' },
      { upstream: 'gamma', uriTemplate: 'users://{name}' },
    ];
    expect(routeResourceUri('search://docs{?q}', merged.index, templates, UPSTREAMS)).toEqual({ upstream: 'gamma', uri: 'search://docs{?q}' });
    expect(routeResourceUri('pages://{/path}', merged.index, templates, UPSTREAMS)).toEqual({ upstream: 'gamma', uri: 'pages://{/path}' });
    // Its own text decides, not alpha's users://{id}, whose pattern the text also matches.
    expect(routeResourceUri('users://{name}', merged.index, templates, UPSTREAMS)).toEqual({ upstream: 'gamma', uri: 'users://{name}' });
  });

  it('prefers an exact listed uri over a template', () => {
    const index = new Map([['users://7', { upstream: 'gamma', original: 'users://7' }]]);
    expect(routeResourceUri('users://7', index, TEMPLATES, UPSTREAMS)).toEqual({ upstream: 'gamma', uri: 'users://7' });
  });

  it('falls back to the only upstream with resources, and to nothing when there are several', () => {
    expect(routeResourceUri('file:///unknown', new Map(), [], ['solo'])).toEqual({ upstream: 'solo', uri: 'file:///unknown' });
    expect(routeResourceUri('file:///unknown', merged.index, TEMPLATES, UPSTREAMS)).toBeUndefined();
    expect(routeResourceUri('file:///unknown', new Map(), [], [])).toBeUndefined();
  });
});

describe('exposedResourceUri', () => {
  const exposed = (uri: string): string | undefined => {
    const route = routeResourceUri(uri, merged.index, TEMPLATES, UPSTREAMS);
    return route && exposedResourceUri(uri, route, merged.index);
  };

  it('gives every listed uri back as listed', () => {
    for (const item of merged.items) expect(exposed(item.uri as string)).toBe(item.uri);
  });

  it('judges a gatehouse alias of an uncontested uri as the plain uri, in any escaping or case', () => {
    expect(exposed('gatehouse://alpha/file%3A%2F%2F%2Falpha-only')).toBe('file:///alpha-only');
    expect(exposed('GATEHOUSE://%61lpha/file%3a%2f%2f%2falpha-only')).toBe('file:///alpha-only');
    expect(exposed('gatehouse://gamma/file%3A%2F%2F%2Funlisted')).toBe('file:///unlisted');
  });

  it('judges an alias of a collided uri as the canonical gatehouse form the list shows', () => {
    const listed = merged.items[2]!.uri as string;
    const respelled = `GATEHOUSE:${listed.slice('gatehouse:'.length).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`;
    expect(respelled).not.toBe(listed);
    expect(exposed(respelled)).toBe(listed);
  });
});
