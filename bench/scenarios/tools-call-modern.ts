// Scenario 1 (modern half): `tools/call` echo against the modern-era fixture upstream
// (SDK 2.x), directly vs through Gatehouse; the client speaks modern to both (stateless
// POSTs with `_meta` and MCP-Protocol-Version / Mcp-Method / Mcp-Name). Two Gatehouse arms:
// one in front of an upstream with the SDK's default list hints (`ttlMs: 0`, so the gateway
// may not reuse its cached tools/list to resolve the tool name), one in front of an upstream
// that lets tools/list be cached for 60 s.
import { runInterleaved, type Arm, type ArmSummary } from '../harness/ab-rounds.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { startModernFleet } from '../harness/upstream-processes.ts';
import { armFailures, armRows, stopAll, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'modern';
const UPSTREAM = 'modern';
const CACHED_TTL_MS = 60_000;

export const toolsCallModern: Scenario = {
  id: ID,
  title: 'tools/call echo, modern era, SDK 2.x fixture upstream',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const sdkDefault = await startModernFleet(ctx.pinning, { count: 1, toolCount: 0 });
      stoppers.push(sdkDefault.stop);
      const cached = await startModernFleet(ctx.pinning, { count: 1, toolCount: 0, listTtlMs: CACHED_TTL_MS });
      stoppers.push(cached.stop);
      const gwDefault = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, url: sdkDefault.urls[0]! }] });
      stoppers.push(gwDefault.stop);
      const gwCached = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, url: cached.urls[0]! }] });
      stoppers.push(gwCached.stop);

      const call = (tool: string) => ({ kind: 'tools/call', era: 'modern', tool }) as const;
      const arms: Arm[] = [
        { name: 'direct', spec: { url: sdkDefault.urls[0]!, connections: ctx.connections, request: call('echo') }, cpuPids: { upstream: sdkDefault.pid } },
        {
          name: 'gatehouse (list ttl 0)',
          spec: { url: gwDefault.url, connections: ctx.connections, request: call(`${UPSTREAM}__echo`) },
          cpuPids: { gateway: gwDefault.pid, upstream: sdkDefault.pid },
        },
        {
          name: 'gatehouse (list ttl 60s)',
          spec: { url: gwCached.url, connections: ctx.connections, request: call(`${UPSTREAM}__echo`) },
          cpuPids: { gateway: gwCached.pid, upstream: cached.pid },
        },
      ];
      const summaries = await runInterleaved(ctx.gen, arms, ctx.plan, ctx.log);
      const [direct, viaDefault, viaCached] = summaries as [ArmSummary, ArmSummary, ArmSummary];
      const rows = armRows(summaries, { 'gatehouse (list ttl 0)': 'gateway', 'gatehouse (list ttl 60s)': 'gateway' });
      rows.push({ label: 'upstream CPU per call (direct)', cpuUsPerCall: direct.cpuUsPerCall.upstream ?? Number.NaN });
      rows.push({
        label: 'upstream CPU per call (via gatehouse, ttl 0)',
        cpuUsPerCall: viaDefault.cpuUsPerCall.upstream ?? Number.NaN,
        note: 'includes the tools/list refetches the gateway makes',
      });
      const failures = armFailures(summaries);
      return {
        id: ID,
        title: this.title,
        rows,
        metrics: {
          throughputRatio: viaDefault.rps / direct.rps,
          p99Ratio: viaDefault.p99Ms / direct.p99Ms,
          cachedThroughputRatio: viaCached.rps / direct.rps,
          cachedP99Ratio: viaCached.p99Ms / direct.p99Ms,
          gatewayCpuUsPerCall: viaDefault.cpuUsPerCall.gateway ?? Number.NaN,
          cachedGatewayCpuUsPerCall: viaCached.cpuUsPerCall.gateway ?? Number.NaN,
        },
        ...(failures.length ? { failed: failures.join('; ') } : {}),
        details: summaries,
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
