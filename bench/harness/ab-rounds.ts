// Interleaved A/B(/C) measurement: every arm is warmed up once, then the arms run in turn
// (A B A B ...) for several rounds, so slow drift of the machine (thermal, page cache, other
// tenants) hits every arm alike. Each arm reports the median over rounds; a single bad
// reply in any round marks the arm FAILED.
import type { LoadGenerator, LoadResult, LoadSpec } from './load-generator.ts';
import { runFailure } from './load-generator.ts';
import { cpuMicros } from './proc-stats.ts';
import { median } from './statistics.ts';

export interface Arm {
  name: string;
  spec: Omit<LoadSpec, 'durationSec'>;
  /** Processes whose CPU time per completed request is measured in each round, by label. */
  cpuPids?: Readonly<Record<string, number>>;
}

export interface RoundPlan {
  rounds: number;
  roundSec: number;
  warmupSec: number;
}

export interface ArmRound {
  load: LoadResult;
  cpuUsPerCall: Record<string, number>;
  /** Share of one core the load generator used: near 1, the client may be the bottleneck. */
  loadgenCpuShare: number;
}

export interface ArmSummary {
  name: string;
  failed?: string;
  rounds: ArmRound[];
  rps: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerCall: Record<string, number>;
  loadgenCpuShare: number;
}

async function measure(gen: LoadGenerator, arm: Arm, durationSec: number): Promise<ArmRound> {
  const pids = Object.entries(arm.cpuPids ?? {});
  const before = pids.map(([, pid]) => cpuMicros(pid));
  const genBefore = gen.pid === undefined ? 0 : cpuMicros(gen.pid);
  const load = await gen.run({ ...arm.spec, durationSec });
  const loadgenCpuShare = gen.pid === undefined ? Number.NaN : (cpuMicros(gen.pid) - genBefore) / (load.elapsedSec * 1e6);
  const cpuUsPerCall: Record<string, number> = {};
  pids.forEach(([label, pid], i) => {
    cpuUsPerCall[label] = load.completed > 0 ? (cpuMicros(pid) - before[i]!) / load.completed : Number.NaN;
  });
  return { load, cpuUsPerCall, loadgenCpuShare };
}

export async function runInterleaved(gen: LoadGenerator, arms: readonly Arm[], plan: RoundPlan, log: (msg: string) => void): Promise<ArmSummary[]> {
  const { failed, note } = failures();
  for (const arm of arms) {
    const warm = await measure(gen, arm, plan.warmupSec);
    note(arm, warm.load);
  }
  const rounds = new Map<string, ArmRound[]>(arms.map((a) => [a.name, []]));
  for (let r = 1; r <= plan.rounds; r++) {
    for (const arm of arms) {
      const res = await measure(gen, arm, plan.roundSec);
      note(arm, res.load);
      rounds.get(arm.name)!.push(res);
      log(roundLine(`round ${r}/${plan.rounds}`, arm, res.load));
    }
  }
  return arms.map((arm) => summary(arm, rounds.get(arm.name)!, failed.get(arm.name)));
}

/** The first failed run of each arm marks it FAILED. */
function failures(): { failed: Map<string, string>; note: (arm: Arm, r: LoadResult) => void } {
  const failed = new Map<string, string>();
  const note = (arm: Arm, r: LoadResult): void => {
    const why = runFailure(r);
    if (why && !failed.has(arm.name)) failed.set(arm.name, why);
  };
  return { failed, note };
}

/** A round where nothing completed has no latencies (NaN, null once over IPC): shown as "-". */
function roundLine(label: string, arm: Arm, load: LoadResult): string {
  const fixed = (v: number | null, digits: number): string => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '-');
  return `  ${label} ${arm.name.padEnd(24)} ${fixed(load.rps, 0).padStart(6)} req/s  p50 ${fixed(load.latencyMs.p50, 2)} ms  p99 ${fixed(load.latencyMs.p99, 2)} ms${runFailure(load) ? '  FAILED' : ''}`;
}

function summary(arm: Arm, rs: ArmRound[], failure: string | undefined): ArmSummary {
  const labels = Object.keys(arm.cpuPids ?? {});
  return {
    name: arm.name,
    ...(failure ? { failed: failure } : {}),
    rounds: rs,
    rps: median(rs.map((x) => x.load.rps)),
    p50Ms: median(rs.map((x) => x.load.latencyMs.p50)),
    p99Ms: median(rs.map((x) => x.load.latencyMs.p99)),
    cpuUsPerCall: Object.fromEntries(labels.map((l) => [l, median(rs.map((x) => x.cpuUsPerCall[l] ?? Number.NaN))])),
    loadgenCpuShare: median(rs.map((x) => x.loadgenCpuShare)),
  };
}

/**
 * The arms at the same time, each driven by its own load generator: every round, all arms run
 * for the same seconds side by side, so whatever else the machine does in that window (other
 * tenants, a GC in the upstream they share) lands on them together. Their CPU per call in one
 * round is then measured under the same conditions, where interleaved rounds seconds apart
 * can catch the machine in different moods. Each arm gets `gens[i]`.
 */
export async function runSimultaneous(gens: readonly LoadGenerator[], arms: readonly Arm[], plan: RoundPlan, log: (msg: string) => void): Promise<ArmSummary[]> {
  if (gens.length < arms.length) throw new Error(`runSimultaneous: ${arms.length} arms need as many load generators, got ${gens.length}`);
  const { failed, note } = failures();
  const together = (sec: number): Promise<ArmRound[]> => Promise.all(arms.map((arm, i) => measure(gens[i]!, arm, sec)));
  (await together(plan.warmupSec)).forEach((w, i) => note(arms[i]!, w.load));
  const rounds = arms.map((): ArmRound[] => []);
  for (let r = 1; r <= plan.rounds; r++) {
    const res = await together(plan.roundSec);
    res.forEach((x, i) => {
      note(arms[i]!, x.load);
      rounds[i]!.push(x);
      log(roundLine(`together ${r}/${plan.rounds}`, arms[i]!, x.load));
    });
  }
  return arms.map((arm, i) => summary(arm, rounds[i]!, failed.get(arm.name)));
}
