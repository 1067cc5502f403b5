// Issue 17, target 5: overload is shed, not queued. Gatehouse (plain) in front of
// server-everything with limits.maxConcurrentRequests = CAP. Its capacity is measured first
// (closed loop, CAP connections: as much as it admits, as fast as it can). Then three arms,
// interleaved over the rounds, all on the load generator's one undici client:
// - closed loop at CAP connections: the latency of a request when the gateway is answering
//   CAP at once and nobody is refused — the concurrency the gateway admits under overload;
// - paced open-loop load at WITHIN_SHARE of capacity: the latency when it has room;
// - paced load at OVERLOAD × capacity, up to OFFERED_CONNECTIONS in flight: three times what
//   it can do. A 503 with Retry-After and -31030 is counted as shed, with its own latency;
//   every other reply is checked as usual.
// "The accepted requests keep their p99" is read against the first arm: with the excess shed,
// what the gateway admits is answered at CAP in flight, as in that arm, whereas a gateway that
// queued the excess would answer later and later for as long as the overload lasts. Against
// the half-capacity arm (fewer in flight, so less waiting behind the others on one core) the
// ratio is also shown, as a yardstick. "The rest are refused fast": a refusal's p99 against
// the half-capacity p99. A refusal also costs the gateway CPU on the core it shares with the
// upstream, so gateway CPU per accepted call and accepted throughput are shown for each arm.
import { runInterleaved, type ArmSummary } from '../harness/ab-rounds.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { runFailure } from '../harness/load-generator.ts';
import type { WireRequest } from '../harness/mcp-wire.ts';
import { median } from '../harness/statistics.ts';
import { startEverything } from '../harness/upstream-processes.ts';
import { stopAll, type ResultRow, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'overload';
const UPSTREAM = 'everything';
/** limits.maxConcurrentRequests of the gateway under test. */
const CAP = 8;
/** Paced load within capacity, as a share of it. */
const WITHIN_SHARE = 0.5;
const OVERLOAD = 3;
/** Requests the open-loop client keeps in flight at most: well above CAP, so the excess arrives. */
const OFFERED_CONNECTIONS = 96;
const CLOSED = `closed loop, ${CAP} connections`;
const WITHIN = `paced ${WITHIN_SHARE}× capacity`;
const OVER = `paced ${OVERLOAD}× capacity: accepted`;

function row(a: ArmSummary, note: string): ResultRow {
  return {
    label: a.name,
    rps: a.rps,
    p50Ms: a.p50Ms,
    p99Ms: a.p99Ms,
    cpuUsPerCall: a.cpuUsPerCall.gateway,
    note: `${note}; client CPU ${(100 * a.loadgenCpuShare).toFixed(0)} %`,
    ...(a.failed ? { failed: a.failed } : {}),
  };
}

export const overload: Scenario = {
  id: ID,
  title: `overload: limits.maxConcurrentRequests ${CAP}; closed loop at ${CAP}, paced load at ${WITHIN_SHARE}× and ${OVERLOAD}× capacity`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const everything = await startEverything(ctx.pinning);
      stoppers.push(everything.stop);
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, url: everything.url }], config: { limits: { maxConcurrentRequests: CAP } } });
      stoppers.push(gateway.stop);
      const request: WireRequest = { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gateway.url), tool: `${UPSTREAM}__echo` };
      const plan = { ...ctx.plan, roundSec: Math.max(ctx.plan.roundSec, 3) };
      const closed = { url: gateway.url, connections: CAP, request, closedLoop: true };
      await ctx.gen.run({ ...closed, durationSec: plan.warmupSec });
      const capacity = await ctx.gen.run({ ...closed, durationSec: plan.roundSec });
      ctx.log(`  capacity ${capacity.rps.toFixed(0)} req/s at ${CAP} in flight`);
      const paced = (share: number) => ({ url: gateway.url, connections: OFFERED_CONNECTIONS, request, pacedRate: capacity.rps * share, shed: true });
      const cpuPids = { gateway: gateway.pid };
      const [atCap, within, over] = await runInterleaved(
        ctx.gen,
        [
          { name: CLOSED, spec: closed, cpuPids },
          { name: WITHIN, spec: paced(WITHIN_SHARE), cpuPids },
          { name: OVER, spec: paced(OVERLOAD), cpuPids },
        ],
        plan,
        ctx.log,
      );
      const overRounds = over!.rounds.map((r) => r.load);
      const refused = overRounds.reduce((n, r) => n + (r.refused ?? 0), 0);
      const accepted = overRounds.reduce((n, r) => n + r.completed, 0);
      const offered = accepted + refused;
      const overSec = overRounds.reduce((t, r) => t + r.elapsedSec, 0);
      const refusedP50 = median(overRounds.map((r) => r.refusedLatencyMs?.p50 ?? Number.NaN));
      const refusedP99 = median(overRounds.map((r) => r.refusedLatencyMs?.p99 ?? Number.NaN));
      const shedAtHalf = within!.rounds.reduce((n, r) => n + (r.load.refused ?? 0), 0);
      const failed = runFailure(capacity) ?? atCap!.failed ?? within!.failed ?? over!.failed;
      return {
        id: ID,
        title: this.title,
        note: "Paced loads are open loop (latency from each request's due time); closed loop: from sending. Shed = 503 + Retry-After + -31030; every other reply is checked as usual. Gateway CPU per accepted call includes what the refusals cost.",
        rows: [
          { label: `capacity (closed loop, ${CAP} connections, before the rounds)`, rps: capacity.rps, p50Ms: capacity.latencyMs.p50, p99Ms: capacity.latencyMs.p99 },
          row(atCap!, 'the accepted concurrency under overload'),
          row(within!, `${shedAtHalf} shed`),
          row(over!, `${offered} offered (${(offered / overSec / atCap!.rps).toFixed(1)}× the closed loop's throughput), ${accepted} accepted`),
          {
            label: `paced ${OVERLOAD}× capacity: shed`,
            rps: refused / overSec,
            p50Ms: refusedP50,
            p99Ms: refusedP99,
            note: `${((100 * refused) / Math.max(1, offered)).toFixed(0)} % of offered`,
          },
        ],
        metrics: {
          capacityRps: capacity.rps,
          acceptedP99Ratio: over!.p99Ms / atCap!.p99Ms,
          acceptedP99VsHalf: over!.p99Ms / within!.p99Ms,
          refusedP99Ratio: refusedP99 / within!.p99Ms,
          goodputRatio: over!.rps / atCap!.rps,
          shedShare: refused / Math.max(1, offered),
          // The overload as offered: the paced rate is fixed from the capacity run, and the machine drifts.
          offeredRatio: offered / overSec / atCap!.rps,
        },
        ...(failed ? { failed } : {}),
        details: { capacity, arms: [atCap, within, over] },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
