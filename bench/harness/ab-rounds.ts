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
  const failed = new Map<string, string>();
  const note = (arm: Arm, r: LoadResult): void => {
    const why = runFailure(r);
    if (why && !failed.has(arm.name)) failed.set(arm.name, why);
  };
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
      log(`  round ${r}/${plan.rounds} ${arm.name.padEnd(24)} ${res.load.rps.toFixed(0).padStart(6)} req/s  p50 ${res.load.latencyMs.p50.toFixed(2)} ms  p99 ${res.load.latencyMs.p99.toFixed(2)} ms${runFailure(res.load) ? '  FAILED' : ''}`);
    }
  }
  return arms.map((arm) => {
    const rs = rounds.get(arm.name)!;
    const labels = Object.keys(arm.cpuPids ?? {});
    const failure = failed.get(arm.name);
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
  });
}
