// Not a measurement but a diagnosis, run when a target is missed: Gatehouse under
// `node --cpu-prof` while the load generator drives one workload through it, then a summary
// of the profile (top self time with src file:line, src/ inclusive time, time by area).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runFailure } from '../harness/load-generator.ts';
import { writeLargePolicy, writeSmallPolicy } from '../harness/bench-policies.ts';
import { API_KEY_HEADERS, identityConfig, observabilityOn, policyConfig } from '../harness/gateway-features.ts';
import { startGateway, type GatewayUpstream } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import type { WireRequest } from '../harness/mcp-wire.ts';
import { EVERYTHING, startEverything, startModernFleet } from '../harness/upstream-processes.ts';
import { summarizeProfile } from '../profile/cpu-profile-summary.ts';
import { countTools } from './tools-list-merged.ts';
import { stopAll, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

export type ProfileWorkload = 'tools/call' | 'tools/call+policy' | 'tools/call stdio' | 'tools/call modern' | 'tools/call 1,000 rules' | 'tools/list';

const PROFILE_SEC = 6;
const WARMUP_SEC = 2;

const WORKLOADS: Record<ProfileWorkload, { id: string; title: string }> = {
  'tools/call': { id: 'profileToolsCall', title: 'legacy tools/call (server-everything)' },
  'tools/call+policy': { id: 'profileToolsCallPolicy', title: 'legacy tools/call (server-everything), API key + 10-rule policy (+ audit/metrics when available)' },
  'tools/call stdio': { id: 'profileToolsCallStdio', title: 'legacy tools/call (server-everything over stdio)' },
  'tools/call modern': { id: 'profileToolsCallModern', title: 'modern tools/call (SDK 2.x fixture upstream, list TTL 60 s)' },
  'tools/call 1,000 rules': { id: 'profileToolsCallRules', title: 'modern tools/call (20 x 50 fleet), API key + 1,000-rule policy' },
  'tools/list': { id: 'profileToolsList', title: 'warm merged tools/list (20 x 50)' },
};

const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

interface Setup {
  url: string;
  request: WireRequest;
  connections: number;
  stopGateway: () => Promise<void>;
}

/** Starts the upstreams (into `stoppers`) and a profiled gateway for `workload`. */
async function setUp(workload: ProfileWorkload, ctx: ScenarioContext, dir: string, stoppers: (() => Promise<void>)[]): Promise<Setup> {
  if (workload === 'tools/list' || workload === 'tools/call 1,000 rules') {
    const fleet = await startModernFleet(ctx.pinning, { count: 20, toolCount: 50, listTtlMs: 60_000 });
    stoppers.push(fleet.stop);
    const rules = workload !== 'tools/list';
    const gw = await startGateway(ctx.pinning, ctx.tmpDir, {
      upstreams: fleet.urls.map((u, i) => ({ name: `up${String(i).padStart(2, '0')}`, url: u })),
      pageSize: 10_000,
      profileDir: dir,
      ...(rules ? { config: { ...identityConfig(), ...policyConfig(writeLargePolicy(join(dir, 'policy'), fleet.urls.length).dir) } } : {}),
    });
    if (rules) return { url: gw.url, request: { kind: 'tools/call', era: 'modern', tool: 'up00__echo', headers: API_KEY_HEADERS }, connections: ctx.connections, stopGateway: gw.stop };
    const request: WireRequest = { kind: 'tools/list', era: 'modern', expectTools: (await countTools(fleet.urls[0]!)) * fleet.urls.length };
    return { url: gw.url, request, connections: 1, stopGateway: gw.stop };
  }
  if (workload === 'tools/call modern') {
    const fleet = await startModernFleet(ctx.pinning, { count: 1, toolCount: 0, listTtlMs: 60_000 });
    stoppers.push(fleet.stop);
    const gw = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: 'up00', url: fleet.urls[0]! }], profileDir: dir });
    return { url: gw.url, request: { kind: 'tools/call', era: 'modern', tool: 'up00__echo' }, connections: ctx.connections, stopGateway: gw.stop };
  }
  let upstream: GatewayUpstream = { name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] };
  if (workload !== 'tools/call stdio') {
    const everything = await startEverything(ctx.pinning);
    stoppers.push(everything.stop);
    upstream = { name: 'everything', url: everything.url };
  }
  const withPolicy = workload === 'tools/call+policy';
  const config = withPolicy
    ? { ...identityConfig(), ...policyConfig(writeSmallPolicy(join(dir, 'policy')).dir), ...observabilityOn(join(dir, 'audit')).config }
    : {};
  const headers = withPolicy ? API_KEY_HEADERS : {};
  const gw = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [upstream], profileDir: dir, config });
  const sessionId = await openLegacySession(gw.url, undefined, headers);
  return { url: gw.url, request: { kind: 'tools/call', era: 'legacy', sessionId, tool: 'everything__echo', headers }, connections: ctx.connections, stopGateway: gw.stop };
}

