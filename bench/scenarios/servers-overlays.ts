// Issue 16: what 20 virtual servers and 200 overlays cost. 20 modern upstreams x 50 filler
// tools (one child process, tools/list cacheable for 60 s) behind two gateways: one plain,
// one with `servers:` (server sNN draws from upstream upNN) and 200 overlays, 100 gateway-wide
// (5 per upstream, so they shape /mcp and every server) and 100 servers' own (5 per server;
// on s00 one of them renames echo to `say`). The overlays' hashes are written by the real
// `gatehouse overlays confirm` before the gateway starts, as an operator would.
// Measured, A/B interleaved: gateway CPU per tools/call to the overlaid tool (s00 `say`) and to
// a plain one (/mcp up00__echo on the same gateway) against the plain gateway's echo; then the
// warm merged tools/list on /mcp of both gateways and on one server, one connection.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { runInterleaved, type ArmSummary } from '../harness/ab-rounds.ts';
import { startGateway, type GatewayProcess } from '../harness/gateway-process.ts';
import type { WireRequest } from '../harness/mcp-wire.ts';
import { armFailures, armRow, stopAll, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';
import { fleetUpstreamName as upstreamName, startListFleet, UPSTREAMS } from './tools-list-merged.ts';

const ID = 'serversOverlays';
const WIDE_PER_UPSTREAM = 5;
const OWN_PER_SERVER = 5;
const BIN = fileURLToPath(new URL('../../bin/gatehouse.js', import.meta.url));
const run = promisify(execFile);

const serverName = (i: number): string => `s${String(i).padStart(2, '0')}`;

/** The `servers:` and `overlays:` sections: 20 servers, 100 gateway-wide and 100 own overlays. */
function serversAndOverlays(): Record<string, unknown> {
  const wide = [];
  const servers = [];
  for (let i = 0; i < UPSTREAMS; i++) {
    const up = upstreamName(i);
    for (let t = 0; t < WIDE_PER_UPSTREAM; t++) wide.push({ tool: `tool_${t}`, upstream: up, name: `${up}_wide_${t}`, description: `Filler ${t} of ${up}, re-described for every endpoint.` });
    const own: Record<string, unknown>[] = [];
    for (let t = WIDE_PER_UPSTREAM; t < WIDE_PER_UPSTREAM + OWN_PER_SERVER; t++) own.push({ tool: `tool_${t}`, upstream: up, name: `${serverName(i)}_own_${t}`, description: `Filler ${t}, as server ${serverName(i)} shows it.`, annotations: { readOnlyHint: true } });
    if (i === 0) own[0] = { tool: 'echo', upstream: up, name: 'say', description: 'Says the message back.', annotations: { readOnlyHint: true } };
    servers.push({ name: serverName(i), upstreams: [up], overlays: { tools: own } });
  }
  return { servers, overlays: { tools: wide } };
}

/** `gatehouse overlays confirm` on the written config; every overlay must come out confirmed. */
async function confirm(configFile: string): Promise<void> {
  await run(process.execPath, [BIN, 'overlays', 'confirm', '--config', configFile], { maxBuffer: 1 << 24 });
  const written = parse(readFileSync(configFile, 'utf8')) as { overlays: { tools: { sha256?: string }[] }; servers: { overlays: { tools: { sha256?: string }[] } }[] };
  const all = [...written.overlays.tools, ...written.servers.flatMap((s) => s.overlays.tools)];
  const missing = all.filter((o) => o.sha256 === undefined).length;
  if (all.length !== UPSTREAMS * (WIDE_PER_UPSTREAM + OWN_PER_SERVER) || missing > 0) throw new Error(`overlays confirm left ${missing} of ${all.length} overlays unconfirmed`);
}

export const serversOverlays: Scenario = {
  id: ID,
  title: `${UPSTREAMS} virtual servers + ${UPSTREAMS * (WIDE_PER_UPSTREAM + OWN_PER_SERVER)} overlays vs none: tools/call CPU, warm merged tools/list`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const { upstreams, perUpstream } = await startListFleet(ctx, stoppers);
      const start = async (config: Record<string, unknown>, beforeStart?: (file: string) => Promise<void>): Promise<GatewayProcess> => {
        const gw = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams, pageSize: perUpstream * UPSTREAMS * 2, config, ...(beforeStart ? { beforeStart } : {}) });
        stoppers.push(gw.stop);
        return gw;
      };
      const plain = await start({});
      const shaped = await start(serversAndOverlays(), confirm);
      const server0 = `${shaped.url}/${serverName(0)}`;

      const call = (tool: string): WireRequest => ({ kind: 'tools/call', era: 'modern', tool });
      const echo = call(`${upstreamName(0)}__echo`);
      const [base, overlaid, plainTool] = (await runInterleaved(
        ctx.gen,
        [
          { name: 'call, no servers or overlays', spec: { url: plain.url, connections: ctx.connections, request: echo }, cpuPids: { gateway: plain.pid } },
          { name: 'call, overlaid tool (s00 say)', spec: { url: server0, connections: ctx.connections, request: call('say') }, cpuPids: { gateway: shaped.pid } },
          { name: 'call, plain tool (/mcp echo)', spec: { url: shaped.url, connections: ctx.connections, request: echo }, cpuPids: { gateway: shaped.pid } },
        ],
        ctx.plan,
        ctx.log,
      )) as [ArmSummary, ArmSummary, ArmSummary];

      const list = (n: number): WireRequest => ({ kind: 'tools/list', era: 'modern', expectTools: n });
      const [warmPlain, warmShaped, warmServer] = (await runInterleaved(
        ctx.gen,
        [
          { name: 'warm list /mcp, no servers or overlays', spec: { url: plain.url, connections: 1, request: list(perUpstream * UPSTREAMS) }, cpuPids: { gateway: plain.pid } },
          { name: 'warm list /mcp, 100 gateway-wide overlays', spec: { url: shaped.url, connections: 1, request: list(perUpstream * UPSTREAMS) }, cpuPids: { gateway: shaped.pid } },
          { name: 'warm list /mcp/s00, 10 overlays', spec: { url: server0, connections: 1, request: list(perUpstream) }, cpuPids: { gateway: shaped.pid } },
        ],
        ctx.plan,
        ctx.log,
      )) as [ArmSummary, ArmSummary, ArmSummary];

      const cpu = (s: ArmSummary): number => s.cpuUsPerCall.gateway ?? Number.NaN;
      const all = [base, overlaid, plainTool, warmPlain, warmShaped, warmServer];
      const failures = armFailures(all);
      return {
        id: ID,
        title: this.title,
        note: `${UPSTREAMS} upstreams x ${perUpstream} tools; × columns: ratio to the first row of each group`,
        rows: [
          armRow(`tools/call, no servers or overlays, ${ctx.connections} connections`, base),
          armRow(`tools/call, overlaid tool on server s00, ${ctx.connections} connections`, overlaid, base),
          armRow(`tools/call, plain tool on /mcp, same gateway, ${ctx.connections} connections`, plainTool, base),
          armRow('warm tools/list /mcp, no servers or overlays, 1 connection', warmPlain),
          armRow('warm tools/list /mcp, 20 servers + 200 overlays, 1 connection', warmShaped, warmPlain),
          armRow('warm tools/list /mcp/s00, 1 connection', warmServer, warmPlain, `${perUpstream} tools`),
        ],
        metrics: {
          overlaidCallCpuRatio: cpu(overlaid) / cpu(base),
          plainCallCpuRatio: cpu(plainTool) / cpu(base),
          overlaidCallCpuUsDelta: cpu(overlaid) - cpu(base),
          plainCallCpuUsDelta: cpu(plainTool) - cpu(base),
          overlaidCallThroughputRatio: overlaid.rps / base.rps,
          warmListP50Ms: warmShaped.p50Ms,
          plainWarmListP50Ms: warmPlain.p50Ms,
          serverWarmListP50Ms: warmServer.p50Ms,
        },
        ...(failures.length ? { failed: failures.join('; ') } : {}),
        details: { perUpstream, arms: all },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
