import { describe, expect, it } from 'vitest';
import { mergeLists, type MergePart } from './merge.ts';
import { buildResourceDirectory, routeResourceUri, type ExposedRoute, type TemplateOwner } from './resource-routing.ts';

const OPTS = { separator: '__', maxNameLength: 64 };
const SHARED = 'file:///notes/todo list?.md#top';
const SPECIAL = 'custom://ünï côde/a%2Fb?q=1&r=2#frag';

function part(upstream: string, uris: string[]): MergePart {
  return { upstream, prefix: upstream, items: uris.map((uri) => ({ uri, name: uri })), ttlMs: 0, cacheScope: 'public' };
}

const merged = mergeLists(
  'resources',
  [part('alpha', [SHARED, 'file:///alpha-only', 'mem://docs/secret']), part('beta/β', [SHARED, SPECIAL]), part('gamma', [SHARED])],
  OPTS,
);
const UPSTREAMS = ['alpha', 'beta/β', 'gamma'];
const TEMPLATES: TemplateOwner[] = [
  { upstream: 'alpha', uriTemplate: 'users://{id}' },
  { upstream: 'beta/β', uriTemplate: 'users://{id}' },
  { upstream: 'beta/β', uriTemplate: 'repo://{owner}/{+path}' },
  { upstream: 'gamma', uriTemplate: 'search://docs{?q}' },
  { upstream: 'gamma', uriTemplate: 'pages://{/path}' },
  { upstream: 'gamma', uriTemplate: 'users://{name}' },
];
const DIR = buildResourceDirectory(merged.index, TEMPLATES, UPSTREAMS);

function route(uri: string, dir = DIR): ExposedRoute | undefined {
  const r = routeResourceUri(uri, dir);
  if (!r.ok) throw new Error(`refused: ${r.error}`);
  return r.value;
}

describe('routeResourceUri', () => {
  it('routes every merged uri, rewritten ones included, back to its upstream and original uri, judged as listed', () => {
    expect(merged.items.map((item) => route(item.uri as string))).toEqual([
      { upstream: 'alpha', uri: SHARED, exposed: SHARED },
      { upstream: 'alpha', uri: 'file:///alpha-only', exposed: 'file:///alpha-only' },
      { upstream: 'alpha', uri: 'mem://docs/secret', exposed: 'mem://docs/secret' },
      { upstream: 'beta/β', uri: SHARED, exposed: merged.items[3]!.uri },
      { upstream: 'beta/β', uri: SPECIAL, exposed: SPECIAL },
      { upstream: 'gamma', uri: SHARED, exposed: merged.items[5]!.uri },
    ]);
    expect(merged.items[3]!.uri).not.toBe(SHARED);
  });

  it('judges every respelling of a listed uri as the listed uri, and sends the upstream its own spelling', () => {
    for (const s of ['MEM://docs/secret', 'mem://DOCS/secret', 'mem://docs/./secret', 'mem://docs/x/../secret', 'mem://docs:/secret', 'mem://docs/%73ecret', 'mem://docs/%2e/secret']) {
      expect(route(s), s).toEqual({ upstream: 'alpha', uri: 'mem://docs/secret', exposed: 'mem://docs/secret' });
    }
  });

  it('refuses whitespace and control characters with the reason, instead of guessing', () => {
    for (const s of [' mem://docs/secret', 'mem://docs/secret ', 'mem://docs/secret\n', 'mem://docs/se\u202ecret']) {
      expect(routeResourceUri(s, DIR)).toEqual({ ok: false, error: 'the uri contains whitespace or a control character' });
    }
  });

  it('routes nothing that no list or template accounts for, not even to the only upstream with resources', () => {
    const solo = buildResourceDirectory(new Map([['mem://a/listed', { upstream: 'solo', original: 'mem://a/listed' }]]), [], ['solo']);
    expect(route('mem://a/unlisted', solo)).toBeUndefined();
    expect(route('mem://a/listed/../unlisted', solo)).toBeUndefined();
    expect(route('file:///unknown')).toBeUndefined();
  });

  it('routes by the first matching template in config order, under the canonical uri, naming the template', () => {
    expect(route('users://7')).toEqual({ upstream: 'alpha', uri: 'users://7', exposed: 'users://7', template: 'users://{id}' });
    expect(route('USERS://7')).toEqual({ upstream: 'alpha', uri: 'users://7', exposed: 'users://7', template: 'users://{id}' });
    expect(route('repo://octo/src/./a.ts')).toEqual({ upstream: 'beta/β', uri: 'repo://octo/src/a.ts', exposed: 'repo://octo/src/a.ts', template: 'repo://{owner}/{+path}' });
  });

  it('routes a template named as such (a completion ref) to the upstream that listed it', () => {
    expect(route('search://docs{?q}')).toEqual({ upstream: 'gamma', uri: 'search://docs{?q}', exposed: 'search://docs{?q}', template: 'search://docs{?q}' });
    // Its own text decides, not alpha's users://{id}, whose pattern the text also matches.
    expect(route('users://{name}')).toMatchObject({ upstream: 'gamma', uri: 'users://{name}' });
  });

  it('prefers a listed uri over a template', () => {
    const dir = buildResourceDirectory(new Map([['users://7', { upstream: 'gamma', original: 'users://7' }]]), TEMPLATES, UPSTREAMS);
    expect(route('users://7', dir)).toEqual({ upstream: 'gamma', uri: 'users://7', exposed: 'users://7' });
    expect(route('USERS://7', dir)).toEqual({ upstream: 'gamma', uri: 'users://7', exposed: 'users://7' });
  });
});

