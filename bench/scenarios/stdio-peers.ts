// Scenario 3: server-everything over stdio behind Gatehouse vs behind the peers a user would
// otherwise pick: npm's mcp-proxy and supergateway (--stateful, its mode for legacy sessions;
// its default stateless mode spawns a server per POST, so it is probed once, not loaded).
// The client is legacy-era for all: one session each (initialize + notifications/initialized),
// then tools/call echo with unique ids. Before loading, each endpoint gets one checked legacy
// and one modern call, to record which eras it answers. A peer that is not installed, does
// not start or cannot hold a legacy session is reported in the table, not loaded.
import { runInterleaved, type Arm } from '../harness/ab-rounds.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { probe, type ProbeResult } from '../harness/probe.ts';
import { commandLine, descendantPids } from '../harness/proc-stats.ts';
import { findPeer, startPeer, type PeerName } from '../harness/stdio-peers.ts';
import { EVERYTHING } from '../harness/upstream-processes.ts';
import { median } from '../harness/statistics.ts';
import { armRows, stopAll, type ResultRow, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'stdio';
const UPSTREAM = 'everything';
const GATEHOUSE = 'gatehouse (stdio upstream)';
const STATELESS_PROBES = 3;

interface Candidate {
  arm: Arm;
  eras: string;
}

const short = (s: string): string => s.replace(/\s+/g, ' ').slice(0, 120);
const said = (r: ProbeResult): string => (r.ok ? `ok (${r.ms.toFixed(0)} ms)` : `no: ${short(r.why)}`);

/** One checked legacy and one modern echo: the endpoint is loaded only when legacy is right. */
async function probeEras(url: string, tool: string, sessionId: string): Promise<{ legacy: ProbeResult; eras: string }> {
  const legacy = await probe(url, { kind: 'tools/call', era: 'legacy', sessionId, tool });
  const modern = await probe(url, { kind: 'tools/call', era: 'modern', tool });
  return { legacy, eras: `legacy ${said(legacy)}, modern ${said(modern)}` };
}

const everythingPid = (pid: number): number | undefined =>
  descendantPids(pid).find((p) => commandLine(p).includes('server-everything') && !commandLine(p).startsWith('/bin/sh'));

async function gatehouseCandidate(ctx: ScenarioContext, stoppers: (() => Promise<void>)[]): Promise<Candidate> {
  const gw = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, command: process.execPath, args: [EVERYTHING, 'stdio'] }] });
  stoppers.push(gw.stop);
  const tool = `${UPSTREAM}__echo`;
  const sessionId = await openLegacySession(gw.url);
  const { legacy, eras } = await probeEras(gw.url, tool, sessionId);
  if (!legacy.ok) throw new Error(`gatehouse legacy tools/call: ${legacy.why}`);
  const upstream = everythingPid(gw.pid);
  return {
    arm: { name: GATEHOUSE, spec: { url: gw.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId, tool } }, cpuPids: { proxy: gw.pid, ...(upstream ? { upstream } : {}) } },
    eras,
  };
}

/** A loadable peer, or the reason it is not run. */
async function peerCandidate(ctx: ScenarioContext, name: PeerName, stoppers: (() => Promise<void>)[]): Promise<Candidate | string> {
  const pkg = findPeer(name);
  if (typeof pkg === 'string') return pkg;
  const stateful = name === 'supergateway';
  let peer;
  try {
    peer = await startPeer(ctx.pinning, pkg, { stateful });
  } catch (e) {
    return `${pkg.name} ${pkg.version} did not start: ${short((e as Error).message)}`;
  }
  stoppers.push(peer.stop);
  let sessionId: string;
  try {
    sessionId = await openLegacySession(peer.url);
  } catch (e) {
    return `no legacy session: ${short((e as Error).message)}`;
  }
  const { legacy, eras } = await probeEras(peer.url, 'echo', sessionId);
  if (!legacy.ok) return `legacy tools/call not answered correctly: ${short(legacy.why)}`;
  const upstream = peer.upstreamPid();
  return {
    arm: {
      name: `${pkg.name} ${pkg.version}${stateful ? ' --stateful' : ''}`,
      spec: { url: peer.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId, tool: 'echo' } },
      cpuPids: { proxy: peer.pid, ...(upstream ? { upstream } : {}) },
    },
    eras,
  };
}

