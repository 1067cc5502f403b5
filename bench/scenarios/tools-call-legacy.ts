// Scenarios 1 (legacy half), 2 and 6: `tools/call` echo against the MCP reference server
// (server-everything, Streamable HTTP, legacy era), directly vs through Gatehouse, and vs
// nginx as a plain HTTP pass-through when nginx is installed. Two Gatehouse arms: plain (no
// identity, no policy), and the way it is deployed — an API key (identity), a realistic
// 10-rule policy that allows the echo (no rate limits), the audit trail when the config
// schema has it (gateway-features.ts), and metrics (always on). A second yardstick next to
// nginx: the least a Node.js MCP proxy can do (node-floor-server.ts), which shows what of
// Gatehouse's cost is Node's and what is Gatehouse's own; and below it a Node.js byte relay
// (node-relay-server.ts: TCP piped both ways, no HTTP at all), what any proxy written in
// Node.js costs before it reads a single header. The deployed arm runs twice, with audit
// `durability: sync` (the default) and `batch`, so that issue 17's target 1 can judge sync's
// price: its records per fdatasync (group commit) over the full-speed rounds, and the CPU
// of one fdatasync on this disk, measured in the same run (fdatasync-cost.ts). The batch arm
// uses a 5 ms window, not the default 50 ms: every call waits for its window's fsync, so 16
// connections behind a 50 ms window can do at most 320 calls/s, and CPU per call at a capped
// rate is not comparable with the other arms' (each call then wakes the process on its own). The client speaks legacy to all:
// one initialized session each, then POSTs with Mcp-Session-Id and unique ids. Gatehouse's
// CPU time per call (scenario 6) is read from /proc in its rounds.
import { join } from 'node:path';
import { runInterleaved, type Arm, type ArmSummary } from '../harness/ab-rounds.ts';
import { writeSmallPolicy } from '../harness/bench-policies.ts';
import { API_KEY_HEADERS, auditCounters, describeObservability, describePlain, identityConfig, observabilityOn, policyConfig } from '../harness/gateway-features.ts';
import { measureFdatasyncCost } from '../harness/fdatasync-cost.ts';
import { sampleInFlight } from '../harness/in-flight-sampler.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { findNginx, startNginx } from '../harness/nginx.ts';
import { startNodeFloor } from '../harness/node-floor.ts';
import { startNodeRelay } from '../harness/node-relay.ts';
import { startEverything } from '../harness/upstream-processes.ts';
import { armRows, stopAll, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'legacy';
const UPSTREAM = 'everything';
const POLICY_ARM = 'gatehouse + policy (+ audit/metrics when available)';
const BATCH_WINDOW = '5ms';
const BATCH_ARM = `gatehouse + policy, audit durability: batch (${BATCH_WINDOW})`;
const FLOOR_ARM = 'node floor (minimal Node proxy)';
const RELAY_ARM = 'node byte relay (TCP, no HTTP)';
/** The fixed-rate pass runs at this share of direct's full-speed throughput. */
const FIXED_RATE_SHARE = 0.25;

export const toolsCallLegacy: Scenario = {
  id: ID,
  title: 'tools/call echo, legacy era, server-everything over Streamable HTTP',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const everything = await startEverything(ctx.pinning);
      stoppers.push(everything.stop);
      const gateway = await startGateway(ctx.pinning, ctx.tmpDir, { upstreams: [{ name: UPSTREAM, url: everything.url }] });
      stoppers.push(gateway.stop);
      const policy = writeSmallPolicy(join(ctx.tmpDir, 'policy-legacy'));
      const observability = observabilityOn(join(ctx.tmpDir, 'audit-legacy'));
      const gwPolicy = await startGateway(ctx.pinning, ctx.tmpDir, {
        upstreams: [{ name: UPSTREAM, url: everything.url }],
        config: { ...identityConfig(), ...policyConfig(policy.dir), ...observability.config },
      });
      stoppers.push(gwPolicy.stop);
      const batchObservability = observabilityOn(join(ctx.tmpDir, 'audit-legacy-batch'), BATCH_WINDOW);
      const gwBatch = await startGateway(ctx.pinning, ctx.tmpDir, {
        upstreams: [{ name: UPSTREAM, url: everything.url }],
        config: { ...identityConfig(), ...policyConfig(policy.dir), ...batchObservability.config },
      });
      stoppers.push(gwBatch.stop);
      const nginxBin = findNginx();
      const nginx = nginxBin ? await startNginx(ctx.pinning, nginxBin, ctx.tmpDir, everything.url) : undefined;
      if (nginx) stoppers.push(nginx.stop);
      const floor = await startNodeFloor(ctx.pinning, everything.url);
      stoppers.push(floor.stop);
      const relay = await startNodeRelay(ctx.pinning, everything.url);
      stoppers.push(relay.stop);

      const arms: Arm[] = [
        {
          name: 'direct',
          spec: { url: everything.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(everything.url), tool: 'echo' } },
          cpuPids: { upstream: everything.pid },
        },
        {
          name: 'gatehouse',
          spec: { url: gateway.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gateway.url), tool: `${UPSTREAM}__echo` } },
          cpuPids: { gateway: gateway.pid, upstream: everything.pid },
        },
        {
          name: POLICY_ARM,
          spec: {
            url: gwPolicy.url,
            connections: ctx.connections,
            request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gwPolicy.url, undefined, API_KEY_HEADERS), tool: `${UPSTREAM}__echo`, headers: API_KEY_HEADERS },
          },
          cpuPids: { gateway: gwPolicy.pid, upstream: everything.pid },
        },
        {
          name: BATCH_ARM,
          spec: {
            url: gwBatch.url,
            connections: ctx.connections,
            request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(gwBatch.url, undefined, API_KEY_HEADERS), tool: `${UPSTREAM}__echo`, headers: API_KEY_HEADERS },
          },
          cpuPids: { gateway: gwBatch.pid, upstream: everything.pid },
        },
      ];
      if (nginx) {
        arms.push({
          name: 'nginx pass-through',
          spec: { url: nginx.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(nginx.url), tool: 'echo' } },
          cpuPids: { nginx: nginx.pid, upstream: everything.pid },
        });
      }
      arms.push({
        name: FLOOR_ARM,
        spec: { url: floor.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId: 'unused-by-the-floor', tool: 'echo' } },
        cpuPids: { floor: floor.pid, upstream: everything.pid },
      });
      arms.push({
        name: RELAY_ARM,
        spec: { url: relay.url, connections: ctx.connections, request: { kind: 'tools/call', era: 'legacy', sessionId: await openLegacySession(relay.url), tool: 'echo' } },
        cpuPids: { relay: relay.pid, upstream: everything.pid },
      });
      const countersBefore = await Promise.all([auditCounters(gwPolicy.port), auditCounters(gwBatch.port)]);
      const summaries = await runInterleaved(ctx.gen, arms, ctx.plan, ctx.log);
      // Records per fdatasync over the full-speed rounds alone (warm-ups included: same load).
      const countersAfter = await Promise.all([auditCounters(gwPolicy.port), auditCounters(gwBatch.port)]);
      const [syncPerSync, batchPerSync] = countersAfter.map((a, i) => (a.written - countersBefore[i]!.written) / (a.syncs - countersBefore[i]!.syncs)) as [number, number];
      const syncWaited = (countersAfter[0]!.waits - countersBefore[0]!.waits) / (countersAfter[0]!.syncs - countersBefore[0]!.syncs);
      const fdatasync = await measureFdatasyncCost(ctx.pinning, ctx.tmpDir);
      // Are the sync arm's connections all in flight at the gateway? (Records per fdatasync rest on it.)
      const inFlight = await sampleInFlight(ctx.gen, arms[2]!, gwPolicy.port, ctx.plan.roundSec);
      const [direct, gw, gwp] = summaries as [ArmSummary, ArmSummary, ArmSummary];
      const gwb = summaries.find((s) => s.name === BATCH_ARM)!;
      // Direct and the three Gatehouse arms at a fixed, moderate rate: a quarter of what the
      // upstream serves directly. At full speed the client's connections queue wherever the CPU
      // is short, so latency there follows throughput; here it is what a request waits at
      // normal load. Issue 17's target 2 reads plain and policy + batch audit against direct;
      // the node floor runs at the same rate as its yardstick (what a Node.js proxy adds at all).
      const rate = Math.max(50, Math.round((direct.rps * FIXED_RATE_SHARE) / 50) * 50);
      ctx.log(`  fixed rate: ${rate} req/s`);
      const paced = await runInterleaved(
        ctx.gen,
        [...arms.slice(0, 4), arms.find((a) => a.name === FLOOR_ARM)!].map((a) => ({ ...a, name: `${a.name} @ ${rate} req/s`, spec: { ...a.spec, pacedRate: rate } })),
        { ...ctx.plan, warmupSec: 1 },
        ctx.log,
      );
      const [pacedDirect, pacedGw, pacedGwp, pacedGwb, pacedFloor] = paced as [ArmSummary, ArmSummary, ArmSummary, ArmSummary, ArmSummary];
      const ng = summaries.find((s) => s.name === 'nginx pass-through');
      const fl = summaries.find((s) => s.name === FLOOR_ARM)!;
      const rl = summaries.find((s) => s.name === RELAY_ARM)!;
      const rows = armRows(summaries, { gatehouse: 'gateway', [POLICY_ARM]: 'gateway', [BATCH_ARM]: 'gateway', 'nginx pass-through': 'nginx', [FLOOR_ARM]: 'floor', [RELAY_ARM]: 'relay' });
      rows.find((r) => r.label === FLOOR_ARM)!.note += '; yardstick: node:http + undici, JSON parse and id swap only, no checks (bench/harness/node-floor-server.ts)';
      rows.find((r) => r.label === RELAY_ARM)!.note += '; yardstick: bytes piped over TCP, no HTTP parsing (bench/harness/node-relay-server.ts)';
      rows[1]!.note = [rows[1]!.note, await describePlain(gateway.port)].filter(Boolean).join('; ');
      rows[2]!.note = `${rows[2]!.note}; API key + ${policy.rules} rules; ${await describeObservability(observability, gwPolicy.port)}; ${syncPerSync.toFixed(1)} records per fdatasync over the full-speed rounds (${ctx.connections} connections; ${(100 * syncWaited).toFixed(0)} % of those fdatasyncs waited for records of calls under way)`;
      const batchRow = rows.find((r) => r.label === BATCH_ARM)!;
      batchRow.note = `${batchRow.note}; API key + ${policy.rules} rules; ${await describeObservability(batchObservability, gwBatch.port)}; ${batchPerSync.toFixed(1)} records per fdatasync over the full-speed rounds (${ctx.connections} connections)`;
      rows.push({
        label: 'one write + fdatasync, Node async fs (yardstick)',
        value: `${fdatasync.cpuUs.toFixed(0)} µs CPU, ${fdatasync.wallUs.toFixed(0)} µs wall`,
        note: `${fdatasync.appends} appends of ${fdatasync.bytesPerAppend} B in a child on the servers' CPU, same disk (bench/harness/fdatasync-cost.ts)`,
      });
      rows.push({
        label: 'requests in flight at the gateway, + policy (sync audit), full speed',
        value: `mean ${inFlight.mean.toFixed(1)} (min ${inFlight.min}, max ${inFlight.max}) of ${ctx.connections} connections`,
        note: `${inFlight.samples} scrapes of gatehouse_requests_in_flight every 50 ms during one extra ${ctx.plan.roundSec} s run after the rounds (bench/harness/in-flight-sampler.ts)${inFlight.failed ? `; FAILED: ${inFlight.failed}` : ''}`,
      });
      rows.push({ label: 'upstream CPU per call (direct)', cpuUsPerCall: direct.cpuUsPerCall.upstream ?? Number.NaN });
      for (const row of armRows(paced, { [paced[1]!.name]: 'gateway', [paced[2]!.name]: 'gateway', [paced[3]!.name]: 'gateway', [paced[4]!.name]: 'floor' })) {
        const added = row.label === pacedDirect.name ? '' : `; p50 ${signedMs(row.p50Ms! - pacedDirect.p50Ms)} over direct`;
        rows.push({ ...row, note: `${row.note}; fixed rate, ${FIXED_RATE_SHARE * 100} % of direct's throughput${added}` });
      }
      if (!nginx) rows.push({ label: 'nginx pass-through', note: 'skipped: nginx not installed' });
      const failures = [...summaries, ...paced, ...(inFlight.failed ? [{ name: 'in-flight sampling run', failed: inFlight.failed }] : [])].filter((s) => s.failed).map((s) => `${s.name}: ${s.failed}`);
      return {
        id: ID,
        title: this.title,
        rows,
        metrics: {
          throughputRatio: gw.rps / direct.rps,
          p99Ratio: gw.p99Ms / direct.p99Ms,
          gatewayCpuUsPerCall: gw.cpuUsPerCall.gateway ?? Number.NaN,
          policyThroughputRatio: gwp.rps / direct.rps,
          policyP99Ratio: gwp.p99Ms / direct.p99Ms,
          policyGatewayCpuUsPerCall: gwp.cpuUsPerCall.gateway ?? Number.NaN,
          policyVsPlainThroughput: gwp.rps / gw.rps,
          observabilityFeatures: observability.enabled.length,
          upstreamCpuUsPerCall: direct.cpuUsPerCall.upstream ?? Number.NaN,
          // Issue 17, target 1, against yardsticks of the same run.
          batchGatewayCpuUsPerCall: gwb.cpuUsPerCall.gateway ?? Number.NaN,
          plainVsFloorCpu: (gw.cpuUsPerCall.gateway ?? Number.NaN) / (fl.cpuUsPerCall.floor ?? Number.NaN),
          batchVsFloorCpu: (gwb.cpuUsPerCall.gateway ?? Number.NaN) / (fl.cpuUsPerCall.floor ?? Number.NaN),
          auditRecordsPerSync: syncPerSync,
          syncArmMeanInFlight: inFlight.mean,
          syncWaitedShare: syncWaited,
          batchAuditRecordsPerSync: batchPerSync,
          fdatasyncCpuUs: fdatasync.cpuUs,
          // Sync's CPU per call over what it may cost: batch's plus one fdatasync per records-per-sync.
          syncVsBatchPlusSyncShare: (gwp.cpuUsPerCall.gateway ?? Number.NaN) / ((gwb.cpuUsPerCall.gateway ?? Number.NaN) + fdatasync.cpuUs / syncPerSync),
          ...(ng ? { nginxThroughputRatio: ng.rps / direct.rps, nginxP99Ratio: ng.p99Ms / direct.p99Ms, nginxCpuUsPerCall: ng.cpuUsPerCall.nginx ?? Number.NaN } : {}),
          nodeFloorThroughputRatio: fl.rps / direct.rps,
          nodeFloorCpuUsPerCall: fl.cpuUsPerCall.floor ?? Number.NaN,
          nodeRelayThroughputRatio: rl.rps / direct.rps,
          nodeRelayCpuUsPerCall: rl.cpuUsPerCall.relay ?? Number.NaN,
          fixedRate: rate,
          fixedRateP99Ratio: pacedGw.p99Ms / pacedDirect.p99Ms,
          fixedRateP50Ratio: pacedGw.p50Ms / pacedDirect.p50Ms,
          fixedRatePolicyP99Ratio: pacedGwp.p99Ms / pacedDirect.p99Ms,
          fixedRatePolicyP50Ratio: pacedGwp.p50Ms / pacedDirect.p50Ms,
          // Issue 17, target 2: what Gatehouse adds at p50 (ms over direct's), and p99 ÷ direct's.
          fixedRateAddedP50Ms: pacedGw.p50Ms - pacedDirect.p50Ms,
          fixedRateBatchAddedP50Ms: pacedGwb.p50Ms - pacedDirect.p50Ms,
          fixedRateBatchP99Ratio: pacedGwb.p99Ms / pacedDirect.p99Ms,
          fixedRateFloorAddedP50Ms: pacedFloor.p50Ms - pacedDirect.p50Ms,
          fixedRateFloorP99Ratio: pacedFloor.p99Ms / pacedDirect.p99Ms,
        },
        ...(failures.length ? { failed: failures.join('; ') } : {}),
        details: [...summaries, ...paced],
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};

/** A difference in milliseconds with its sign, e.g. "+0.42 ms". */
function signedMs(ms: number): string {
  return `${ms >= 0 ? '+' : '−'}${Math.abs(ms).toFixed(2)} ms`;
}
