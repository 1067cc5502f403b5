// Scenario 4: tools/list merged across 20 modern upstreams x 50 filler tools, warm. The 20
// upstreams run in ONE child process and let tools/list be cached for 60 s, so after the
// first (cold) call every list is served from the gateway's cache and merge memo: what is
// measured is the gateway's own cost of answering a big merged list. One connection, so
// p50 is latency rather than queueing.
import { runInterleaved, type ArmSummary } from '../harness/ab-rounds.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { buildRequest, checkReply, type WireRequest } from '../harness/mcp-wire.ts';
import { startModernFleet } from '../harness/upstream-processes.ts';
import { stopAll, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'toolsList';
const UPSTREAMS = 20;
const TOOLS_PER_UPSTREAM = 50;
const LIST_TTL_MS = 60_000;

/** How many tools one upstream lists (its 50 fillers plus the fixture's own tools). */
export async function countTools(url: string): Promise<number> {
  const req = buildRequest({ kind: 'tools/list', era: 'modern', expectTools: 0 }, 1);
  const res = await fetch(url, { method: 'POST', headers: req.headers, body: req.body });
  const body = (await res.json()) as { result?: { tools?: unknown[] } };
  const n = body.result?.tools?.length;
  if (!res.ok || n === undefined) throw new Error(`tools/list on ${url}: HTTP ${res.status}`);
  return n;
}

/** One timed, checked tools/list: the cold call that fills the gateway's cache. */
async function timedList(url: string, request: WireRequest): Promise<{ ms: number; bytes: number }> {
  const req = buildRequest(request, 1);
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: req.headers, body: req.body });
  const text = await res.text();
  const elapsed = performance.now() - started;
  const why = checkReply(request, 1, res.status, text);
  if (why) throw new Error(`cold tools/list: ${why}`);
  return { ms: elapsed, bytes: Buffer.byteLength(text) };
}

export const toolsListMerged: Scenario = {
  id: ID,
  title: `tools/list merged, ${UPSTREAMS} upstreams x ${TOOLS_PER_UPSTREAM} tools, warm`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const fleet = await startModernFleet(ctx.pinning, { count: UPSTREAMS, toolCount: TOOLS_PER_UPSTREAM, listTtlMs: LIST_TTL_MS });
      stoppers.push(fleet.stop);
      const perUpstream = await countTools(fleet.urls[0]!);
      const expectTools = perUpstream * UPSTREAMS;
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, {
        upstreams: fleet.urls.map((url, i) => ({ name: `up${String(i).padStart(2, '0')}`, url })),
        pageSize: expectTools * 2,
      });
      stoppers.push(gateway.stop);
      const request: WireRequest = { kind: 'tools/list', era: 'modern', expectTools };
      const cold = await timedList(gateway.url, request);
      const [warm] = (await runInterleaved(
        ctx.gen,
        [{ name: 'gatehouse warm', spec: { url: gateway.url, connections: 1, request }, cpuPids: { gateway: gateway.pid } }],
        ctx.plan,
        ctx.log,
      )) as [ArmSummary];
      return {
        id: ID,
        title: this.title,
        rows: [
          { label: 'cold (first call, fills cache)', p50Ms: cold.ms, note: `${expectTools} tools, ${(cold.bytes / 1024).toFixed(0)} KiB body` },
          {
            label: 'warm, 1 connection',
            rps: warm.rps,
            p50Ms: warm.p50Ms,
            p99Ms: warm.p99Ms,
            cpuUsPerCall: warm.cpuUsPerCall.gateway ?? Number.NaN,
            note: `client CPU ${(100 * warm.loadgenCpuShare).toFixed(0)} %`,
            ...(warm.failed ? { failed: warm.failed } : {}),
          },
        ],
        metrics: {
          warmP50Ms: warm.p50Ms,
          warmP99Ms: warm.p99Ms,
          coldMs: cold.ms,
          tools: expectTools,
          bodyKiB: cold.bytes / 1024,
          gatewayCpuUsPerList: warm.cpuUsPerCall.gateway ?? Number.NaN,
        },
        ...(warm.failed ? { failed: warm.failed } : {}),
        details: { perUpstream, warm },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
