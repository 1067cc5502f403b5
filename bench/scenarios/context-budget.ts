// Scenario "contextBudget" (issue 18): what tool search and result shaping cost, and what
// they save a model's context.
//   - In-process (context-microbench.ts): the search index over 10,000 generated tools —
//     build time and heap per 1,000 tools, search p50/p99 with a policy mask; the result store
//     offered 1,000 x 100 KiB against its 64 MiB budget; shaping a 1 MiB text result.
//   - Through Gatehouse (two gateway processes over the same 2,000-tool catalog of 40 SDK 2.x
//     upstreams in one child process): the bytes a client receives for tools/list in full and
//     in search mode, and their share of a 200k-token context at ~4 bytes per token; and
//     gatehouse__search_tools latency over HTTP, every answer checked.
import { BYTES_PER_TOKEN } from '../../src/result-shaping/shaping-config.ts';
import { benchResultStore, benchSearchIndex, benchShaping, catalogTools } from '../harness/context-microbench.ts';
import { startGateway, type GatewayProcess } from '../harness/gateway-process.ts';
import { modernMeta, MODERN_VERSION } from '../harness/mcp-wire.ts';
import { percentile } from '../harness/statistics.ts';
import { startCatalogFleetProcess } from '../harness/upstream-processes.ts';
import { stopAll, type ResultRow, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'contextBudget';
const CONTEXT_TOKENS = 200_000;
const SEARCHES = 5_000;
const HTTP_SEARCHES = 300;

const mb = (b: number): string => (b / 1024 / 1024).toFixed(2);
const share = (bytes: number): number => (100 * bytes) / BYTES_PER_TOKEN / CONTEXT_TOKENS;

async function rpc(url: string, id: number, method: string, params: Record<string, unknown>, name?: string): Promise<{ bytes: number; ms: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) };
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } }) });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`);
  const body = JSON.parse(text) as { id?: number; result?: unknown; error?: unknown };
  if (body.id !== id || body.result === undefined) throw new Error(`${method}: wrong answer ${text.slice(0, 200)}`);
  return { bytes: Buffer.byteLength(text), ms, body };
}

/** Every page of tools/list: bytes received and tools seen. */
async function listBytes(url: string): Promise<{ bytes: number; tools: number }> {
  let bytes = 0;
  let tools = 0;
  let cursor: string | undefined;
  let id = 1;
  do {
    const r = await rpc(url, id++, 'tools/list', cursor ? { cursor } : {});
    bytes += r.bytes;
    tools += r.body.result.tools.length;
    cursor = r.body.result.nextCursor;
  } while (cursor);
  return { bytes, tools };
}

export const contextBudget: Scenario = {
  id: ID,
  title: 'Context budget: tool search over 10,000 tools, tools/list bytes in full and search mode, result shaping',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const index = await benchSearchIndex(5, SEARCHES);
      const small = await benchSearchIndex(1, 1000);
      const store = benchResultStore(1000, 100 * 1024, 64 * 1024 * 1024);
      const shapeUs = benchShaping(1024 * 1024, 100_000, 30);
      ctx.log(`   index ${index.tools} tools: build ${index.buildMs.toFixed(0)} ms, search p50 ${index.p50Ms.toFixed(3)} ms`);

      const fleet = await startCatalogFleetProcess(ctx.pinning, 1);
      stoppers.push(fleet.stop);
      const upstreams = Object.entries(fleet.urls).map(([name, url]) => ({ name, url }));
      const start = async (config: Record<string, unknown>): Promise<GatewayProcess> => {
        const gw = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams, pageSize: 5000, config: { listDeadline: '30s', ...config } });
        stoppers.push(gw.stop);
        return gw;
      };
      const full = await start({});
      const search = await start({ toolSearch: { enabled: true } });
      const fullList = await listBytes(full.url);
      const searchList = await listBytes(search.url);
      if (fullList.tools !== 2000 || searchList.tools !== 3) throw new Error(`tools/list: ${fullList.tools} tools in full mode, ${searchList.tools} in search mode`);
      // What a 10,000-tool list would weigh: the generated tools as the merged list carries them.
      const tenThousandBytes = Buffer.byteLength(JSON.stringify({ tools: catalogTools(5).map((t) => t.item) }));

      const samples: number[] = [];
      for (let i = 0; i < HTTP_SEARCHES + 30; i++) {
        const r = await rpc(search.url, 10_000 + i, 'tools/call', { name: 'gatehouse__search_tools', arguments: { query: 'create github issue' } }, 'gatehouse__search_tools');
        if (r.body.result.structuredContent?.tools?.[0]?.name !== 'github__create_issue') throw new Error('gatehouse__search_tools answered wrongly');
        if (i >= 30) samples.push(r.ms);
      }
      samples.sort((a, b) => a - b);

      const rows: ResultRow[] = [
        { label: `search index build, ${index.tools.toLocaleString('en-US')} tools`, value: `${index.buildMs.toFixed(0)} ms (${(index.buildMs / (index.tools / 1000)).toFixed(1)} ms per 1,000 tools; 2,000 tools: ${small.buildMs.toFixed(0)} ms)` },
        { label: 'search index memory', value: `${mb(index.heapBytes)} MB heap for 10,000 tools = ${mb(index.heapBytes / 10)} MB per 1,000 (structures alone ${mb(index.structureBytes / 10)} MB per 1,000)` },
        { label: `search in-process, 10,000 tools, mask hiding 1 in 10 (${SEARCHES} searches)`, p50Ms: index.p50Ms, p99Ms: index.p99Ms },
        { label: 'search in-process, 2,000 tools', p50Ms: small.p50Ms, p99Ms: small.p99Ms },
        { label: 'gatehouse__search_tools over HTTP, 2,000 tools', p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99), note: `${HTTP_SEARCHES} sequential calls, each checked` },
        { label: 'tools/list bytes, full, 2,000 tools', value: `${fullList.bytes.toLocaleString('en-US')} B = ${share(fullList.bytes).toFixed(1)} % of a 200k-token context` },
        { label: 'tools/list bytes, search mode', value: `${searchList.bytes.toLocaleString('en-US')} B = ${share(searchList.bytes).toFixed(2)} % of a 200k-token context` },
        { label: 'tools/list bytes, full, 10,000 tools (size of the items)', value: `${tenThousandBytes.toLocaleString('en-US')} B = ${share(tenThousandBytes).toFixed(0)} % of a 200k-token context` },
        { label: `result store: ${store.offered} x 100 KiB offered, 64 MiB budget`, value: `${store.entries} kept, ${mb(store.bytes)} MB counted, heap +${mb(store.heapBytes)} MB, ${store.putUs.toFixed(1)} µs per put` },
        { label: 'shape a 1 MiB text result to 100 kB (head, copy kept)', value: `${shapeUs.toFixed(0)} µs` },
      ];
      return {
        id: ID,
        title: this.title,
        rows,
        metrics: {
          searchP50Ms: index.p50Ms,
          searchP99Ms: index.p99Ms,
          buildMsPer1000: index.buildMs / (index.tools / 1000),
          heapMbPer1000: index.heapBytes / 10 / 1024 / 1024,
          httpSearchP50Ms: percentile(samples, 50),
          fullListBytes: fullList.bytes,
          searchListBytes: searchList.bytes,
          fullListContextPct: share(fullList.bytes),
          searchListContextPct: share(searchList.bytes),
          storeBytes: store.bytes,
        },
        note: 'in-process rows run in the benchmark process (not pinned); HTTP rows through Gatehouse processes pinned like the other scenarios',
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
