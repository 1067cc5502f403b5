// Issue 17, target 3: big results. A modern-era upstream (big-result-server.ts) answers
// tools/call with a 1 MB and a 20 MB result, as text and as a base64 image, and with an SSE
// reply of 1,000 progress notifications before its result. Each is fetched directly and through
// Gatehouse (plain), one request at a time, interleaved (direct, gateway, direct, ...), by the
// benchmark process itself: time to first byte (the first body chunk), time to the last byte,
// throughput (bytes, or messages for the progress stream, per second), each proxy's CPU per
// request, and the gateway's peak RSS (read every few ms while the timed requests run) above
// its RSS once warmed by one untimed request, as a multiple of the result's size; a fresh
// gateway per case. Every reply is checked: its id, and its content equal to what the upstream
// sent (every progress notification counted).
//
// Yardstick: the node byte relay (node-relay-server.ts: TCP piped both ways, no HTTP parsing,
// nothing read), fetched in the same rotation (direct, gateway, relay, ...), fresh per case
// too. It is the least any proxy written in Node.js can cost on this layout, where the proxy
// shares its CPU with the upstream: what it misses of the targets, no Node.js proxy meets.
import { Pool } from 'undici';
import { BIG_TOOLS, bigContent, MB, PROGRESS_EVENTS, type BigTool } from '../harness/big-result-server.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { startNodeRelay } from '../harness/node-relay.ts';
import { MODERN_VERSION, modernMeta, replyMessage } from '../harness/mcp-wire.ts';
import { cpuMicros, memoryStats } from '../harness/proc-stats.ts';
import { median } from '../harness/statistics.ts';
import { startBigResultServer } from '../harness/upstream-processes.ts';
import { stopAll, type ResultRow, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'bigResults';
const UPSTREAM = 'big';
const SETTLE_MS = 500;
/** Untimed requests first, for at least this long (and at least MIN_WARM of each): a fresh
 * gateway's optimising compiler is still busy through its first few hundred calls (the same
 * 1 MB text cost it 6–7 ms of CPU per request over its first 15 and 3.5 ms once warm), and a
 * gateway in service is long past that. */
const WARM_MS = 1500;
const MIN_WARM = 2;
/** How often the gateway's RSS is read while the timed requests run (its peak is the largest reading). */
const RSS_SAMPLE_MS = 5;

interface Timing {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
}

interface Case {
  tool: string;
  /** Requests per arm; the medians are over them. */
  requests: number;
  /** Result size for the RSS multiple; messages for the progress stream. */
  size: number;
  check(body: string, id: number): string | undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function checkBig(tool: BigTool): Case['check'] {
  const expected = JSON.stringify(bigContent(tool));
  return (body, id) => {
    const msg = replyMessage(body) as { id?: unknown; result?: { content?: unknown[] } };
    if (msg.id !== id) return `id ${JSON.stringify(msg.id)} != ${id}`;
    const got = msg.result?.content?.[0];
    return got !== undefined && JSON.stringify(got) === expected ? undefined : `${tool.name}: content differs from what the upstream sent`;
  };
}

function checkProgress(body: string, id: number): string | undefined {
  const events = body.split('"method":"notifications/progress"').length - 1;
  if (events !== PROGRESS_EVENTS) return `${events} progress notifications, expected ${PROGRESS_EVENTS}`;
  const msg = replyMessage(body) as { id?: unknown; result?: unknown };
  return msg.id === id && msg.result !== undefined ? undefined : `final message ${JSON.stringify(msg).slice(0, 200)}`;
}

let nextId = 1;

async function fetchOnce(pool: Pool, path: string, tool: string, check: Case['check']): Promise<Timing> {
  const id = nextId++;
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: {}, _meta: { ...modernMeta(), progressToken: `p-${id}` } } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': tool };
  const started = performance.now();
  const res = await pool.request({ path, method: 'POST', headers, body });
  let ttfbMs = Number.NaN;
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) {
    if (chunks.length === 0) ttfbMs = performance.now() - started;
    chunks.push(chunk as Buffer);
  }
  const totalMs = performance.now() - started;
  const text = Buffer.concat(chunks).toString('utf8');
  const why = res.statusCode !== 200 ? `HTTP ${res.statusCode}: ${text.slice(0, 200)}` : check(text, id);
  if (why) throw new Error(why);
  return { ttfbMs, totalMs, bytes: Buffer.byteLength(text) };
}

