import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { setsPretenuring } from './heap-tuning.ts';

const TUNING = fileURLToPath(new URL('./heap-tuning.ts', import.meta.url));

/** A node process that makes literals, some of which live on, with V8's pretenuring trace on:
 * the lines it prints are V8 processing allocation-site feedback at young collections. */
function pretenuringTrace(nodeFlags: readonly string[], tune: boolean): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-heap-tuning-'));
  const script = join(dir, 'allocate.mjs');
  writeFileSync(
    script,
    [
      tune ? `(await import(${JSON.stringify(TUNING)})).tuneHeap();` : '',
      'const keep = [];',
      'for (let i = 0; i < 400000; i++) { keep.push({ a: i, b: [i] }); if (keep.length > 50000) keep.length = 0; }',
      'process.stderr.write(`kept ${keep.length}\\n`);',
    ].join('\n'),
  );
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--trace-pretenuring', '--trace-pretenuring-statistics', ...nodeFlags, script], { encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr).toMatch(/kept \d+/);
  return run.stdout.split('\n').filter((l) => l.includes('pretenuring'));
}

describe('heap tuning: allocation-site pretenuring off for the gateway', () => {
  it('stops V8 from acting on allocation-site feedback, which it does by default', () => {
    expect(pretenuringTrace([], false).length).toBeGreaterThan(0);
    expect(pretenuringTrace([], true)).toEqual([]);
  });

  it('leaves the flag as node\'s command line set it', () => {
    expect(pretenuringTrace(['--allocation-site-pretenuring'], true).length).toBeGreaterThan(0);
  });

  it('recognises the flag in either spelling, on or off, and nothing else', () => {
    for (const arg of ['--allocation-site-pretenuring', '--no-allocation-site-pretenuring', '--allocation_site_pretenuring', '--noallocation_site_pretenuring', '--allocation-site-pretenuring=false']) {
      expect(setsPretenuring(['--import', 'tsx', arg]), arg).toBe(true);
    }
    expect(setsPretenuring([])).toBe(false);
    expect(setsPretenuring(['--trace-pretenuring', '--max-old-space-size=512', '--allocation-site-pretenuring-x'])).toBe(false);
  });
});