/** supergateway's default (stateless) mode: a few sequential legacy calls without a session. */
async function statelessSupergateway(ctx: ScenarioContext): Promise<ResultRow | undefined> {
  const pkg = findPeer('supergateway');
  if (typeof pkg === 'string') return undefined;
  const peer = await startPeer(ctx.pinning, pkg);
  try {
    const times: number[] = [];
    for (let i = 0; i < STATELESS_PROBES; i++) {
      const r = await probe(peer.url, { kind: 'tools/call', era: 'legacy', sessionId: '', tool: 'echo' }, 30_000);
      if (!r.ok) return { label: 'supergateway default (stateless)', value: 'FAILED', note: short(r.why) };
      times.push(r.ms);
    }
    return {
      label: 'supergateway default (stateless)',
      value: `${median(times).toFixed(0)} ms per call`,
      note: `median of ${STATELESS_PROBES} sequential legacy calls: it spawns a stdio server per POST, so it is not load-tested`,
    };
  } finally {
    await peer.stop();
  }
}

export const stdioPeers: Scenario = {
  id: ID,
  title: 'tools/call echo, legacy era, server-everything over stdio: Gatehouse vs mcp-proxy vs supergateway',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const stateless = await statelessSupergateway(ctx).catch((e: unknown) => ({ label: 'supergateway default (stateless)', value: 'not run', note: short((e as Error).message) }));
      const candidates: Candidate[] = [await gatehouseCandidate(ctx, stoppers)];
      const notRun: ResultRow[] = [];
      for (const name of ['mcp-proxy', 'supergateway'] as const) {
        const c = await peerCandidate(ctx, name, stoppers);
        if (typeof c === 'string') notRun.push({ label: name, note: `not run: ${c}` });
        else candidates.push(c);
      }
      const summaries = await runInterleaved(ctx.gen, candidates.map((c) => c.arm), ctx.plan, ctx.log);
      const gw = summaries[0]!;
      const rows: ResultRow[] = armRows(summaries, Object.fromEntries(summaries.map((s) => [s.name, 'proxy']))).map((row, i) => {
        const up = summaries[i]!.cpuUsPerCall.upstream;
        return { ...row, note: [row.note, up === undefined ? '' : `upstream ${up.toFixed(0)} µs/req`, `eras: ${candidates[i]!.eras}`].filter(Boolean).join('; ') };
      });
      rows.push(...notRun);
      const metrics: Record<string, number> = { gatewayCpuUsPerCall: gw.cpuUsPerCall.proxy ?? Number.NaN };
      const metricFailures: Record<string, string> = {};
      const compare = (prefix: string, match: string): void => {
        const peer = summaries.find((s) => s.name.startsWith(match));
        if (!peer) return;
        metrics[`${prefix}Throughput`] = gw.rps / peer.rps;
        metrics[`${prefix}P99`] = gw.p99Ms / peer.p99Ms;
        if (peer.failed) metricFailures[`${prefix}Throughput`] = metricFailures[`${prefix}P99`] = `${peer.name}: ${peer.failed}`;
        rows.push({
          label: `gatehouse ÷ ${peer.name}`,
          value: `throughput ${(gw.rps / peer.rps).toFixed(2)}×, p99 ${(gw.p99Ms / peer.p99Ms).toFixed(2)}×`,
          ...(peer.failed ? { note: `FAILED: ${peer.name} had bad replies` } : {}),
        });
      };
      compare('vsMcpProxy', 'mcp-proxy');
      compare('vsSupergateway', 'supergateway');
      if (stateless) rows.push(stateless);
      return {
        id: ID,
        title: this.title,
        rows,
        metrics,
        metricFailures,
        note: 'CPU µs/req: the proxy process itself (the stdio server is in the note); × columns: ratio to Gatehouse',
        ...(gw.failed ? { failed: `${gw.name}: ${gw.failed}` } : {}),
        details: { summaries, eras: candidates.map((c) => ({ arm: c.arm.name, eras: c.eras })), notRun },
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
