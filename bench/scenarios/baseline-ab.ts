// Before and after a change, in one run (`--only baseline --baseline DIR`): this checkout's
// plain gateway and another checkout's (built; its bin/gatehouse.js), each in front of the
// same server-everything, legacy tools/call echo as in the legacy scenario, interleaved over
// at least MIN_ROUNDS rounds. Each round's CPU per call of this checkout is divided by the
// baseline's from the same round, the two measured seconds apart; the median of those ratios
// is the result. On a shared machine the arms' absolute CPU per call swings by tens of per
// cent from run to run, while the ratio of neighbouring rounds holds steadier. Without
// --baseline the scenario is skipped.
import { runInterleaved, runSimultaneous, type Arm, type ArmSummary } from '../harness/ab-rounds.ts';
import { LoadGenerator } from '../harness/load-generator.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { median } from '../harness/statistics.ts';
import { startEverything } from '../harness/upstream-processes.ts';
import { armRows, stopAll, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'baseline';
const UPSTREAM = 'everything';
const MIN_ROUNDS = 8;

export const baselineAb: Scenario = {
  id: ID,
  title: 'tools/call echo, legacy era: this checkout vs the --baseline checkout, plain gateways',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    if (!ctx.baseline) return { id: ID, title: this.title, rows: [], metrics: {}, skipped: 'no --baseline DIR given' };
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const everything = await startEverything(ctx.pinning);
      stoppers.push(everything.stop);
      const upstreams = [{ name: UPSTREAM, url: everything.url }];
      const current = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams });
      stoppers.push(current.stop);
      const before = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams, checkout: ctx.baseline.dir });
      stoppers.push(before.stop);
      const arm = async (name: string, gw: typeof current): Promise<Arm> => ({
        name,
        spec: { url: gw.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gw.url), tool: `${UPSTREAM}__echo` } },
        cpuPids: { gateway: gw.pid },
      });
      const arms = [await arm('gatehouse (this checkout)', current), await arm(`gatehouse at the baseline (${ctx.baseline.revision})`, before)];
      const plan = { ...ctx.plan, rounds: Math.max(ctx.plan.rounds, MIN_ROUNDS) };
      const [now, then] = await runInterleaved(ctx.gen, arms, plan, ctx.log);
      const second = LoadGenerator.start(ctx.pinning);
      stoppers.push(() => second.close());
      const [nowTogether, thenTogether] = await runSimultaneous([ctx.gen, second], arms, plan, ctx.log);
      const ratiosOf = (a: ArmSummary, b: ArmSummary): number[] => a.rounds.map((r, i) => (r.cpuUsPerCall.gateway ?? Number.NaN) / (b.rounds[i]!.cpuUsPerCall.gateway ?? Number.NaN));
      const ratios = ratiosOf(nowTogether!, thenTogether!);
      const interleaved = ratiosOf(now!, then!);
      const rows = armRows([now!, then!], { [now!.name]: 'gateway', [then!.name]: 'gateway' });
      rows.push({ label: 'CPU per call, this ÷ baseline, interleaved rounds', value: interleaved.map((r) => r.toFixed(2)).join(' '), note: `median ${median(interleaved).toFixed(2)} over ${interleaved.length} rounds` });
      rows.push(...armRows([nowTogether!, thenTogether!], { [nowTogether!.name]: 'gateway', [thenTogether!.name]: 'gateway' }).map((r) => ({ ...r, label: `${r.label} (side by side)` })));
      rows.push({ label: 'CPU per call, this ÷ baseline, side-by-side rounds', value: ratios.map((r) => r.toFixed(2)).join(' '), note: `median ${median(ratios).toFixed(2)} over ${ratios.length} rounds; baseline ${ctx.baseline.dir}` });
      const failures = [now!, then!, nowTogether!, thenTogether!].filter((s) => s.failed).map((s) => `${s.name}: ${s.failed}`);
      return {
        id: ID,
        title: this.title,
        rows,
        metrics: {
          plainVsBaselineCpu: median(ratios),
          interleavedVsBaselineCpu: median(interleaved),
          cpuUsPerCall: nowTogether!.cpuUsPerCall.gateway ?? Number.NaN,
          baselineCpuUsPerCall: thenTogether!.cpuUsPerCall.gateway ?? Number.NaN,
        },
        ...(failures.length ? { failed: failures.join('; ') } : {}),
        details: [now, then, nowTogether, thenTogether],
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
