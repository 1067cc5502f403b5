// The conformance step of CI (`npm run conformance`): the official MCP conformance suite,
// 0.1.16 and 0.2.0-alpha.12, in server mode against fixture servers built with SDK 1.x and
// SDK 2.x, once directly and once through Gatehouse (one upstream, `prefix: ""`), compared
// check by check; then client mode, Gatehouse as the client under test (client-driver.ts).
// It fails when a check is worse through Gatehouse than directly, unless
// known-regressions.json names it with the reason, and when a named one no longer is
// (the list only shrinks). Prints the comparison table that README "Conformance" shows.
import { readFileSync } from 'node:fs';
import { startTestGateway } from '../harness/gateway.ts';
import { upstreamsUp } from './upstreams-up.ts';
import { startSdk1Server, type FixtureServer } from './sdk1-server.ts';
import { startSdk2Server } from './sdk2-server.ts';
import { runSuite, type SuiteVersion } from './suite-cli.ts';
import { formatTally, regressions, tally, type Checks, type Regression } from './suite-results.ts';
import { CLIENT_RUNS, runClientMode } from './client-mode.ts';

interface ServerRun {
  label: string;
  suite: SuiteVersion;
  args: string[];
  fixture: 'sdk1' | 'sdk2';
  /** false: the fixture cannot take this suite directly (SDK 1.x speaks no 2026-07-28), so
   * the row shows what Gatehouse bridges and gates nothing. */
  baseline?: false;
}

const SERVER_RUNS: ServerRun[] = [
  { label: '0.1.16 (2025-11-25), SDK 1.x server', suite: '0.1.16', args: [], fixture: 'sdk1' },
  { label: '0.2.0-alpha.12 default, SDK 1.x server', suite: '0.2.0-alpha.12', args: [], fixture: 'sdk1' },
  { label: '0.2.0-alpha.12 --requirements 2025-11-25, SDK 1.x server', suite: '0.2.0-alpha.12', args: ['--requirements', '2025-11-25'], fixture: 'sdk1' },
  { label: '0.2.0-alpha.12 --requirements 2026-07-28, SDK 2.x server', suite: '0.2.0-alpha.12', args: ['--requirements', '2026-07-28'], fixture: 'sdk2' },
  // The other era pairs: a 2025-11-25 client in front of the dual-era SDK 2.x server, and a
  // 2026-07-28 client in front of the 2025-11-25-only SDK 1.x server.
  { label: '0.2.0-alpha.12 --requirements 2025-11-25, SDK 2.x server', suite: '0.2.0-alpha.12', args: ['--requirements', '2025-11-25'], fixture: 'sdk2' },
  { label: '0.2.0-alpha.12 --requirements 2026-07-28, SDK 1.x server', suite: '0.2.0-alpha.12', args: ['--requirements', '2026-07-28'], fixture: 'sdk1', baseline: false },
];

/** One suite invocation at most this long; the whole step stays within a few minutes. */
const RUN_TIMEOUT_MS = 150_000;
const KNOWN: Record<string, Record<string, string>> = JSON.parse(readFileSync(new URL('./known-regressions.json', import.meta.url), 'utf8'));

interface Row {
  label: string;
  direct: Checks;
  through: Checks;
  worse: Regression[];
}

async function throughGatehouse<T>(upstreamUrl: string, use: (url: string) => Promise<T>): Promise<T> {
  const gw = await startTestGateway(`upstreams:\n  - { name: up, url: "${upstreamUrl}", prefix: "" }\n`);
  try {
    await upstreamsUp(gw.upstreams);
    return await use(gw.url);
  } finally {
    await gw.close();
  }
}

async function serverRow(run: ServerRun): Promise<Row> {
  const fixture: FixtureServer = run.fixture === 'sdk1' ? await startSdk1Server() : await startSdk2Server();
  try {
    const direct = run.baseline === false ? { checks: new Map(), tail: '', timedOut: false } : await runSuite(run.suite, ['server', '--url', fixture.url, ...run.args], RUN_TIMEOUT_MS);
    const through = await throughGatehouse(fixture.url, (url) => runSuite(run.suite, ['server', '--url', url, ...run.args], RUN_TIMEOUT_MS));
    for (const [name, r] of (run.baseline === false ? [['through Gatehouse', through]] : [['direct', direct], ['through Gatehouse', through]]) as [string, typeof through][]) {
      if (r.timedOut || r.checks.size === 0) process.stderr.write(`conformance: ${run.label}, ${name}: ${r.timedOut ? 'timed out' : 'no results'}\n${r.tail}\n`);
    }
    return { label: run.label, direct: direct.checks, through: through.checks, worse: regressions(direct.checks, through.checks) };
  } finally {
    await fixture.close();
  }
}

function report(rows: Row[]): number {
  const lines = ['| suite and mode | direct | through Gatehouse | worse through Gatehouse |', '|---|---|---|---|'];
  let unexpected = 0;
  const notes: string[] = [];
  for (const row of rows) {
    const direct = row.direct.size === 0 ? 'n/a (no baseline)' : formatTally(tally(row.direct));
    lines.push(`| ${row.label} | ${direct} | ${formatTally(tally(row.through))} | ${row.direct.size === 0 ? 'n/a' : row.worse.length} |`);
    const known = KNOWN[row.label] ?? {};
    for (const w of row.worse) {
      const why = known[w.check];
      if (why === undefined) unexpected++;
      notes.push(`${why === undefined ? 'NEW' : 'known'}  ${row.label}  ${w.check}: ${w.direct} directly, ${w.through} through Gatehouse${why ? ` (${why})` : ''}`);
    }
    for (const check of Object.keys(known)) {
      if (!row.worse.some((w) => w.check === check)) {
        unexpected++;
        notes.push(`STALE  ${row.label}  ${check}: no longer worse through Gatehouse; remove it from known-regressions.json`);
      }
    }
  }
  process.stdout.write(`${lines.join('\n')}\n\n${notes.join('\n')}${notes.length ? '\n' : ''}`);
  return unexpected;
}

/** --verbose: every check of every row, both sides. */
function details(rows: Row[]): void {
  for (const row of rows) {
    process.stdout.write(`\n## ${row.label}\n`);
    for (const [check, d] of [...row.direct].sort(([a], [b]) => a.localeCompare(b))) process.stdout.write(`${d.padEnd(8)} ${(row.through.get(check) ?? 'MISSING').padEnd(8)} ${check}\n`);
    for (const [check, t] of row.through) if (!row.direct.has(check)) process.stdout.write(`${'-'.padEnd(8)} ${t.padEnd(8)} ${check}\n`);
  }
}

async function main(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  const only = process.argv.slice(2).filter((a) => a !== '--verbose');
  const rows: Row[] = [];
  for (const run of SERVER_RUNS) if (only.length === 0 || only.some((o) => run.label.includes(o))) rows.push(await serverRow(run));
  for (const run of CLIENT_RUNS) if (only.length === 0 || only.some((o) => run.label.includes(o))) rows.push(await runClientMode(run));
  if (verbose) details(rows);
  const unexpected = report(rows);
  const checks = rows.reduce((n, r) => n + [...r.direct.values()].filter((s) => s !== 'INFO').length, 0);
  // The plain closing line CI reads: one "passed" per check no worse through Gatehouse.
  process.stdout.write(`conformance: ${checks - unexpected} passed, ${unexpected} failed\n`);
  process.exitCode = unexpected === 0 && checks > 0 ? 0 : 1;
}

await main();
