// Probe (not part of `npm run bench`, not a test): what each new principal costs the gateway.
// One raw modern upstream with TOOLS tools (public list cache, in this process, cheap per call), a gateway with PRINCIPALS API keys
// and a one-rule policy, all on 127.0.0.1. Measures calls/s of one principal, then a ramp in
// which every principal lists once and calls once, then calls/s spread over all of them, and
// the gateway's RSS at each step. Bounded: PRINCIPALS x 2 requests plus two fixed runs.
//   node --import tsx bench/probes/many-principals.ts [principals] [tools]
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startGateway } from '../harness/gateway-process.ts';
import { buildRequest, replyMessage, type WireRequest } from '../harness/mcp-wire.ts';
import { memoryStats } from '../harness/proc-stats.ts';
import { startJsonUpstream } from '../harness/json-upstream.ts';

const PRINCIPALS = Number(process.argv[2] ?? 3000);
const TOOLS = Number(process.argv[3] ?? 2000);
const CONCURRENCY = 8;
const FIXED_CALLS = 2000;
const pinning = { taskset: undefined };

const keyOf = (i: number): string => `gh_probe_key_${String(i).padStart(6, '0')}_abcdefghijklmnop`;
const sha = (k: string): string => createHash('sha256').update(k).digest('hex');

let resets = 0;

async function send(url: string, req: WireRequest, id: number): Promise<void> {
  const built = buildRequest(req, id);
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: built.headers, body: built.body });
  } catch {
    // A connection the gateway closed as idle while its event loop was stalled: counted, sent again once.
    resets++;
    res = await fetch(url, { method: 'POST', headers: built.headers, body: built.body });
  }
  const body = await res.text();
  const msg = replyMessage(body) as { error?: unknown };
  if (res.status !== 200 || msg.error) throw new Error(`request ${id} failed: ${res.status} ${body.slice(0, 200)}`);
}

/** Runs `count` requests with CONCURRENCY in flight; returns requests per second. */
async function run(count: number, make: (i: number) => WireRequest): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        await send(url, make(i), i + 1);
      }
    }),
  );
  return (count / (performance.now() - started)) * 1000;
}

/** server/discover, tools/list (one page, public, 10 min) and tools/call echo, as plain JSON. */
function startRawUpstream(toolCount: number): Promise<{ url: string; close(): void }> {
  const schema = { type: 'object', properties: { message: { type: 'string', description: 'what to echo back' } }, required: ['message'] };
  const tools = [{ name: 'echo', description: 'Echoes the message back', inputSchema: schema }];
  for (let i = 0; i < toolCount; i++) tools.push({ name: `tool_${i}`, description: `Filler tool number ${i}, returns its index`, inputSchema: schema });
  return startJsonUpstream({
    tools,
    answer: (args) => String(args?.message ?? ''),
    meta: { 'io.modelcontextprotocol/serverInfo': { name: 'probe-upstream', version: '1.0.0' } },
    // Longer than the gateway keeps an idle connection: no keep-alive race in the numbers.
    keepAliveTimeoutMs: 120_000,
  });
}

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-probe-'));
const policyDir = join(dir, 'policies');
await import('node:fs').then((fs) => fs.mkdirSync(policyDir));
writeFileSync(
  join(policyDir, '10-rules.yaml'),
  'rules:\n  - id: staff-tools\n    effect: allow\n    when: { tool: ["fleet-0__tool_*", "fleet-0__echo"], principal: [{ groups: ["staff-*"] }] }\n',
);
const fleet = await startRawUpstream(TOOLS);
const gateway = await startGateway(pinning, dir, {
  upstreams: [{ name: 'fleet-0', url: fleet.url }],
  config: {
    identity: {
      resource: 'http://gatehouse.test/mcp',
      apiKeys: Array.from({ length: PRINCIPALS }, (_, i) => ({ id: `p${i}`, sha256: sha(keyOf(i)), subject: `p${i}`, groups: [`staff-${i % 7}`] })),
    },
    policy: { dir: policyDir, watch: false },
  },
});
const url = gateway.url;
const who = (i: number): Record<string, string> => ({ 'x-api-key': keyOf(i) });
const call = (p: number): WireRequest => ({ kind: 'tools/call', era: 'modern', tool: 'fleet-0__echo', headers: who(p) });
try {
  await run(200, () => call(0));
  const one = await run(FIXED_CALLS, () => call(0));
  const idle = memoryStats(gateway.pid);
  console.log(`1 principal: ${one.toFixed(0)} calls/s, RSS ${idle.rssMb.toFixed(0)} MB`);
  const rampStart = performance.now();
  await run(PRINCIPALS, (i) => ({ kind: 'tools/list', era: 'modern', expectTools: 0, headers: who(i) }));
  await run(PRINCIPALS, (i) => call(i));
  const rampS = (performance.now() - rampStart) / 1000;
  const ramped = memoryStats(gateway.pid);
  console.log(`ramp: ${PRINCIPALS} principals listed and called in ${rampS.toFixed(1)} s (${((2 * PRINCIPALS) / rampS).toFixed(0)} req/s), RSS ${ramped.rssMb.toFixed(0)} MB`);
  const spread = await run(FIXED_CALLS, (i) => call((i * 7919) % PRINCIPALS));
  const end = memoryStats(gateway.pid);
  console.log(`${PRINCIPALS} principals: ${spread.toFixed(0)} calls/s, RSS ${end.rssMb.toFixed(0)} MB (peak ${end.hwmMb.toFixed(0)} MB); ${resets} requests resent after a reset`);
} finally {
  await gateway.stop();
  fleet.close();
}
