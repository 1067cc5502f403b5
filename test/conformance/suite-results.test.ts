import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readChecks, regressions, tally, type Checks } from './suite-results.ts';

function resultsDir(scenarios: Record<string, { id: string; status: string }[]>): string {
  const out = mkdtempSync(join(tmpdir(), 'gatehouse-results-'));
  for (const [dir, checks] of Object.entries(scenarios)) {
    mkdirSync(join(out, dir));
    writeFileSync(join(out, dir, 'checks.json'), JSON.stringify(checks));
  }
  return out;
}

describe('reading the suite results', () => {
  it('keys checks by scenario, collapses repeats to the most severe and keeps INFO below a pass', () => {
    const dir = resultsDir({
      'server-tools-list-2026-12-01T14-18-36-766Z': [{ id: 'tools-list', status: 'SUCCESS' }, { id: 'tools-list', status: 'WARNING' }, { id: 'incoming-request', status: 'INFO' }],
      'sse-retry-2026-12-01T14-18-38-554Z': [{ id: 'client-sse-retry-timing', status: 'INFO' }, { id: 'client-sse-retry-timing', status: 'SUCCESS' }],
      'not-a-result-dir': [{ id: 'x', status: 'FAILURE' }],
    });
    const checks = readChecks(dir);
    expect(Object.fromEntries(checks)).toEqual({
      'tools-list:tools-list': 'WARNING',
      'tools-list:incoming-request': 'INFO',
      'sse-retry:client-sse-retry-timing': 'SUCCESS',
    });
    expect(tally(checks)).toEqual({ pass: 1, fail: 0, warn: 1, skip: 0 });
  });

  it('reads a missing results folder as no checks', () => {
    expect(readChecks(join(tmpdir(), 'gatehouse-no-such-results')).size).toBe(0);
  });
});

describe('comparing direct with through Gatehouse', () => {
  const direct: Checks = new Map([
    ['a:pass', 'SUCCESS'], ['a:lost', 'SUCCESS'], ['a:warned', 'WARNING'], ['a:skipped', 'SKIPPED'], ['a:na', 'SUCCESS'], ['a:log', 'INFO'], ['a:better', 'FAILURE'],
  ]);
  const through: Checks = new Map([
    ['a:pass', 'FAILURE'], ['a:skipped', 'SUCCESS'], ['a:na', 'INFO'], ['a:better', 'SUCCESS'],
  ]);

  it('reports worse statuses, and passes that did not run through Gatehouse', () => {
    expect(regressions(direct, through)).toEqual([
      { check: 'a:lost', direct: 'SUCCESS', through: 'MISSING' },
      { check: 'a:pass', direct: 'SUCCESS', through: 'FAILURE' },
    ]);
  });

  it('lets a check that only warned directly vanish, and takes INFO (not applicable) as a pass', () => {
    const worse = regressions(direct, through).map((r) => r.check);
    expect(worse).not.toContain('a:warned');
    expect(worse).not.toContain('a:na');
  });
});
