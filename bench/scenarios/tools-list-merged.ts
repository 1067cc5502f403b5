// Scenario 4: tools/list merged across 20 modern upstreams x 50 filler tools, warm, without a
// policy and with a 1,000-rule one (bench-policies.ts; it hides tool_49 of each upstream, so
// the right answer is 20 tools shorter). The 20 upstreams run in ONE child process and let
// tools/list be cached for 60 s, so after the first (cold) call every list is served from the
// gateway's cache and merge memo: what is measured is the gateway's own cost of answering a
// big merged list. One connection, so p50 is latency rather than queueing.
// Then what 1,000 rules cost a call: tools/call echo (modern era) through the same two
// gateways, A/B at full load, and decide() timed in-process (decide-microbench.ts). Both
// gateways authenticate the same API key, so the only difference is the policy.
import { join } from 'node:path';
import { runInterleaved, type ArmSummary } from '../harness/ab-rounds.ts';
import { writeLargePolicy } from '../harness/bench-policies.ts';
import { benchDecide } from '../harness/decide-microbench.ts';
import { API_KEY_HEADERS, identityConfig, policyConfig } from '../harness/gateway-features.ts';
import { startGateway, type GatewayProcess } from '../harness/gateway-process.ts';
import { buildRequest, type WireRequest } from '../harness/mcp-wire.ts';
import { probe } from '../harness/probe.ts';
import { startModernFleet } from '../harness/upstream-processes.ts';
import { armFailures, armRow, stopAll, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'toolsList';
/** The fleet of both list scenarios (this one and servers-overlays.ts). */
export const UPSTREAMS = 20;
const TOOLS_PER_UPSTREAM = 50;
const LIST_TTL_MS = 60_000;
const CALL_UPSTREAM = 'up00';

/** How many tools one upstream lists (its 50 fillers plus the fixture's own tools). */
export async function countTools(url: string): Promise<number> {
  const req = buildRequest({ kind: 'tools/list', era: 'modern', expectTools: 0 }, 1);
  const res = await fetch(url, { method: 'POST', headers: req.headers, body: req.body });
  const body = (await res.json()) as { result?: { tools?: unknown[] } };
  const n = body.result?.tools?.length;
  if (!res.ok || n === undefined) throw new Error(`tools/list on ${url}: HTTP ${res.status}`);
  return n;
}

/** The fleet's n-th upstream's name: up00, up01, ... */
export const fleetUpstreamName = (i: number): string => `up${String(i).padStart(2, '0')}`;

/** Starts the fleet (stopped with `stoppers`): its upstreams by name, and how many tools each lists. */
export async function startListFleet(ctx: ScenarioContext, stoppers: (() => Promise<void>)[]): Promise<{ upstreams: { name: string; url: string }[]; perUpstream: number }> {
  const fleet = await startModernFleet(ctx.pinning, { count: UPSTREAMS, toolCount: TOOLS_PER_UPSTREAM, listTtlMs: LIST_TTL_MS });
  stoppers.push(fleet.stop);
  return { upstreams: fleet.urls.map((url, i) => ({ name: fleetUpstreamName(i), url })), perUpstream: await countTools(fleet.urls[0]!) };
}

/** One timed, checked tools/list: the cold call that fills the gateway's cache. */
async function coldList(url: string, request: WireRequest): Promise<{ ms: number; bytes: number }> {
  const r = await probe(url, request);
  if (!r.ok) throw new Error(`cold tools/list: ${r.why}`);
  return { ms: r.ms, bytes: r.bytes };
}

export const toolsListMerged: Scenario = {
  id: ID,
  title: `tools/list merged, ${UPSTREAMS} upstreams x ${TOOLS_PER_UPSTREAM} tools, warm; and with a 1,000-rule policy`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const { upstreams, perUpstream } = await startListFleet(ctx, stoppers);
      const expectTools = perUpstream * UPSTREAMS;
      const policy = writeLargePolicy(join(ctx.tmpDir, 'policy-1000'), UPSTREAMS);
      const start = async (config: Record<string, unknown>): Promise<GatewayProcess> => {
        const gw = await startGateway(ctx.pinning, ctx.tmpDir, {
          upstreams,
          pageSize: expectTools * 2,
          config: { ...identityConfig(), ...config },
        });
        stoppers.push(gw.stop);
        return gw;
      };
      const plain = await start({});
      const ruled = await start(policyConfig(policy.dir));
      const list = (n: number): WireRequest => ({ kind: 'tools/list', era: 'modern', expectTools: n, headers: API_KEY_HEADERS });
      const plainList = list(expectTools);
      const ruledList = list(expectTools - policy.hiddenTools);
      const cold = await coldList(plain.url, plainList);
      const coldRuled = await coldList(ruled.url, ruledList);
      const [warm, warmRuled] = (await runInterleaved(
        ctx.gen,
        [
          { name: 'list, no policy', spec: { url: plain.url, connections: 1, request: plainList }, cpuPids: { gateway: plain.pid } },
          { name: 'list, 1,000 rules', spec: { url: ruled.url, connections: 1, request: ruledList }, cpuPids: { gateway: ruled.pid } },
        ],
        ctx.plan,
        ctx.log,
      )) as [ArmSummary, ArmSummary];

      const echo: WireRequest = { kind: 'tools/call', era: 'modern', tool: `${CALL_UPSTREAM}__echo`, headers: API_KEY_HEADERS };
      const [call, callRuled] = (await runInterleaved(
        ctx.gen,
        [
          { name: 'call, no policy', spec: { url: plain.url, connections: ctx.connections, request: echo }, cpuPids: { gateway: plain.pid } },
          { name: 'call, 1,000 rules', spec: { url: ruled.url, connections: ctx.connections, request: echo }, cpuPids: { gateway: ruled.pid } },
        ],
        ctx.plan,
        ctx.log,
      )) as [ArmSummary, ArmSummary];

      const decide = benchDecide(policy.dir, UPSTREAMS, CALL_UPSTREAM);
      ctx.log(`  decide(): ${decide.hotCallUs.toFixed(2)} µs (the bench call), ${decide.mixedUs.toFixed(2)} µs (mix), compile ${decide.compileMs.toFixed(0)} ms`);
      const failures = armFailures([warm, warmRuled, call, callRuled]);
      if (decide.failed) failures.push(`decide(): ${decide.failed}`);
      return {
        id: ID,
        title: this.title,
        note: `both gateways authenticate an API key; ${policy.rules} rules in 10 files, default deny, no rate limits; × columns: ratio to the row without policy`,
        rows: [
          { label: 'cold, no policy (first call)', p50Ms: cold.ms, note: `${expectTools} tools, ${(cold.bytes / 1024).toFixed(0)} KiB body` },
          { label: 'cold, 1,000 rules (first call)', p50Ms: coldRuled.ms, note: `${expectTools - policy.hiddenTools} tools visible` },
          armRow('warm list, no policy, 1 connection', warm),
          armRow('warm list, 1,000 rules, 1 connection', warmRuled, warm),
          armRow(`tools/call, no policy, ${ctx.connections} connections`, call),
          armRow(`tools/call, 1,000 rules, ${ctx.connections} connections`, callRuled, call),
          { label: 'decide(), 1,000 rules, the call above', value: `${decide.hotCallUs.toFixed(2)} µs`, note: 'in-process, median of batches' },
          { label: 'decide(), 1,000 rules, mixed calls', value: `${decide.mixedUs.toFixed(2)} µs`, note: `${decide.decisions} decisions checked; compile ${decide.compileMs.toFixed(0)} ms` },
        ],
        metrics: {
          warmP50Ms: warm.p50Ms,
          warmP99Ms: warm.p99Ms,
          policyWarmP50Ms: warmRuled.p50Ms,
          policyWarmP99Ms: warmRuled.p99Ms,
          coldMs: cold.ms,
          tools: expectTools,
          bodyKiB: cold.bytes / 1024,
          gatewayCpuUsPerList: warm.cpuUsPerCall.gateway ?? Number.NaN,
          policyGatewayCpuUsPerList: warmRuled.cpuUsPerCall.gateway ?? Number.NaN,
          policyCallThroughputRatio: callRuled.rps / call.rps,
          policyCallP99Ratio: callRuled.p99Ms / call.p99Ms,
          policyCallCpuUsDelta: (callRuled.cpuUsPerCall.gateway ?? Number.NaN) - (call.cpuUsPerCall.gateway ?? Number.NaN),
          decideHotUs: decide.hotCallUs,
          decideMixedUs: decide.mixedUs,
        },
        ...(failures.length ? { failed: failures.join('; ') } : {}),
        details: { perUpstream, warm, warmRuled, call, callRuled, decide },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
