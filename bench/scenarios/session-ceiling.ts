// Issue 17, target 4: the session and stream ceiling (a long ramp: `--long`, or `--only ceiling`).
// One Gatehouse (plain) in front of a modern fixture upstream (in this process, so that a
// tools list change can be triggered). Calls at a steady paced rate give the idle p99; then
// the ramp, bounded in count and in time, 127.0.0.1 only: 20,000 legacy sessions, 5,000 of
// them holding a GET stream, 5,000 modern subscriptions/listen streams; the same calls again
// on top (their p99 against the idle one); RSS after each step (per 1,000 sessions and per
// 1,000 streams); then one tools list change upstream, timed until every one of the 10,000
// streams has received its notifications/tools/list_changed. The benchmark raises its own
// file-descriptor limit first (the gateway inherits it) and the gateway's stream, session and
// connection caps above the ramp; the report says what they were. With --quick the counts are
// a tenth. For comparison: a peer gateway is reported to crash at about 3,600-4,000 sessions.
import { startModernUpstream } from '../../test/fixtures/modern-upstream.ts';
import { raiseFdLimit } from '../harness/fd-limit.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { runFailure } from '../harness/load-generator.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { LEGACY_VERSION, MODERN_VERSION, modernMeta } from '../harness/mcp-wire.ts';
import { cpuMicros, memoryStats } from '../harness/proc-stats.ts';
import { median, percentile } from '../harness/statistics.ts';
import { stopAll, type ResultRow, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'ceiling';
const FULL = { sessions: 20_000, getStreams: 5_000, listenStreams: 5_000 };
/** Caps of the gateway under test, above the ramp (defaults: 50,000 / 10,000 / 10,000 / 1,000 / 20,000). */
const LIMITS = { maxSessions: 25_000, maxSessionsPerPrincipal: 25_000, maxStreams: 12_000, maxStreamsPerPrincipal: 12_000, maxConnections: 30_000 };
const FD_WANTED = 65_536;
const OPEN_CONCURRENCY = 32;
/** Longest any one step of the ramp may take before the scenario gives up (bounded in time). */
const STEP_DEADLINE_MS = 300_000;
const CALL_RATE = 100;
/** Paced runs idle and again on top of the ramp: the spread of the idle ones shows how much
 * of a p99 is the shared machine. */
const CALL_RUNS = 3;
const LIST_CHANGED = 'notifications/tools/list_changed';
const UPSTREAM = 'up';

/** Runs `open(i)` for i < n, OPEN_CONCURRENCY at a time, within the step deadline. */
async function ramp<T>(n: number, what: string, open: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  const deadline = performance.now() + STEP_DEADLINE_MS;
  let next = 0;
  await Promise.all(
    Array.from({ length: OPEN_CONCURRENCY }, async () => {
      while (next < n) {
        if (performance.now() > deadline) throw new Error(`${what}: ${next} of ${n} opened within ${STEP_DEADLINE_MS / 1000} s`);
        const i = next++;
        out[i] = await open(i);
      }
    }),
  );
  return out;
}

/** An open SSE response, read in the background; `seen` resolves when list_changed arrives
 * (wrapped: a promise resolved with a promise would wait for the inner one). Each stream has
 * its own abort signal: fetch adds a listener to the one it is given, and one signal shared by
 * 10,000 fetches warns of a listener leak on every one past 1,500. */
async function holdStream(url: string, init: RequestInit, aborts: AbortController[]): Promise<{ seen: Promise<number> }> {
  const abort = new AbortController();
  aborts.push(abort);
  const res = await fetch(url, { ...init, signal: abort.signal });
  if (res.status !== 200 || !res.body) throw new Error(`stream: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  const body = res.body;
  const seen = new Promise<number>((resolve, reject) => {
    void (async () => {
      const decoder = new TextDecoder();
      let carry = '';
      try {
        for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
          carry = (carry + decoder.decode(chunk, { stream: true })).slice(-4096);
          if (carry.includes(LIST_CHANGED)) resolve(performance.now());
        }
        reject(new Error('stream ended before list_changed'));
      } catch (e) {
        reject(e as Error);
      }
    })();
  });
  seen.catch(() => undefined);
  return { seen };
}

type CallRun = Awaited<ReturnType<ScenarioContext['gen']['run']>> & { cpuUs: number };

interface CallRuns {
  rps: number;
  p50: number;
  p99: number;
  /** Gateway CPU per call. */
  cpuUs: number;
  /** Each run's p99, in order. */
  spread: string;
  failed: string | undefined;
}

/** Medians over the runs; the first failure, if any. */
function summarize(runs: readonly CallRun[]): CallRuns {
  const m = (f: (r: CallRun) => number): number => median(runs.map(f));
  return {
    rps: m((r) => r.rps),
    p50: m((r) => r.latencyMs.p50),
    p99: m((r) => r.latencyMs.p99),
    cpuUs: m((r) => r.cpuUs),
    spread: runs.map((r) => r.latencyMs.p99.toFixed(0)).join(', '),
    failed: runs.map(runFailure).find((f) => f !== undefined),
  };
}

export const sessionCeiling: Scenario = {
  id: ID,
  title: `session and stream ceiling: ${FULL.sessions} legacy sessions, ${FULL.getStreams} GET + ${FULL.listenStreams} listen streams, calls on top`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const counts = ctx.plan.rounds <= 1 ? { sessions: FULL.sessions / 10, getStreams: FULL.getStreams / 10, listenStreams: FULL.listenStreams / 10 } : FULL;
    const fd = raiseFdLimit(FD_WANTED);
    const fdNote = `fd limit ${fd.before ? `${fd.before.soft}/${fd.before.hard}` : 'unknown'} -> ${fd.after ? `${fd.after.soft}/${fd.after.hard}` : 'unknown'} (soft/hard)`;
    ctx.log(`  ${fdNote}`);
    const stoppers: (() => Promise<void>)[] = [];
    const streams: AbortController[] = [];
    try {
      const upstream = await startModernUpstream({ name: UPSTREAM });
      stoppers.push(() => upstream.close());
      const sweep = setInterval(() => void (upstream.received.length = 0), 1000);
      stoppers.push(async () => clearInterval(sweep));
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, url: upstream.url }], config: { limits: LIMITS } });
      stoppers.push(gateway.stop);
      const rss = (): number => memoryStats(gateway.pid).rssMb;
      const calls = async (): Promise<CallRuns> => {
        const runs: CallRun[] = [];
        for (let i = 0; i < CALL_RUNS; i++) {
          const cpu = cpuMicros(gateway.pid);
          const r = await ctx.gen.run({ url: gateway.url, connections: 16, durationSec: Math.max(3, ctx.plan.roundSec * 2), request: { kind: 'tools/call', era: 'modern', tool: `${UPSTREAM}__echo` }, pacedRate: CALL_RATE });
          runs.push({ ...r, cpuUs: (cpuMicros(gateway.pid) - cpu) / Math.max(1, r.completed) });
        }
        return summarize(runs);
      };
      await ctx.gen.run({ url: gateway.url, connections: 16, durationSec: Math.max(3, ctx.plan.roundSec * 2), request: { kind: 'tools/call', era: 'modern', tool: `${UPSTREAM}__echo` }, pacedRate: CALL_RATE });
      const idle = await calls();
      const idleRss = rss();
      ctx.log(`  idle: p99 ${idle.p99.toFixed(2)} ms (runs ${idle.spread}), RSS ${idleRss.toFixed(0)} MB`);

      const started = performance.now();
      const sessions = await ramp(counts.sessions, 'sessions', (i) => openLegacySession(gateway.url, `ceiling-${i}`));
      const sessionsRss = rss();
      ctx.log(`  ${counts.sessions} sessions in ${((performance.now() - started) / 1000).toFixed(0)} s: RSS ${sessionsRss.toFixed(0)} MB`);
      const seen: Promise<number>[] = [];
      const getHeaders = (sid: string): Record<string, string> => ({ accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY_VERSION });
      await ramp(counts.getStreams, 'GET streams', async (i) => {
        seen.push((await holdStream(gateway.url, { method: 'GET', headers: getHeaders(sessions[i]!) }, streams)).seen);
      });
      const getRss = rss();
      ctx.log(`  + ${counts.getStreams} GET streams: RSS ${getRss.toFixed(0)} MB`);
      const listenHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'subscriptions/listen' };
      await ramp(counts.listenStreams, 'listen streams', async (i) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: `listen-${i}`, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: modernMeta() } });
        seen.push((await holdStream(gateway.url, { method: 'POST', headers: listenHeaders, body }, streams)).seen);
      });
      const loadedRss = rss();
      ctx.log(`  + ${counts.listenStreams} listen streams: RSS ${loadedRss.toFixed(0)} MB; ramp ${((performance.now() - started) / 1000).toFixed(0)} s`);

      const loaded = await calls();
      ctx.log(`  calls on top: p99 ${loaded.p99.toFixed(2)} ms (runs ${loaded.spread})`);

      const fanOutCpu = cpuMicros(gateway.pid);
      const changed = performance.now();
      upstream.setExtraTool(true);
      const arrivals = await Promise.race([
        Promise.all(seen),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`list_changed fan-out: not every stream got it within ${STEP_DEADLINE_MS / 1000} s`)), STEP_DEADLINE_MS).unref()),
      ]);
      const delays = Float64Array.from(arrivals.map((t) => t - changed)).sort();
      const fanOutMs = delays[delays.length - 1]!;
      // Until the last stream got it: the 15 s keep-alives aside, the gateway did nothing else.
      const fanOutCpuMs = (cpuMicros(gateway.pid) - fanOutCpu) / 1000;
      ctx.log(`  list_changed to ${seen.length} streams: last after ${fanOutMs.toFixed(0)} ms, gateway CPU ${fanOutCpuMs.toFixed(0)} ms`);

      const streamsCount = counts.getStreams + counts.listenStreams;
      const perThousand = (mb: number, n: number): number => (mb * 1000) / n;
      const rows: ResultRow[] = [
        { label: 'calls, idle', rps: idle.rps, p50Ms: idle.p50, p99Ms: idle.p99, cpuUsPerCall: idle.cpuUs, note: `paced ${CALL_RATE}/s; median of ${CALL_RUNS} runs, p99s ${idle.spread} ms`, ...(idle.failed ? { failed: idle.failed } : {}) },
        { label: `calls, ${counts.sessions} sessions + ${streamsCount} streams open`, rps: loaded.rps, p50Ms: loaded.p50, p99Ms: loaded.p99, p99Ratio: loaded.p99 / idle.p99, cpuUsPerCall: loaded.cpuUs, note: `p99s ${loaded.spread} ms`, ...(loaded.failed ? { failed: loaded.failed } : {}) },
        { label: 'RSS idle', value: `${idleRss.toFixed(0)} MB`, note: fdNote },
        { label: `RSS + ${counts.sessions} legacy sessions`, value: `${sessionsRss.toFixed(0)} MB`, note: `${perThousand(sessionsRss - idleRss, counts.sessions).toFixed(1)} MB per 1,000 sessions` },
        { label: `RSS + ${counts.getStreams} GET streams`, value: `${getRss.toFixed(0)} MB`, note: `${perThousand(getRss - sessionsRss, counts.getStreams).toFixed(1)} MB per 1,000 GET streams` },
        { label: `RSS + ${counts.listenStreams} listen streams`, value: `${loadedRss.toFixed(0)} MB`, note: `${perThousand(loadedRss - getRss, counts.listenStreams).toFixed(1)} MB per 1,000 listen streams` },
        { label: `list_changed fan-out to ${streamsCount} streams`, value: `${fanOutMs.toFixed(0)} ms`, note: `p50 ${percentile(delays, 50).toFixed(0)} ms; gateway CPU ${fanOutCpuMs.toFixed(0)} ms (client and gateway share the machine)` },
      ];
      const failed = idle.failed ?? loaded.failed;
      return {
        id: ID,
        title: this.title,
        note: `Gateway caps raised for the ramp: ${JSON.stringify(LIMITS)}.`,
        rows,
        metrics: {
          p99Ratio: loaded.p99 / idle.p99,
          rssMbPer1000Sessions: perThousand(sessionsRss - idleRss, counts.sessions),
          rssMbPer1000Streams: perThousand(loadedRss - sessionsRss, streamsCount),
          fanOutMs,
          fanOutGatewayCpuMs: fanOutCpuMs,
          sessions: counts.sessions,
          streams: streamsCount,
        },
        ...(failed ? { failed } : {}),
      };
    } finally {
      for (const s of streams) s.abort();
      await stopAll(stoppers);
    }
  },
};
