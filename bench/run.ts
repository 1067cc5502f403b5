// `npm run bench`: Gatehouse's performance benchmark. Offline and 127.0.0.1 only; servers are
// pinned to CPU 0 and the load generator to CPU 1 (taskset), every request's reply is
// checked, and arms of a scenario are interleaved over rounds (A B A B ...). Prints a table
// per scenario and the issue's targets, writes bench/results/<ISO time>.json, and profiles
// the gateway when a target is missed.
//
// Flags: --quick (1 round x 2 s), --rounds N, --seconds S, --connections C, --soak-seconds S,
//        --only id,id (legacy, modern, stdio, toolsList, contextBudget, memory, soak, bigResults,
//        overload, mergedPeer, scaleOut, ceiling, baseline), --long (adds the long ramps: ceiling), --profile (always), --no-profile,
//        --baseline DIR (a built checkout of another revision, for the `baseline` scenario: CPU per
//        call of this checkout's plain gateway and that one's, interleaved in one run).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { detectPinning, LOADGEN_CPU, SERVER_CPU } from './harness/child-processes.ts';
import { LoadGenerator } from './harness/load-generator.ts';
import { evaluateTargets, formatReport, writeJson } from './report.ts';
import { baselineAb } from './scenarios/baseline-ab.ts';
import { bigResults } from './scenarios/big-results.ts';
import { contextBudget } from './scenarios/context-budget.ts';
import { memory } from './scenarios/memory.ts';
import { mergedPeer } from './scenarios/merged-peer.ts';
import { overload } from './scenarios/overload.ts';
import { profileGateway, type ProfileWorkload } from './scenarios/profile-gateway.ts';
import type { Scenario, ScenarioContext, ScenarioResult } from './scenarios/scenario.ts';
import { scaleOut } from './scenarios/scale-out.ts';
import { serversOverlays } from './scenarios/servers-overlays.ts';
import { sessionCeiling } from './scenarios/session-ceiling.ts';
import { soak } from './scenarios/soak.ts';
import { stdioPeers } from './scenarios/stdio-peers.ts';
import { toolsCallLegacy } from './scenarios/tools-call-legacy.ts';
import { toolsCallModern } from './scenarios/tools-call-modern.ts';
import { toolsListMerged } from './scenarios/tools-list-merged.ts';

const SCENARIOS: readonly Scenario[] = [toolsCallLegacy, toolsCallModern, stdioPeers, toolsListMerged, serversOverlays, contextBudget, memory, soak, bigResults, overload, mergedPeer, scaleOut];
/** Minutes-long ramps: run with --long, or by name with --only. */
const LONG_SCENARIOS: readonly Scenario[] = [sessionCeiling];
/** Run when --baseline is given (or by name with --only). */
const BASELINE_SCENARIOS: readonly Scenario[] = [baselineAb];
const MAX_DEFAULT_PROFILES = 1;
const RESULTS_DIR = fileURLToPath(new URL('./results', import.meta.url));

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string' },
    'soak-seconds': { type: 'string' },
    only: { type: 'string' },
    long: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'no-profile': { type: 'boolean', default: false },
    baseline: { type: 'string' },
  },
});

function gitRevision(cwd?: string): string {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', cwd }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8', cwd }).trim() !== '';
    return dirty ? `${rev} (src/ has uncommitted changes)` : rev;
  } catch {
    return 'unknown';
  }
}

