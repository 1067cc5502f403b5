// Issue 17, target 5: overload is shed, not queued. Gatehouse (plain) in front of
// server-everything with limits.maxConcurrentRequests = CAP. Each round, on the load
// generator's one undici client:
// - closed loop at CAP connections: its throughput now, and the latency of a request while the
//   gateway answers CAP at once and refuses nobody: the concurrency it admits under overload;
// - paced open-loop load at WITHIN_SHARE of that throughput: the latency when it has room;
// - paced load at OVERLOAD × that throughput, up to OFFERED_CONNECTIONS in flight. A 503 with
//   Retry-After and -31030 is counted as shed, with its own latency; every other reply is
//   checked as usual.
// "The accepted requests keep their p99" is read against the closed loop: with the excess
// shed, what the gateway admits is answered CAP at a time, as there, whereas a gateway that
// queued the excess would answer later and later for as long as the overload lasted. Both are
// timed from sending (a paced request is also timed from when it was due, which charges the
// client's own stalls to it; a closed loop has no due time). Against the half-capacity arm
// (fewer in flight, so less waiting behind the others on one core) the ratio is shown as a
// yardstick. "The rest are refused fast": a refusal's p99 against the half-capacity p99, both
// from due time. A refusal also costs the gateway CPU on the core it shares with the upstream,
// so gateway CPU per accepted call and accepted throughput are shown for each arm.
//
// Yardstick for "refused fast" (bare-refusal.ts): each round, a bare node:http server that
// answers every request with a 503 and nothing else, on the same CPU as server-everything,
// paced at the rate the gateway refused in that round's 3× arm, while a second load generator
// keeps server-everything answering a closed loop of CAP, as the admitted calls keep it busy
// under overload. Its refusal p99 against the same half-capacity p99 is what the layout allows
// any Node.js server that shares its core with a busy upstream.
import { startBareRefusal } from '../harness/bare-refusal.ts';
import { SERVER_CPU } from '../harness/child-processes.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { LoadGenerator, runFailure, type LoadResult, type LoadSpec } from '../harness/load-generator.ts';
import type { WireRequest } from '../harness/mcp-wire.ts';
import { cpuMicros } from '../harness/proc-stats.ts';
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
/** Seconds of the yardstick per round: its p99 over thousands of refusals, in a scenario the full run must keep short. */
const BARE_SEC = 2;

interface Measured {
  load: LoadResult;
  /** Gateway CPU per accepted request, µs. */
  gatewayUs: number;
  /** Share of one core the load generator used. */
  clientShare: number;
  /** Share of one core the gateway used: far below 1 while it is overloaded, it is being
   * starved of its core (by the upstream pinned beside it, or other tenants of the machine). */
  gatewayShare: number;
}

async function measure(gen: LoadGenerator, gatewayPid: number, spec: LoadSpec): Promise<Measured> {
  const gw = cpuMicros(gatewayPid);
  const client = gen.pid === undefined ? Number.NaN : cpuMicros(gen.pid);
  const load = await gen.run(spec);
  const gatewayCpu = cpuMicros(gatewayPid) - gw;
  return {
    load,
    gatewayUs: gatewayCpu / Math.max(1, load.completed),
    gatewayShare: gatewayCpu / (load.elapsedSec * 1e6),
    clientShare: gen.pid === undefined ? Number.NaN : (cpuMicros(gen.pid) - client) / (load.elapsedSec * 1e6),
  };
}

const med = (rounds: readonly Measured[], f: (m: Measured) => number | undefined): number => median(rounds.map((m) => f(m) ?? Number.NaN));

function row(label: string, rounds: readonly Measured[], note: string): ResultRow {
  const failed = rounds.map((m) => runFailure(m.load)).find((f) => f !== undefined);
  return {
    label,
    rps: med(rounds, (m) => m.load.rps),
    p50Ms: med(rounds, (m) => m.load.latencyMs.p50),
    p99Ms: med(rounds, (m) => m.load.latencyMs.p99),
    cpuUsPerCall: med(rounds, (m) => m.gatewayUs),
    note: `${note}gateway CPU ${(100 * med(rounds, (m) => m.gatewayShare)).toFixed(0)} %, client CPU ${(100 * med(rounds, (m) => m.clientShare)).toFixed(0)} % of a core`,
    ...(failed ? { failed } : {}),
  };
}

