import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assignNames, buildNameIndex, hash8, resolveName, shortenName, type NamingSource } from './naming.ts';

const OPTS = { separator: '__', maxNameLength: 64 };

function sha8(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

function exposedOf(sources: NamingSource[], opts = OPTS): string[] {
  return assignNames(sources, opts).names.map((n) => n.exposed);
}

describe('prefixing', () => {
  it('prefixes with the upstream name and the default separator', () => {
    const result = assignNames([{ upstream: 'github', prefix: 'github', names: ['create_issue', 'list_prs'] }], OPTS);
    expect(result.names).toEqual([
      { upstream: 'github', original: 'create_issue', exposed: 'github__create_issue' },
      { upstream: 'github', original: 'list_prs', exposed: 'github__list_prs' },
    ]);
    expect(result.renames).toEqual([]);
  });

  it('uses a custom prefix and a custom separator', () => {
    expect(exposedOf([{ upstream: 'github', prefix: 'gh', names: ['search'] }], { separator: '.', maxNameLength: 64 })).toEqual([
      'gh.search',
    ]);
  });

  it('leaves names unchanged when the prefix is empty', () => {
    expect(exposedOf([{ upstream: 'local', prefix: '', names: ['echo', 'add'] }])).toEqual(['echo', 'add']);
  });

  it('keeps later separators inside the original name and resolves to it', () => {
    const { names } = assignNames([{ upstream: 'a', prefix: 'a', names: ['b__c'] }], OPTS);
    expect(names[0]!.exposed).toBe('a__b__c');
    expect(resolveName(buildNameIndex(names), 'a__b__c')).toEqual({ upstream: 'a', name: 'b__c' });
  });
});

describe('length limit', () => {
  it('keeps a name of exactly the limit unchanged', () => {
    const name = 'x'.repeat(64 - 'up__'.length);
    const result = assignNames([{ upstream: 'up', prefix: 'up', names: [name] }], OPTS);
    expect(result.names[0]!.exposed).toBe(`up__${name}`);
    expect(result.names[0]!.exposed).toHaveLength(64);
    expect(result.renames).toEqual([]);
  });

  it('shortens a name one over the limit to head + _ + sha256 prefix of the full name', () => {
    const name = 'y'.repeat(65 - 'up__'.length);
    const full = `up__${name}`;
    const result = assignNames([{ upstream: 'up', prefix: 'up', names: [name] }], OPTS);
    const exposed = result.names[0]!.exposed;
    expect(exposed).toHaveLength(64);
    expect(exposed).toBe(`${full.slice(0, 55)}_${sha8(full)}`);
    expect(result.renames).toEqual([{ upstream: 'up', original: name, exposed, reason: 'too_long' }]);
  });

  it('gives distinct shortened names to long names sharing their head', () => {
    const head = 'z'.repeat(100);
    const exposed = exposedOf([{ upstream: 'up', prefix: 'up', names: [`${head}_a`, `${head}_b`] }]);
    expect(exposed[0]).not.toBe(exposed[1]);
    expect(exposed.every((e) => e.length === 64)).toBe(true);
  });

  it('shortenName leaves short names alone', () => {
    expect(shortenName('short', 10)).toBe('short');
    expect(shortenName('elevenchars', 10)).toBe(`e_${sha8('elevenchars')}`);
  });

  it('rejects a limit too small to hold the hash suffix', () => {
    expect(() => assignNames([], { separator: '__', maxNameLength: 9 })).toThrow(RangeError);
    expect(() => assignNames([], { separator: '__', maxNameLength: 10 })).not.toThrow();
  });
});

describe('collisions', () => {
  it('lets the first empty-prefix upstream keep a shared name and suffixes the later one', () => {
    const result = assignNames(
      [
        { upstream: 'a', prefix: '', names: ['search'] },
        { upstream: 'b', prefix: '', names: ['search'] },
      ],
      OPTS,
    );
    const renamed = `search_${sha8('b/search')}`;
    expect(result.names.map((n) => n.exposed)).toEqual(['search', renamed]);
    expect(result.renames).toEqual([{ upstream: 'b', original: 'search', exposed: renamed, reason: 'collision' }]);
  });

  it('keeps every copy of a name an upstream lists more than once', () => {
    const result = assignNames([{ upstream: 'a', prefix: 'a', names: ['x', 'x', 'x'] }], OPTS);
    expect(result.names.map((n) => n.exposed)).toEqual(['a__x', `a__x_${sha8('a/x')}`, `a__x_${sha8('a/x#1')}`]);
    expect(result.renames.map((r) => r.reason)).toEqual(['collision', 'collision']);
  });

  it('never gives a generated name to an item whose natural name it is', () => {
    const generated = `x_${sha8('a/x')}`;
    const result = assignNames(
      [
        { upstream: 'a', prefix: '', names: ['x', 'x'] },
        { upstream: 'b', prefix: '', names: [generated] },
      ],
      OPTS,
    );
    expect(result.names.map((n) => n.exposed)).toEqual(['x', `x_${sha8('a/x#1')}`, generated]);
    expect(result.renames).toHaveLength(1);
  });

  it('resolves a truncation that lands on another name, staying within the limit', () => {
    const long = 'q'.repeat(80);
    const shortened = shortenName(long, 64);
    const result = assignNames(
      [
        { upstream: 'a', prefix: '', names: [long] },
        { upstream: 'b', prefix: '', names: [shortened] },
      ],
      OPTS,
    );
    const [first, second] = result.names.map((n) => n.exposed);
    expect(first).toBe(shortened);
    expect(second).toBe(`${shortened.slice(0, 55)}_${sha8(`b/${shortened}`)}`);
    expect(second).toHaveLength(64);
    expect(result.renames).toEqual([
      { upstream: 'a', original: long, exposed: shortened, reason: 'too_long' },
      { upstream: 'b', original: shortened, exposed: second, reason: 'collision' },
    ]);
  });

  it('reports collision as the reason when a long name is also displaced', () => {
    const long = 'w'.repeat(70);
    const result = assignNames(
      [
        { upstream: 'a', prefix: '', names: [long] },
        { upstream: 'b', prefix: '', names: [long] },
      ],
      OPTS,
    );
    expect(result.renames.map((r) => [r.upstream, r.reason])).toEqual([
      ['a', 'too_long'],
      ['b', 'collision'],
    ]);
    expect(result.names[1]!.exposed).toHaveLength(64);
  });

  it('is deterministic, drops nothing and yields unique names within the limit', () => {
    const sources: NamingSource[] = [
      { upstream: 'a', prefix: '', names: ['t', 't', 'u', 'v'.repeat(30)] },
      { upstream: 'b', prefix: '', names: ['t', 'u', 'u', 'v'.repeat(30)] },
      { upstream: 'c', prefix: 'c', names: ['t', 't'] },
      { upstream: 'd', prefix: '', names: [`t_${sha8('b/t')}`, 'c__t'] },
    ];
    const opts = { separator: '__', maxNameLength: 20 };
    const first = assignNames(sources, opts);
    const second = assignNames(structuredClone(sources), opts);
    expect(second).toEqual(first);
    expect(first.names).toHaveLength(12);
    expect(new Set(first.names.map((n) => n.exposed)).size).toBe(12);
    expect(first.names.every((n) => n.exposed.length <= 20)).toBe(true);
    expect(first.names.map((n) => `${n.upstream}:${n.original}`)).toEqual(
      sources.flatMap((s) => s.names.map((name) => `${s.upstream}:${name}`)),
    );
    const untouched = first.names.filter((n) => !first.renames.some((r) => r.upstream === n.upstream && r.exposed === n.exposed));
    expect(untouched.every((n) => n.exposed === (n.upstream === 'c' ? `c__${n.original}` : n.original))).toBe(true);
  });
});

describe('resolveName', () => {
  it('round-trips every exposed name, renamed ones included', () => {
    const { names, renames } = assignNames(
      [
        { upstream: 'a', prefix: '', names: ['x', 'x', 'l'.repeat(90)] },
        { upstream: 'b', prefix: 'b', names: ['x', 'y'] },
        { upstream: 'c', prefix: '', names: ['x'] },
      ],
      OPTS,
    );
    expect(renames.length).toBe(3);
    const index = buildNameIndex(names);
    expect(index.size).toBe(names.length);
    for (const n of names) expect(resolveName(index, n.exposed)).toEqual({ upstream: n.upstream, name: n.original });
  });

  it('returns undefined for an unknown name', () => {
    const index = buildNameIndex(assignNames([{ upstream: 'a', prefix: 'a', names: ['x'] }], OPTS).names);
    expect(resolveName(index, 'a__y')).toBeUndefined();
    expect(resolveName(index, 'x')).toBeUndefined();
  });

  it('refuses to index duplicate exposed names', () => {
    const dup = { upstream: 'a', original: 'x', exposed: 'x' };
    expect(() => buildNameIndex([dup, dup])).toThrow(/duplicate/);
  });

  it('hash8 is the first 8 hex chars of sha256', () => {
    expect(hash8('abc')).toBe('ba7816bf');
  });
});