async function runScenario(s: Scenario, ctx: ScenarioContext): Promise<ScenarioResult> {
  ctx.log(`\n-> ${s.title}`);
  const started = Date.now();
  try {
    return await s.run(ctx);
  } catch (e) {
    // Where it broke, for whoever reads the log; the report keeps the message.
    ctx.log(`   ${e instanceof Error ? e.stack : String(e)}`);
    return { id: s.id, title: s.title, rows: [], metrics: {}, failed: `scenario error: ${(e as Error).message}` };
  } finally {
    ctx.log(`   (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
}

async function main(): Promise<number> {
  const started = new Date();
  const stamp = started.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const cpus = availableParallelism();
  const pinning = detectPinning(cpus);
  const plan = {
    rounds: Number(args.rounds ?? (args.quick ? 1 : 5)),
    roundSec: Number(args.seconds ?? (args.quick ? 2 : 3)),
    warmupSec: args.quick ? 1 : 3,
  };
  const connections = Number(args.connections ?? 16);
  const soakSec = Number(args['soak-seconds'] ?? (args.quick ? 15 : 60));
  const only = args.only?.split(',').map((s) => s.trim());
  const tmpDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const log = (msg: string): void => void process.stderr.write(`${msg}\n`);
  const gen = LoadGenerator.start(pinning);
  const baseline = args.baseline !== undefined ? { dir: resolve(args.baseline), revision: gitRevision(resolve(args.baseline)) } : undefined;
  if (baseline && !existsSync(join(baseline.dir, 'bin/gatehouse.js'))) throw new Error(`--baseline ${args.baseline}: no bin/gatehouse.js there (a Gatehouse checkout, built with npm run build)`);
  const ctx: ScenarioContext = { pinning, gen, plan, connections, soakSec, tmpDir, artifactPrefix: join(RESULTS_DIR, stamp), log, ...(baseline ? { baseline } : {}) };
  const header = [
    `Gatehouse benchmark — ${started.toISOString()}, git ${gitRevision()}`,
    `node ${process.version}, ${cpus} CPUs, ${pinning.taskset ? `servers pinned to CPU ${SERVER_CPU}, load generator to CPU ${LOADGEN_CPU}` : 'NOT pinned (no taskset or 1 CPU)'}`,
    `${plan.rounds} interleaved rounds x ${plan.roundSec} s (+${plan.warmupSec} s warm-up per arm), ${connections} connections; medians over rounds; ×: ratio to the scenario's first row`,
    ...(baseline ? [`baseline: ${baseline.dir} at git ${baseline.revision} (the baseline scenario)`] : []),
  ];
  const results: ScenarioResult[] = [];
  try {
    for (const s of [...SCENARIOS, ...LONG_SCENARIOS, ...BASELINE_SCENARIOS]) {
      if (only ? !only.includes(s.id) : (LONG_SCENARIOS.includes(s) && !args.long) || (BASELINE_SCENARIOS.includes(s) && !baseline)) continue;
      results.push(await runScenario(s, ctx));
    }
    let outcomes = evaluateTargets(results);
    if (!args['no-profile']) {
      const workloads = new Set<ProfileWorkload>();
      for (const o of outcomes) if (o.target.profile && (args.profile || o.status === 'NOT MET')) workloads.add(o.target.profile);
      // The modern scenario has no target of its own; --profile profiles it too.
      if (args.profile && results.some((r) => r.id === 'modern')) workloads.add('tools/call modern');
      // The policy profile holds the plain proxy path too: by default, one tools/call profile,
      // and at most MAX_DEFAULT_PROFILES (in target order) to keep the run within minutes.
      if (!args.profile && workloads.has('tools/call+policy')) workloads.delete('tools/call');
      const chosen = args.profile ? [...workloads] : [...workloads].slice(0, MAX_DEFAULT_PROFILES);
      const skipped = [...workloads].filter((w) => !chosen.includes(w));
      if (skipped.length) header.push(`not profiled (run with --profile): ${skipped.join(', ')}`);
      for (const w of chosen) results.push(await runScenario(profileGateway(w), ctx));
      outcomes = evaluateTargets(results);
    }
    const file = join(RESULTS_DIR, `${stamp}.json`);
    writeJson(file, { started: started.toISOString(), finished: new Date().toISOString(), header, plan, connections, cpus, pinned: !!pinning.taskset, node: process.version }, results, outcomes);
    process.stdout.write(`\n${formatReport(header, results, outcomes)}\n\nresults: ${file}\n`);
    return results.some((r) => r.failed) ? 1 : 0;
  } finally {
    await gen.close();
    rmSync(tmpDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
