// Scenario 5 (second half): does Gatehouse's memory grow under steady load? The gateway
// fronts server-everything (Streamable HTTP) configured as deployed — API key, 10-rule
// policy, audit and metrics when the config has them — and a legacy client calls echo.
// First its capacity is measured (warm-up, then one full-speed run), then it is driven at
// half of that (autocannon `overallRate`) for `--soak-seconds` while VmRSS is sampled every
// 5 s. Growth = mean of the last third of the samples minus mean of the first third; it is
// noise when at most 10 % and at most 20 MB, anything more is a possible leak. V8's RSS is a
// sawtooth (it climbs until a major GC, then drops), so the floor (minimum) of each third is
// reported too: a rising floor is the surer sign, and a soak needs several GC cycles per
// third (minutes, not seconds) for either to mean much. Every reply is checked.
import { join } from 'node:path';
import { writeSmallPolicy } from '../harness/bench-policies.ts';
import { API_KEY_HEADERS, describeObservability, identityConfig, observabilityOn, policyConfig } from '../harness/gateway-features.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { runFailure, type LoadResult } from '../harness/load-generator.ts';
import type { WireRequest } from '../harness/mcp-wire.ts';
import { memoryStats } from '../harness/proc-stats.ts';
import { startEverything } from '../harness/upstream-processes.ts';
import { stopAll, type ResultRow, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'soak';
const SAMPLE_MS = 5000;
/** Growth within both bounds is noise (GC heap sizing, allocator caches). */
export const NOISE_PCT = 10;
export const NOISE_MB = 20;

interface Sample {
  atSec: number;
  rssMb: number;
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const mb = (v: number): string => `${v.toFixed(1)} MB`;

/** Runs `load` while sampling the process's RSS every `everyMs` (and once at each end). */
async function sampled(pid: number, everyMs: number, load: () => Promise<LoadResult>): Promise<{ load: LoadResult; samples: Sample[] }> {
  const started = performance.now();
  const samples: Sample[] = [];
  const take = (): void => void samples.push({ atSec: (performance.now() - started) / 1000, rssMb: memoryStats(pid).rssMb });
  take();
  const timer = setInterval(take, everyMs);
  try {
    const result = await load();
    take();
    return { load: result, samples };
  } finally {
    clearInterval(timer);
  }
}

function loadRow(label: string, r: LoadResult, note: string): ResultRow {
  const why = runFailure(r);
  return { label, rps: r.rps, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99, note, ...(why ? { failed: why } : {}) };
}

export const soak: Scenario = {
  id: ID,
  title: 'gateway RSS before/after a soak at half capacity (legacy tools/call, API key + policy (+ audit/metrics when available))',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const everything = await startEverything(ctx.pinning);
      stoppers.push(everything.stop);
      const observability = observabilityOn(join(ctx.tmpDir, 'audit-soak'));
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, {
        upstreams: [{ name: 'everything', url: everything.url }],
        config: { ...identityConfig(), ...policyConfig(writeSmallPolicy(join(ctx.tmpDir, 'policy-soak')).dir), ...observability.config },
      });
      stoppers.push(gateway.stop);
      const sessionId = await openLegacySession(gateway.url, undefined, API_KEY_HEADERS);
      const request: WireRequest = { kind: 'tools/call', era: 'legacy', sessionId, tool: 'everything__echo', headers: API_KEY_HEADERS };
      const spec = { url: gateway.url, connections: ctx.connections, request };

      const warm = await ctx.gen.run({ ...spec, durationSec: ctx.plan.warmupSec });
      const capacity = await ctx.gen.run({ ...spec, durationSec: ctx.plan.roundSec });
      const early = runFailure(warm) ?? runFailure(capacity);
      if (early) {
        return { id: ID, title: this.title, rows: [loadRow('capacity (full speed)', capacity, '')], metrics: {}, failed: `capacity run: ${early}` };
      }
      const rate = Math.max(1, Math.round(capacity.rps / 2));
      ctx.log(`  capacity ${capacity.rps.toFixed(0)} req/s; soaking at ${rate} req/s for ${ctx.soakSec} s`);
      const everyMs = Math.min(SAMPLE_MS, (ctx.soakSec * 1000) / 6);
      const { load, samples } = await sampled(gateway.pid, everyMs, () => ctx.gen.run({ ...spec, durationSec: ctx.soakSec, overallRate: rate }));
      const peak = memoryStats(gateway.pid).hwmMb;

      const third = Math.max(1, Math.floor(samples.length / 3));
      const firstThird = samples.slice(0, third).map((s) => s.rssMb);
      const lastThird = samples.slice(-third).map((s) => s.rssMb);
      const first = mean(firstThird);
      const last = mean(lastThird);
      const growthMb = last - first;
      const growthPct = (100 * growthMb) / first;
      const noise = growthPct <= NOISE_PCT && growthMb <= NOISE_MB;
      const failed = runFailure(load);
      const sustained = load.rps >= 0.9 * rate ? '' : `; could not sustain ${rate} req/s`;
      const verdict = failed ? 'FAILED (bad replies during the soak)' : noise ? 'no growth beyond noise' : 'GROWTH beyond noise: possible leak';
      return {
        id: ID,
        title: this.title,
        note: `${ctx.soakSec} s soak (the issue's 5 minutes: npm run bench -- --only soak --soak-seconds 300); noise = growth ≤ ${NOISE_PCT} % and ≤ ${NOISE_MB} MB; ${await describeObservability(observability, gateway.port)}`,
        rows: [
          loadRow('capacity (full speed)', capacity, `${ctx.connections} connections, ${ctx.plan.roundSec} s after a ${ctx.plan.warmupSec} s warm-up`),
          loadRow('soak at half capacity', load, `target ${rate} req/s for ${ctx.soakSec} s, ${load.completed} replies checked${sustained}`),
          { label: 'RSS at soak start / end', value: `${mb(samples[0]!.rssMb)} / ${mb(samples[samples.length - 1]!.rssMb)}`, note: `${samples.length} samples, every ${(everyMs / 1000).toFixed(1)} s; peak ${mb(peak)}` },
          { label: 'RSS first third / last third (mean)', value: `${mb(first)} / ${mb(last)}`, note: `${third} samples each` },
          { label: 'RSS first third / last third (floor)', value: `${mb(Math.min(...firstThird))} / ${mb(Math.min(...lastThird))}`, note: 'minimum: the level after a major GC, if one fell in the third' },
          { label: 'RSS growth', value: `${growthMb >= 0 ? '+' : ''}${growthMb.toFixed(1)} MB (${growthPct >= 0 ? '+' : ''}${growthPct.toFixed(1)} %)`, note: verdict },
        ],
        metrics: {
          capacityRps: capacity.rps,
          soakRps: load.rps,
          soakSec: ctx.soakSec,
          rssStartMb: samples[0]!.rssMb,
          rssEndMb: samples[samples.length - 1]!.rssMb,
          rssFirstThirdMb: first,
          rssLastThirdMb: last,
          rssFloorGrowthMb: Math.min(...lastThird) - Math.min(...firstThird),
          rssGrowthMb: growthMb,
          rssGrowthPct: growthPct,
          peakRssMb: peak,
        },
        ...(failed ? { failed: `soak: ${failed}` } : {}),
        details: { rate, samples, capacity, load },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