export const bigResults: Scenario = {
  id: ID,
  title: `big results: 1 MB and 20 MB tool results (text, base64 image), an SSE reply of ${PROGRESS_EVENTS} progress notifications`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    const quick = ctx.plan.rounds <= 1;
    const cases: Case[] = [
      ...BIG_TOOLS.map((t) => ({ tool: t.name, requests: t.chars > MB ? (quick ? 2 : 5) : quick ? 5 : 15, size: t.chars, check: checkBig(t) })),
      { tool: 'progress', requests: quick ? 5 : 15, size: PROGRESS_EVENTS + 1, check: checkProgress },
    ];
    try {
      const upstream = await startBigResultServer(ctx.pinning);
      stoppers.push(upstream.stop);
      const direct = new Pool(new URL(upstream.url).origin, { connections: 1 });
      stoppers.push(() => direct.close());
      const rows: ResultRow[] = [];
      const metrics: Record<string, number> = {};
      const throughputRatios: number[] = [];
      const ttfbRatios: number[] = [];
      const rssMultiples: number[] = [];
      const relayThroughputRatios: number[] = [];
      const relayTtfbRatios: number[] = [];
      const relayRssMultiples: number[] = [];
      for (const c of cases) {
        const gateway = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, url: upstream.url }] });
        const viaGateway = new Pool(new URL(gateway.url).origin, { connections: 1 });
        const relay = await startNodeRelay(ctx.pinning, upstream.url);
        const viaRelay = new Pool(new URL(relay.url).origin, { connections: 1 });
        try {
          const d: Timing[] = [];
          const g: Timing[] = [];
          const r: Timing[] = [];
          // Untimed first: warms all three paths (and the gateway's catalog and compiled code),
          // so that the RSS baseline is a warmed gateway's and the growth is the results'.
          const warmUntil = performance.now() + (quick ? WARM_MS / 5 : WARM_MS);
          for (let i = 0; i < MIN_WARM || performance.now() < warmUntil; i++) {
            await fetchOnce(direct, new URL(upstream.url).pathname, c.tool, c.check);
            await fetchOnce(viaGateway, new URL(gateway.url).pathname, `${UPSTREAM}__${c.tool}`, c.check);
            await fetchOnce(viaRelay, new URL(relay.url).pathname, c.tool, c.check);
          }
          await sleep(SETTLE_MS);
          const idleRss = memoryStats(gateway.pid).rssMb;
          const relayIdleRss = memoryStats(relay.pid).rssMb;
          let peakMb = idleRss;
          let relayPeakMb = relayIdleRss;
          const sampler = setInterval(() => {
            peakMb = Math.max(peakMb, memoryStats(gateway.pid).rssMb);
            relayPeakMb = Math.max(relayPeakMb, memoryStats(relay.pid).rssMb);
          }, RSS_SAMPLE_MS);
          // Each proxy is idle while the others are fetched: its CPU over the loop is its own requests'.
          const cpuBefore = [cpuMicros(gateway.pid), cpuMicros(relay.pid)];
          try {
            for (let i = 0; i < c.requests; i++) {
              d.push(await fetchOnce(direct, new URL(upstream.url).pathname, c.tool, c.check));
              g.push(await fetchOnce(viaGateway, new URL(gateway.url).pathname, `${UPSTREAM}__${c.tool}`, c.check));
              r.push(await fetchOnce(viaRelay, new URL(relay.url).pathname, c.tool, c.check));
            }
          } finally {
            clearInterval(sampler);
          }
          const gatewayCpuMs = (cpuMicros(gateway.pid) - cpuBefore[0]!) / c.requests / 1000;
          const relayCpuMs = (cpuMicros(relay.pid) - cpuBefore[1]!) / c.requests / 1000;
          peakMb = Math.max(peakMb, memoryStats(gateway.pid).rssMb);
          relayPeakMb = Math.max(relayPeakMb, memoryStats(relay.pid).rssMb);
          const units = c.tool === 'progress' ? c.size : undefined;
          const rate = (ts: Timing[]): number => median(ts.map((t) => (units ?? t.bytes) / (t.totalMs / 1000)));
          const [dRate, gRate, rRate] = [rate(d), rate(g), rate(r)];
          const [dTtfb, gTtfb, rTtfb] = [d, g, r].map((ts) => median(ts.map((t) => t.ttfbMs))) as [number, number, number];
          const growthMb = Math.max(0, peakMb - idleRss);
          const relayGrowthMb = Math.max(0, relayPeakMb - relayIdleRss);
          const unit = units ? 'msg/s' : 'MB/s';
          const shown = (r: number): string => (units ? r.toFixed(0) : (r / MB).toFixed(0));
          rows.push({ label: `${c.tool}: direct`, value: `${shown(dRate)} ${unit}`, note: `TTFB ${dTtfb.toFixed(2)} ms, whole ${median(d.map((t) => t.totalMs)).toFixed(1)} ms` });
          rows.push({
            label: `${c.tool}: gatehouse`,
            value: `${shown(gRate)} ${unit}`,
            note: `${(gRate / dRate).toFixed(2)}× direct; TTFB ${gTtfb.toFixed(2)} ms (${(gTtfb / dTtfb).toFixed(1)}×), whole ${median(g.map((t) => t.totalMs)).toFixed(1)} ms; CPU ${gatewayCpuMs.toFixed(1)} ms per request; peak RSS +${growthMb.toFixed(0)} MB${units ? '' : ` (${(growthMb / (c.size / MB)).toFixed(1)}× the result)`}`,
          });
          rows.push({
            label: `${c.tool}: node byte relay`,
            value: `${shown(rRate)} ${unit}`,
            note: `yardstick; ${(rRate / dRate).toFixed(2)}× direct; TTFB ${rTtfb.toFixed(2)} ms (${(rTtfb / dTtfb).toFixed(1)}×), whole ${median(r.map((t) => t.totalMs)).toFixed(1)} ms; CPU ${relayCpuMs.toFixed(1)} ms per request; peak RSS +${relayGrowthMb.toFixed(0)} MB${units ? '' : ` (${(relayGrowthMb / (c.size / MB)).toFixed(1)}× the result)`}`,
          });
          relayThroughputRatios.push(rRate / dRate);
          relayTtfbRatios.push(rTtfb / dTtfb);
          if (!units) relayRssMultiples.push(relayGrowthMb / (c.size / MB));
          metrics[`${c.tool}GatewayCpuMs`] = gatewayCpuMs;
          metrics[`${c.tool}RelayCpuMs`] = relayCpuMs;
          throughputRatios.push(gRate / dRate);
          ttfbRatios.push(gTtfb / dTtfb);
          if (!units) rssMultiples.push(growthMb / (c.size / MB));
          metrics[`${c.tool}ThroughputRatio`] = gRate / dRate;
          metrics[`${c.tool}TtfbRatio`] = gTtfb / dTtfb;
          if (!units) metrics[`${c.tool}RssMultiple`] = growthMb / (c.size / MB);
          ctx.log(`  ${c.tool}: ${(gRate / dRate).toFixed(2)}× direct (relay ${(rRate / dRate).toFixed(2)}×), TTFB ${gTtfb.toFixed(2)} vs ${dTtfb.toFixed(2)} ms (relay ${rTtfb.toFixed(2)}), peak RSS +${growthMb.toFixed(0)} MB (relay +${relayGrowthMb.toFixed(0)})`);
        } finally {
          await viaRelay.close();
          await relay.stop();
          await viaGateway.close();
          await gateway.stop();
        }
      }
      return {
        id: ID,
        title: this.title,
        note: 'One request at a time, direct, Gatehouse and the node byte relay in turn; medians over the requests. RSS multiple: the proxy\'s peak RSS above its warmed RSS ÷ the result\'s size (MB). CPU: the proxy process\'s, per request.',
        rows,
        metrics: {
          ...metrics,
          minThroughputRatio: Math.min(...throughputRatios),
          maxTtfbRatio: Math.max(...ttfbRatios),
          maxRssMultiple: Math.max(...rssMultiples),
          relayMinThroughputRatio: Math.min(...relayThroughputRatios),
          relayMaxTtfbRatio: Math.max(...relayTtfbRatios),
          relayMaxRssMultiple: Math.max(...relayRssMultiples),
        },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
