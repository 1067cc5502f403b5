// What every scenario receives and returns. A scenario starts its own servers, measures,
// and stops them again; it reports table rows for people and named metrics for the targets
// (report.ts). Adding a scenario = one file exporting a Scenario, listed in run.ts.
import type { Pinning } from '../harness/child-processes.ts';
import type { LoadGenerator } from '../harness/load-generator.ts';
import type { ArmSummary, RoundPlan } from '../harness/ab-rounds.ts';

export interface ScenarioContext {
  pinning: Pinning;
  gen: LoadGenerator;
  plan: RoundPlan;
  /** Concurrent connections for throughput runs. */
  connections: number;
  /** Scratch directory for configs and profiles; removed at the end. */
  tmpDir: string;
  /** Length of the half-capacity soak (scenario 5, `--soak-seconds`). */
  soakSec: number;
  /** Path prefix for files worth keeping (`bench/results/<stamp>`); add a suffix ending in .json. */
  artifactPrefix: string;
  /** `--baseline DIR`: another checkout (built) whose plain gateway runs as one more arm of the
   * legacy scenario, interleaved with this one's, for a before/after in one run. */
  baseline?: { dir: string; revision: string };
  log(msg: string): void;
}

export interface ResultRow {
  label: string;
  rps?: number;
  p50Ms?: number;
  p99Ms?: number;
  /** Throughput relative to the scenario's baseline row. */
  rpsRatio?: number;
  p99Ratio?: number;
  /** CPU time of the process under test per completed request. */
  cpuUsPerCall?: number;
  /** Free-form value for rows that are not load runs (memory, counts). */
  value?: string;
  failed?: string;
  note?: string;
}

export interface ScenarioResult {
  id: string;
  title: string;
  rows: ResultRow[];
  /** Numbers the targets read, as `<scenario id>.<name>`. */
  metrics: Record<string, number>;
  /** A line printed under the scenario's title. */
  note?: string;
  /** Metrics that are not to be trusted because the run they come from failed (by name: why),
   * when the rest of the scenario stands (e.g. a peer proxy that answered wrongly). */
  metricFailures?: Record<string, string>;
  /** Set when any run of the scenario failed its checks: its metrics are not to be trusted. */
  failed?: string;
  skipped?: string;
  /** Raw per-round data for the JSON file. */
  details?: unknown;
}

export interface Scenario {
  id: string;
  title: string;
  run(ctx: ScenarioContext): Promise<ScenarioResult>;
}

/** Stops everything started so far, newest first, swallowing errors of already-dead processes. */
export async function stopAll(stoppers: (() => Promise<void>)[]): Promise<void> {
  for (const stop of stoppers.reverse()) {
    try {
      await stop();
    } catch {
      // already gone
    }
  }
}

/** One row per arm; the first arm is the baseline the others are compared with. */
export function armRows(arms: readonly ArmSummary[], cpuLabel: Readonly<Record<string, string>>): ResultRow[] {
  const base = arms[0]!;
  return arms.map((a, i) => armRow(a.name, a, i > 0 ? base : undefined, undefined, cpuLabel[a.name] ?? null));
}

/** One arm's row: × columns against `base` when given, the CPU per call of the process
 * labelled `cpu` (none for null), and the load generator's CPU share after `note`. */
export function armRow(label: string, s: ArmSummary, base?: ArmSummary, note?: string, cpu: string | null = 'gateway'): ResultRow {
  return {
    label,
    rps: s.rps,
    p50Ms: s.p50Ms,
    p99Ms: s.p99Ms,
    ...(base ? { rpsRatio: s.rps / base.rps, p99Ratio: s.p99Ms / base.p99Ms } : {}),
    ...(cpu !== null ? { cpuUsPerCall: s.cpuUsPerCall[cpu] ?? Number.NaN } : {}),
    note: [note, `client CPU ${(100 * s.loadgenCpuShare).toFixed(0)} %`].filter(Boolean).join('; '),
    ...(s.failed ? { failed: s.failed } : {}),
  };
}

/** `<arm>: <why>` for each arm that failed its checks, for the result's `failed`. */
export function armFailures(arms: readonly ArmSummary[]): string[] {
  return arms.filter((s) => s.failed).map((s) => `${s.name}: ${s.failed}`);
}
