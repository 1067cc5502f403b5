// Issue 17, target 7: the merged scenario against an aggregator peer. Five stdio
// server-everything servers behind Gatehouse and the same five behind npm `mcp-hub`; both
// driven by the same MCP SDK 1.x client (Streamable HTTP to Gatehouse, HTTP+SSE to mcp-hub,
// the one transport its /mcp speaks), one session per connection. Measured: the merged
// tools/list a new session sees first ("cold") and again (warm, median of WARM_LISTS), with
// each list checked to hold five servers' tools; tools/call echo throughput and p99 (interleaved
// rounds), each proxy's CPU per call (its own process, not the stdio servers') and its RSS
// after the calls. Four arms: the same SDK 1.x client against each proxy, and a lean raw
// client of each proxy's own transport (autocannon on a Gatehouse legacy session; one raw
// HTTP+SSE session per connection for mcp-hub, harness/sse-session-load.ts). The target reads
// the raw arms: the SDK client's Streamable HTTP transport costs its process more CPU per call
// than its SSE transport does, whatever the server, so on a busy machine (where the client gets
// only its share of a core) the SDK arms rank the two client transports as much as the proxies.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { runInterleaved, type Arm } from '../harness/ab-rounds.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { findHub, startHub, type HubServer } from '../harness/mcp-hub.ts';
import { memoryStats } from '../harness/proc-stats.ts';
import { rawGatehouseListP50, rawSseListP50 } from '../harness/raw-lists.ts';
import { median } from '../harness/statistics.ts';
import { EVERYTHING } from '../harness/upstream-processes.ts';
import { armRows, stopAll, type ResultRow, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'mergedPeer';
const SERVERS: readonly HubServer[] = ['s1', 's2', 's3', 's4', 's5'].map((name) => ({ name, command: process.execPath, args: [EVERYTHING, 'stdio'] }));
const WARM_LISTS = 30;
const GATEHOUSE = 'gatehouse (5 stdio servers)';
const HUB = 'mcp-hub (5 stdio servers)';
const RAW = 'gatehouse, raw HTTP load (autocannon)';
const HUB_RAW = 'mcp-hub, raw HTTP+SSE load';

interface ListTiming {
  coldMs: number;
  warmP50Ms: number;
  names: string[];
}

async function timeLists(url: string, transport: 'sse' | 'streamableHttp'): Promise<ListTiming> {
  const client = new Client({ name: 'gatehouse-bench-lists', version: '0.1.0' });
  await client.connect(transport === 'sse' ? new SSEClientTransport(new URL(url)) : new StreamableHTTPClientTransport(new URL(url)));
  try {
    const all = async (): Promise<string[]> => {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return names;
    };
    let t = performance.now();
    const names = await all();
    const coldMs = performance.now() - t;
    const warm: number[] = [];
    for (let i = 0; i < WARM_LISTS; i++) {
      t = performance.now();
      const again = await all();
      warm.push(performance.now() - t);
      if (again.length !== names.length) throw new Error(`tools/list at ${url}: ${again.length} tools, then ${names.length}`);
    }
    return { coldMs, warmP50Ms: median(warm), names };
  } finally {
    await client.close();
  }
}

/** The echo tool of server s1 as the endpoint names it. */
function echoOf(names: readonly string[], url: string): string {
  const found = names.find((n) => n.startsWith('s1') && n.endsWith('echo'));
  if (!found) throw new Error(`no echo tool of s1 at ${url} among ${names.slice(0, 10).join(', ')}`);
  return found;
}

export const mergedPeer: Scenario = {
  id: ID,
  title: 'merged peer: 5 stdio server-everything servers behind Gatehouse vs behind mcp-hub',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const hubFound = findHub();
    if (typeof hubFound === 'string') return { id: ID, title: this.title, rows: [], metrics: {}, skipped: `mcp-hub ${hubFound}` };
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: SERVERS.map((s) => ({ name: s.name, command: s.command, args: s.args })) });
      stoppers.push(gateway.stop);
      const hub = await startHub(ctx.pinning, ctx.tmpDir, SERVERS);
      stoppers.push(hub.stop);
      const gLists = await timeLists(gateway.url, 'streamableHttp');
      const hLists = await timeLists(hub.url, 'sse');
      // server-everything offers some tools only to clients that declare the matching
      // capability, and the two proxies declare different ones upstream: each merged list must
      // hold five copies of what its own session with a server offers.
      for (const [who, l] of [['Gatehouse', gLists], ['mcp-hub', hLists]] as const) {
        const per = l.names.filter((n) => n.startsWith('s1')).length;
        if (per === 0 || l.names.length !== per * SERVERS.length) throw new Error(`merged list of ${who}: ${l.names.length} tools, ${per} of them from s1`);
      }
      const gRawList = await rawGatehouseListP50(gateway.url, WARM_LISTS, gLists.names.length);
      const hRawList = await rawSseListP50(hub.url, WARM_LISTS, hLists.names.length);
      ctx.log(`  merged list of ${gLists.names.length} tools: cold ${gLists.coldMs.toFixed(1)} / ${hLists.coldMs.toFixed(1)} ms, warm ${gLists.warmP50Ms.toFixed(2)} / ${hLists.warmP50Ms.toFixed(2)} ms, raw warm ${gRawList.toFixed(2)} / ${hRawList.toFixed(2)} ms`);
      const arms: Arm[] = [
        { name: GATEHOUSE, spec: { url: gateway.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'modern', tool: echoOf(gLists.names, gateway.url) }, sdkTransport: 'streamableHttp' }, cpuPids: { proxy: gateway.pid } },
        { name: HUB, spec: { url: hub.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'modern', tool: echoOf(hLists.names, hub.url) }, sdkTransport: 'sse' }, cpuPids: { proxy: hub.pid } },
        { name: RAW, spec: { url: gateway.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gateway.url), tool: echoOf(gLists.names, gateway.url) } }, cpuPids: { proxy: gateway.pid } },
        { name: HUB_RAW, spec: { url: hub.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'modern', tool: echoOf(hLists.names, hub.url) }, sseSession: true }, cpuPids: { proxy: hub.pid } },
      ];
      const summaries = await runInterleaved(ctx.gen, arms, ctx.plan, ctx.log);
      const [g, h, raw, hRaw] = summaries as [(typeof summaries)[0], (typeof summaries)[0], (typeof summaries)[0], (typeof summaries)[0]];
      const gRss = memoryStats(gateway.pid).rssMb;
      const hRss = memoryStats(hub.pid).rssMb;
      const rows: ResultRow[] = [
        ...armRows(summaries, { [GATEHOUSE]: 'proxy', [HUB]: 'proxy', [RAW]: 'proxy', [HUB_RAW]: 'proxy' }),
        { label: `merged tools/list (${gLists.names.length} tools), first on a new session`, value: `${gLists.coldMs.toFixed(1)} ms`, note: `mcp-hub ${hubFound.version}: ${hLists.coldMs.toFixed(1)} ms (${hLists.names.length} tools: server-everything offers it fewer)` },
        { label: 'merged tools/list, warm p50', value: `${gLists.warmP50Ms.toFixed(2)} ms`, note: `mcp-hub: ${hLists.warmP50Ms.toFixed(2)} ms` },
        { label: 'merged tools/list, warm p50, raw clients', value: `${gRawList.toFixed(2)} ms`, note: `mcp-hub: ${hRawList.toFixed(2)} ms (no SDK-side validation)` },
        { label: 'RSS after the calls (proxy process)', value: `${gRss.toFixed(0)} MB`, note: `mcp-hub: ${hRss.toFixed(0)} MB` },
      ];
      return {
        id: ID,
        title: this.title,
        note: `mcp-hub ${hubFound.version} (HTTP+SSE); the same SDK 1.x client drives the first two arms, lean raw clients the last two (autocannon; an HTTP+SSE session per connection); ×: ÷ the first row. The target reads the raw arms (Gatehouse raw ÷ mcp-hub raw): the SDK's Streamable HTTP client costs more per call than its SSE one.`,
        rows,
        metrics: {
          // The target reads the raw arms: each proxy driven by a lean client of its own
          // transport, so the client's cost does not set the rate (bench/README.md).
          vsHubThroughput: raw.rps / hRaw.rps,
          vsHubP99: raw.p99Ms / hRaw.p99Ms,
          sdkVsHubThroughput: g.rps / h.rps,
          sdkVsHubP99: g.p99Ms / h.p99Ms,
          gatewayCpuUsPerCall: g.cpuUsPerCall.proxy ?? Number.NaN,
          hubCpuUsPerCall: h.cpuUsPerCall.proxy ?? Number.NaN,
          hubCpuOverGatehouse: (h.cpuUsPerCall.proxy ?? Number.NaN) / (g.cpuUsPerCall.proxy ?? Number.NaN),
          rawGatewayCpuUsPerCall: raw.cpuUsPerCall.proxy ?? Number.NaN,
          rawHubCpuUsPerCall: hRaw.cpuUsPerCall.proxy ?? Number.NaN,
          rawHubCpuOverGatehouse: (hRaw.cpuUsPerCall.proxy ?? Number.NaN) / (raw.cpuUsPerCall.proxy ?? Number.NaN),
          rawRps: raw.rps,
          rawHubRps: hRaw.rps,
          coldListMs: gLists.coldMs,
          hubColdListMs: hLists.coldMs,
          warmListP50Ms: gLists.warmP50Ms,
          hubWarmListP50Ms: hLists.warmP50Ms,
          rawWarmListP50Ms: gRawList,
          hubRawWarmListP50Ms: hRawList,
        },
        ...(g.failed || raw.failed ? { failed: `Gatehouse: ${g.failed ?? raw.failed}` } : {}),
        ...(h.failed || hRaw.failed ? { metricFailures: { ...(hRaw.failed ? { vsHubThroughput: hRaw.failed, vsHubP99: hRaw.failed } : {}), ...(h.failed ? { sdkVsHubThroughput: h.failed, sdkVsHubP99: h.failed } : {}) } } : {}),
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