export function profileGateway(workload: ProfileWorkload): Scenario {
  const { id, title } = WORKLOADS[workload];
  return {
    id,
    title: `CPU profile of Gatehouse under ${title}`,
    async run(ctx: ScenarioContext): Promise<ScenarioResult> {
      const stoppers: (() => Promise<void>)[] = [];
      const dir = join(ctx.tmpDir, id);
      mkdirSync(dir, { recursive: true });
      let stopGateway: (() => Promise<void>) | undefined;
      try {
        const setup = await setUp(workload, ctx, dir, stoppers);
        stopGateway = setup.stopGateway;
        const { url, request, connections } = setup;
        // Warm the JIT first; only the samples of the measured window are summarised.
        await ctx.gen.run({ url, connections, durationSec: WARMUP_SEC, request });
        const fromUs = monotonicUs();
        const load = await ctx.gen.run({ url, connections, durationSec: PROFILE_SEC, request });
        const toUs = monotonicUs();
        const failed = runFailure(load);
        await stopGateway();
        stopGateway = undefined;
        const files = readdirSync(dir);
        const profile = files.find((f) => f.endsWith('.cpuprofile'));
        const maps = files.find((f) => f.startsWith('source-maps-'));
        if (!profile) throw new Error(`no .cpuprofile written in ${dir} (did the gateway exit cleanly on SIGTERM?)`);
        const summary = summarizeProfile(join(dir, profile), maps ? join(dir, maps) : undefined, { fromUs, toUs });
        // Kept next to the results (git-ignored *.json), loadable in Chrome DevTools.
        const kept = `${ctx.artifactPrefix}.${id}.cpuprofile.json`;
        copyFileSync(join(dir, profile), kept);
        ctx.log(`  profiled ${load.completed} requests (${load.rps.toFixed(0)} req/s), busy ${summary.busyMs.toFixed(0)} ms of ${summary.profileMs.toFixed(0)} ms`);
        const note = `% of the gateway's busy CPU time over ${load.completed} requests; self = in the function itself, total = incl. callees (src/ only)`;
        return {
          id,
          title: this.title,
          rows: [
            ...summary.topSelf.map((h) => ({ label: `self   ${h.fn}  ${h.location}`, value: `${h.pct.toFixed(1)} %` })),
            ...summary.topSrcInclusive.slice(0, 10).map((h) => ({ label: `total  ${h.fn}  ${h.location}`, value: `${h.pct.toFixed(1)} %` })),
            ...summary.byArea.slice(0, 10).map((a) => ({ label: `area   ${a.area}`, value: `${a.pct.toFixed(1)} %` })),
          ],
          metrics: { requests: load.completed, busyMs: summary.busyMs, busyUsPerRequest: (summary.busyMs * 1000) / load.completed },
          note,
          ...(failed ? { failed } : {}),
          details: { profileFile: kept, ...summary },
        };
      } finally {
        if (stopGateway) await stopGateway();
        await stopAll(stoppers);
      }
    },
  };
}