export const overload: Scenario = {
  id: ID,
  title: `overload: limits.maxConcurrentRequests ${CAP}; closed loop at ${CAP}, paced load at ${WITHIN_SHARE}× and ${OVERLOAD}× that throughput`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const everything = await startEverything(ctx.pinning);
      stoppers.push(everything.stop);
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, url: everything.url }], config: { limits: { maxConcurrentRequests: CAP } } });
      stoppers.push(gateway.stop);
      const request: WireRequest = { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gateway.url), tool: `${UPSTREAM}__echo` };
      const seconds = Math.max(ctx.plan.roundSec, 3);
      const closed = (durationSec: number): LoadSpec => ({ url: gateway.url, connections: CAP, durationSec, request, closedLoop: true });
      const paced = (rate: number, durationSec: number): LoadSpec => ({ url: gateway.url, connections: OFFERED_CONNECTIONS, durationSec, request, pacedRate: rate, shed: true });
      const run = (spec: LoadSpec): Promise<Measured> => measure(ctx.gen, gateway.pid, spec);
      // The yardstick's two parts: the bare refusal server beside the upstream, and a second
      // client for the upstream's own closed loop (the first one paces the refusals).
      const bare = await startBareRefusal(ctx.pinning, SERVER_CPU);
      stoppers.push(bare.stop);
      const busyGen = LoadGenerator.start(ctx.pinning);
      stoppers.push(() => busyGen.close());
      const busy: LoadSpec = { url: everything.url, connections: CAP, durationSec: BARE_SEC, request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(everything.url), tool: 'echo' }, closedLoop: true };
      /** Bare refusals paced at `rate` for `durationSec` while the upstream answers its closed loop. */
      const bareRun = async (rate: number, durationSec: number): Promise<{ refusals: LoadResult; upstream: LoadResult; upstreamShare: number }> => {
        const before = cpuMicros(everything.pid);
        const started = performance.now();
        const [refusals, upstream] = await Promise.all([
          ctx.gen.run({ url: bare.url, connections: OFFERED_CONNECTIONS, durationSec, request, pacedRate: rate, shed: true }),
          // A little longer than the refusals, so that the upstream is busy until their end.
          busyGen.run({ ...busy, durationSec: durationSec + 0.5 }),
        ]);
        return { refusals, upstream, upstreamShare: (cpuMicros(everything.pid) - before) / ((performance.now() - started) * 1000) };
      };
      // Warm-up: both kinds of load once (refusals are a path of their own for the JIT).
      const warm = await run(closed(ctx.plan.warmupSec));
      await run(paced(warm.load.rps * OVERLOAD, ctx.plan.warmupSec));
      await bareRun(warm.load.rps * OVERLOAD, 1);
      const atCap: Measured[] = [];
      const within: Measured[] = [];
      const over: Measured[] = [];
      const bareRounds: Awaited<ReturnType<typeof bareRun>>[] = [];
      for (let r = 1; r <= ctx.plan.rounds; r++) {
        // Each round's paced rates are shares of the throughput measured just before them: the
        // machine drifts, and 3× an old figure may be 1.5× the present one.
        const c = await run(closed(seconds));
        const w = await run(paced(c.load.rps * WITHIN_SHARE, seconds));
        const o = await run(paced(c.load.rps * OVERLOAD, seconds));
        // The yardstick at the rate this round's gateway refused.
        const b = await bareRun(Math.max(1, (o.load.refused ?? 0) / o.load.elapsedSec), BARE_SEC);
        atCap.push(c);
        within.push(w);
        over.push(o);
        bareRounds.push(b);
        const ms = (v: number | undefined): string => `${(v ?? Number.NaN).toFixed(1)} ms`;
        ctx.log(
          `  round ${r}/${ctx.plan.rounds}: closed ${c.load.rps.toFixed(0)}/s p99 ${ms(c.load.latencyMs.p99)}; ${WITHIN_SHARE}× p99 ${ms(w.load.latencyMs.p99)}; ` +
            `${OVERLOAD}× ${o.load.rps.toFixed(0)} accepted/s p99 ${ms(o.load.latencyMs.p99)} (from sending ${ms(o.load.sentLatencyMs?.p99)}), ${o.load.refused ?? 0} shed p99 ${ms(o.load.refusedLatencyMs?.p99)}; gateway CPU ${(100 * o.gatewayShare).toFixed(0)} % of a core; ` +
            `bare 503 beside the busy upstream: ${b.refusals.refused ?? 0} p99 ${ms(b.refusals.refusedLatencyMs?.p99)}`,
        );
      }
      const overLoads = over.map((m) => m.load);
      const refused = overLoads.reduce((n, l) => n + (l.refused ?? 0), 0);
      const accepted = overLoads.reduce((n, l) => n + l.completed, 0);
      const offered = accepted + refused;
      const overSec = overLoads.reduce((t, l) => t + l.elapsedSec, 0);
      const shedAtHalf = within.reduce((n, m) => n + (m.load.refused ?? 0), 0);
      // Targets read each round's pair (measured a few seconds apart), then the median over rounds.
      const paired = (f: (i: number) => number): number => median(over.map((_, i) => f(i)));
      const acceptedP99Ratio = paired((i) => (over[i]!.load.sentLatencyMs?.p99 ?? Number.NaN) / atCap[i]!.load.latencyMs.p99);
      const refusedP99Ratio = paired((i) => (over[i]!.load.refusedLatencyMs?.p99 ?? Number.NaN) / within[i]!.load.latencyMs.p99);
      const bareP99Ratio = paired((i) => (bareRounds[i]!.refusals.refusedLatencyMs?.p99 ?? Number.NaN) / within[i]!.load.latencyMs.p99);
      const bareRefused = bareRounds.reduce((n, b) => n + (b.refusals.refused ?? 0), 0);
      const bareSec = bareRounds.reduce((t, b) => t + b.refusals.elapsedSec, 0);
      const acceptedP99VsHalf = paired((i) => over[i]!.load.latencyMs.p99 / within[i]!.load.latencyMs.p99);
      const offeredRatio = paired((i) => ((over[i]!.load.completed + (over[i]!.load.refused ?? 0)) / over[i]!.load.elapsedSec) / atCap[i]!.load.rps);
      const failed = [...[...atCap, ...within, ...over].map((m) => runFailure(m.load)), ...bareRounds.map((b) => bareFailure(b.refusals, b.upstream))].find((f) => f !== undefined);
      const ms = (f: (m: Measured) => number | undefined): number => med(over, f);
      return {
        id: ID,
        title: this.title,
        note:
          "Each round: the closed loop, then paced open loop at shares of the throughput it just measured. Paced latency is from each request's due time (a client stall counts), " +
          "closed-loop latency from sending; 'from sending' rows time the same replies from when the client actually sent them. Shed = 503 + Retry-After + -31030; every other reply is checked. " +
          'Gateway CPU per accepted call includes what the refusals cost.',
        rows: [
          row(`closed loop, ${CAP} connections (the concurrency admitted under overload)`, atCap, ''),
          row(`paced ${WITHIN_SHARE}×`, within, `${shedAtHalf} shed; `),
          row(`paced ${OVERLOAD}×: accepted`, over, `${offered} offered (${offeredRatio.toFixed(1)}× the closed loop's throughput), ${accepted} accepted; `),
          { label: `paced ${OVERLOAD}×: accepted, from sending`, p50Ms: ms((m) => m.load.sentLatencyMs?.p50), p99Ms: ms((m) => m.load.sentLatencyMs?.p99), note: `client's send lag p99 ${ms((m) => m.load.sendLagMs?.p99).toFixed(1)} ms` },
          {
            label: `paced ${OVERLOAD}×: shed`,
            rps: refused / overSec,
            p50Ms: ms((m) => m.load.refusedLatencyMs?.p50),
            p99Ms: ms((m) => m.load.refusedLatencyMs?.p99),
            note: `${((100 * refused) / Math.max(1, offered)).toFixed(0)} % of offered`,
          },
          {
            label: 'yardstick: bare node:http 503 beside the busy upstream',
            rps: bareRefused / bareSec,
            p50Ms: median(bareRounds.map((b) => b.refusals.refusedLatencyMs?.p50 ?? Number.NaN)),
            p99Ms: median(bareRounds.map((b) => b.refusals.refusedLatencyMs?.p99 ?? Number.NaN)),
            note:
              `paced at the rate each round's ${OVERLOAD}× arm refused, on the upstream's CPU, while server-everything answered a closed loop of ${CAP} ` +
              `(${median(bareRounds.map((b) => b.upstream.rps)).toFixed(0)}/s, ${(100 * median(bareRounds.map((b) => b.upstreamShare))).toFixed(0)} % of a core); client's send lag p99 ` +
              `${median(bareRounds.map((b) => b.refusals.sendLagMs?.p99 ?? Number.NaN)).toFixed(1)} ms`,
          },
        ],
        metrics: {
          capacityRps: med(atCap, (m) => m.load.rps),
          acceptedP99Ratio,
          acceptedP99VsHalf,
          refusedP99Ratio,
          bareRefusalP99Ratio: bareP99Ratio,
          goodputRatio: paired((i) => over[i]!.load.rps / atCap[i]!.load.rps),
          shedShare: refused / Math.max(1, offered),
          offeredRatio,
        },
        ...(failed ? { failed } : {}),
        details: { rounds: atCap.map((c, i) => ({ closed: c, within: within[i], over: over[i], bare: bareRounds[i] })) },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};

/** The yardstick counts only when every reply was the bare server's 503 and the upstream's
 * closed loop was answered correctly throughout. */
function bareFailure(refusals: LoadResult, upstream: LoadResult): string | undefined {
  if (refusals.completed > 0 || refusals.errors > 0 || refusals.timeouts > 0 || (refusals.refused ?? 0) === 0) {
    return `bare refusal server: ${refusals.completed} replies that were not its 503, ${refusals.errors} errors, ${refusals.timeouts} timeouts, ${refusals.refused ?? 0} refusals`;
  }
  const busy = runFailure(upstream);
  return busy === undefined ? undefined : `server-everything beside the bare refusal server: ${busy}`;
}
