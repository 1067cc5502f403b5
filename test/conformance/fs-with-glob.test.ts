import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without types (the Node 20 shim for the suite)
import { globSync } from './fs-with-glob.mjs';

describe('globSync for the conformance suite on Node 20', () => {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-glob-'));
  mkdirSync(join(root, 'a', 'b'), { recursive: true });
  for (const f of ['checks.json', 'a/checks.json', 'a/b/checks.json', 'a/b/other.json', 'a/x.txt']) writeFileSync(join(root, f), '[]');

  it('matches ** across any depth, the top level included, relative to cwd', () => {
    expect((globSync('**/checks.json', { cwd: root }) as string[]).sort()).toEqual(['a/b/checks.json', 'a/checks.json', 'checks.json']);
  });

  it('matches * and ? within one path segment only', () => {
    expect(globSync('a/*.txt', { cwd: root })).toEqual(['a/x.txt']);
    expect(globSync('*/?.txt', { cwd: root })).toEqual(['a/x.txt']);
    expect(globSync('*.json', { cwd: root })).toEqual(['checks.json']);
  });
});
