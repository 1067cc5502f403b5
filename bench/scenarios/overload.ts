// Issue 17, target 5: overload is shed, not queued. Gatehouse (plain) in front of
// server-everything with limits.maxConcurrentRequests = CAP. Its capacity is measured first
// (closed loop, CAP connections: as much as it admits, as fast as it can); then paced open-loop
// load at a share of that capacity gives the latency of a request when the gateway has room,
// and paced load at OVERLOAD × capacity, with up to OFFERED_CONNECTIONS requests in flight,
// offers three times what it can do. The requests it accepts should keep their p99 and the
// rest be refused fast (503, Retry-After, -31030: counted as shed by the load generator, every
// other reply still checked). A refusal also costs the gateway CPU, on the core it shares with
// the upstream, so the accepted throughput under overload is reported against capacity too.
import { runFailure, type LoadResult } from '../harness/load-generator.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { startEverything } from '../harness/upstream-processes.ts';
import { stopAll, type Scenario, type ScenarioContext, type ScenarioResult, type ResultRow } from './scenario.ts';
import type { WireRequest } from '../harness/mcp-wire.ts';

const ID = 'overload';
const UPSTREAM = 'everything';
/** limits.maxConcurrentRequests of the gateway under test. */
const CAP = 8;
/** Paced load within capacity, as a share of it: the p99 the accepted requests should keep. */
const WITHIN_SHARE = 0.5;
const OVERLOAD = 3;
/** Requests the open-loop client keeps in flight at most: well above CAP, so the excess arrives. */
const OFFERED_CONNECTIONS = 96;

function row(label: string, r: LoadResult, note?: string): ResultRow {
  const failed = runFailure(r);
  return { label, rps: r.rps, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99, ...(failed ? { failed } : {}), ...(note ? { note } : {}) };
}

export const overload: Scenario = {
  id: ID,
  title: `overload: limits.maxConcurrentRequests ${CAP}, paced load at ${WITHIN_SHARE}× and ${OVERLOAD}× capacity`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const everything = await startEverything(ctx.pinning);
      stoppers.push(everything.stop);
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, url: everything.url }], config: { limits: { maxConcurrentRequests: CAP } } });
      stoppers.push(gateway.stop);
      const request: WireRequest = { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gateway.url), tool: `${UPSTREAM}__echo` };
      const seconds = Math.max(ctx.plan.roundSec, 3);
      await ctx.gen.run({ url: gateway.url, connections: CAP, durationSec: ctx.plan.warmupSec, request });
      const capacity = await ctx.gen.run({ url: gateway.url, connections: CAP, durationSec: seconds, request });
      ctx.log(`  capacity ${capacity.rps.toFixed(0)} req/s at ${CAP} in flight`);
      const within = await ctx.gen.run({ url: gateway.url, connections: OFFERED_CONNECTIONS, durationSec: seconds, request, pacedRate: capacity.rps * WITHIN_SHARE, shed: true });
      const over = await ctx.gen.run({ url: gateway.url, connections: OFFERED_CONNECTIONS, durationSec: seconds, request, pacedRate: capacity.rps * OVERLOAD, shed: true });
      const refused = over.refused ?? 0;
      const offered = over.completed + refused;
      ctx.log(`  at ${OVERLOAD}×: ${over.rps.toFixed(0)} accepted/s (p99 ${over.latencyMs.p99.toFixed(2)} ms), ${refused} shed (p99 ${over.refusedLatencyMs?.p99.toFixed(2)} ms)`);
      const failed = runFailure(capacity) ?? runFailure(within) ?? (over.failures + over.errors > 0 ? runFailure(over) : undefined);
      return {
        id: ID,
        title: this.title,
        note: 'Paced loads are open loop (latency from each request\'s due time). Shed = 503 + Retry-After + -31030; every other reply is checked as usual.',
        rows: [
          row(`capacity (closed loop, ${CAP} connections)`, capacity),
          row(`paced ${WITHIN_SHARE}× capacity`, within, `${within.refused ?? 0} shed`),
          row(`paced ${OVERLOAD}× capacity: accepted`, over, `${offered} offered, ${over.completed} accepted`),
          {
            label: `paced ${OVERLOAD}× capacity: shed`,
            rps: refused / over.elapsedSec,
            ...(over.refusedLatencyMs ? { p50Ms: over.refusedLatencyMs.p50, p99Ms: over.refusedLatencyMs.p99 } : {}),
            note: `${((100 * refused) / Math.max(1, offered)).toFixed(0)} % of offered`,
          },
        ],
        metrics: {
          capacityRps: capacity.rps,
          acceptedP99Ratio: over.latencyMs.p99 / within.latencyMs.p99,
          refusedP99Ratio: (over.refusedLatencyMs?.p99 ?? Number.NaN) / within.latencyMs.p99,
          goodputRatio: over.rps / capacity.rps,
          shedShare: refused / Math.max(1, offered),
        },
        ...(failed ? { failed } : {}),
        details: { capacity, within, over },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