describe('routeResourceUri, gatehouse:// aliases', () => {
  it('judges an alias of an uncontested uri as the plain uri, in any escaping or case', () => {
    expect(route('gatehouse://alpha/file%3A%2F%2F%2Falpha-only')?.exposed).toBe('file:///alpha-only');
    expect(route('GATEHOUSE://%61lpha/file%3a%2f%2f%2falpha-only')?.exposed).toBe('file:///alpha-only');
  });

  it('canonicalises the wrapped uri too: a wrapped respelling is the listed uri', () => {
    for (const inner of ['MEM://docs/./secret', 'mem://docs:/secret', 'mem://docs/x/../secret']) {
      expect(route(`gatehouse://alpha/${encodeURIComponent(inner)}`), inner).toEqual({ upstream: 'alpha', uri: 'mem://docs/secret', exposed: 'mem://docs/secret' });
    }
    expect(routeResourceUri(`gatehouse://alpha/${encodeURIComponent(' mem://docs/secret')}`, DIR).ok).toBe(false);
  });

  it('goes nowhere for an unlisted uri, an unknown upstream or a malformed alias', () => {
    expect(route('gatehouse://gamma/file%3A%2F%2F%2Funlisted')).toBeUndefined();
    expect(route('gatehouse://nobody/x')).toBeUndefined();
    expect(route('gatehouse://alpha')).toBeUndefined();
  });

  it('routes an alias through the named upstream\'s own templates only', () => {
    expect(route(`gatehouse://beta%2F%CE%B2/${encodeURIComponent('users://7')}`)).toEqual({ upstream: 'beta/β', uri: 'users://7', exposed: 'users://7', template: 'users://{id}' });
    expect(route(`gatehouse://alpha/${encodeURIComponent('repo://o/p')}`)).toBeUndefined();
  });

  it('judges an alias of a collided uri as the canonical gatehouse form the list shows', () => {
    const listed = merged.items[3]!.uri as string;
    const respelled = `GATEHOUSE:${listed.slice('gatehouse:'.length).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`;
    expect(respelled).not.toBe(listed);
    expect(route(respelled)?.exposed).toBe(listed);
  });
});
