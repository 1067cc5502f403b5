import { describe, expect, it } from 'vitest';
import { pruneDocument, relatedPaths } from './prune-document.ts';

describe('pruneDocument', () => {
  const doc = { a: 1, list: [{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }], nested: { keep: true, drop: 'x' } };

  it('takes out the keys and items pointed at and keeps the rest as it was', () => {
    const p = pruneDocument(doc, new Set(['/list/1', '/nested/drop']));
    expect(p?.value).toEqual({ a: 1, list: [{ n: 0 }, { n: 2 }, { n: 3 }], nested: { keep: true } });
    expect(doc.list).toHaveLength(4);
  });

  it('maps paths in the pruned document back to the indices as written', () => {
    const p = pruneDocument(doc, new Set(['/list/0', '/list/2']))!;
    expect(p.value).toEqual({ a: 1, list: [{ n: 1 }, { n: 3 }], nested: { keep: true, drop: 'x' } });
    expect(p.toOriginal('/list/0/n')).toBe('/list/1/n');
    expect(p.toOriginal('/list/1')).toBe('/list/3');
    expect(p.toOriginal('/nested/keep')).toBe('/nested/keep');
    expect(p.toOriginal('')).toBe('');
  });

  it('keeps escaped keys escaped', () => {
    const p = pruneDocument({ 'a/b': [1, 2], x: 1 }, new Set(['/a~1b/0']))!;
    expect(p.value).toEqual({ 'a/b': [2], x: 1 });
    expect(p.toOriginal('/a~1b/0')).toBe('/a~1b/1');
  });

  it('leaves nothing when the root is pointed at', () => {
    expect(pruneDocument(doc, new Set(['']))).toBeUndefined();
  });
});

describe('relatedPaths', () => {
  it('is true for the same path, a path inside and a path around, not for siblings', () => {
    expect(relatedPaths('/a/b', '/a/b')).toBe(true);
    expect(relatedPaths('/a/b/c', '/a/b')).toBe(true);
    expect(relatedPaths('/a', '/a/b')).toBe(true);
    expect(relatedPaths('/a/bc', '/a/b')).toBe(false);
    expect(relatedPaths('/a/c', '/a/b')).toBe(false);
  });
});
