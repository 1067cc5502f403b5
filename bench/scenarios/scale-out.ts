// Issue 17, target 6: scale-out correctness. Three Gatehouse processes sharing one Redis (rate
// limits) and one session secret, behind nginx (round robin), in front of server-everything;
// an API key, a policy, and each replica's own audit trail (durability sync: a record is on
// disk before its response leaves). Checked, not timed:
// - a legacy session opened through nginx is served by each replica when called there directly;
// - one rate limit (capacity N, N per minute, on everything__get-sum) shared by the three admits
//   N plus what refilled while the 2N calls ran, within 1 %;
// - an approval decided on one replica releases the call waiting on another: a call that needs
//   a console approval is sent to replica 0, an approver finds it pending on replica 2 (the
//   approvals store is the shared Redis) and approves it there, and replica 0 answers the call;
// - one replica killed with SIGKILL under load (paced echo calls through nginx): every call
//   acknowledged (200 with its result) has its audit record in some replica's trail, and the
//   other two go on serving.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startRedis } from '../../test/harness/redis.ts';
import { API_KEY_HEADERS, identityConfig, policyConfig } from '../harness/gateway-features.ts';
import { startGateway, type GatewayProcess } from '../harness/gateway-process.ts';
import { openLegacySession } from '../harness/legacy-session.ts';
import { LEGACY_VERSION, replyMessage } from '../harness/mcp-wire.ts';
import { findNginx, startNginx } from '../harness/nginx.ts';
import { startEverything } from '../harness/upstream-processes.ts';
import { stopAll, type ResultRow, type Scenario, type ScenarioContext, type ScenarioResult } from './scenario.ts';

const ID = 'scaleOut';
const REPLICAS = 3;
const RATE_N = 300;
const IN_FLIGHT = 16;
const KILL_LOAD_MS = 6_000;
const KILL_AT_MS = 2_000;
const AUDIT_FILE = 'gatehouse-audit.jsonl';
/** The approver's API key (a principal of its own: nobody approves their own call). */
const APPROVER_KEY = 'gatehouse-bench-approver-2b7d9e4c1a6f';
const APPROVAL_TOOL = 'everything__get-tiny-image';
const APPROVAL_WAIT_MS = 20_000;

const POLICY = `rules:
  - id: bench-echo
    effect: allow
    when: { principal: [{ groups: [bench] }], tool: everything__echo }
  - id: bench-sum-shared-budget
    effect: allow
    when: { principal: [{ groups: [bench] }], tool: everything__get-sum }
    rateLimit: { capacity: ${RATE_N}, perMinute: ${RATE_N}, per: principal }
  - id: bench-image-needs-approval
    effect: approve
    when: { principal: [{ groups: [bench] }], tool: ${APPROVAL_TOOL} }
    approval: { approver: console, timeout: 30s }
`;

/** The bench key and an approver key, as `identity:`. */
function replicaIdentity(): Record<string, unknown> {
  const { identity } = identityConfig() as { identity: { apiKeys: unknown[] } };
  const approver = { id: 'approver', sha256: createHash('sha256').update(APPROVER_KEY).digest('hex'), subject: 'bench-approver', groups: ['approvers'] };
  return { identity: { ...identity, apiKeys: [...identity.apiKeys, approver] } };
}

/** Approves, on `replica`, the console approval waiting for APPROVAL_TOOL; its id, or why not. */
async function approveOn(replica: GatewayProcess): Promise<{ id?: string; error?: string }> {
  const origin = new URL(replica.url).origin;
  const auth = { authorization: `Bearer ${APPROVER_KEY}` };
  const deadline = performance.now() + APPROVAL_WAIT_MS;
  while (performance.now() < deadline) {
    const list = (await (await fetch(`${origin}/approvals/api/pending`, { headers: auth })).json()) as { approvals?: { id: string; name: string }[] };
    const id = list.approvals?.find((a) => a.name === APPROVAL_TOOL)?.id;
    if (id !== undefined) {
      const res = await fetch(`${origin}/approvals/${id}/decision`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'gatehouse-console': 'decide' },
        body: JSON.stringify({ decision: 'approve' }),
      });
      return res.status === 200 ? { id } : { error: `decision answered ${res.status}: ${(await res.text()).slice(0, 160)}` };
    }
    // Polling the pending list as the console does; bounded by APPROVAL_WAIT_MS.
    await new Promise((r) => setTimeout(r, 50));
  }
  return { error: `no pending approval seen on the deciding replica within ${APPROVAL_WAIT_MS} ms` };
}

type Outcome = 'ok' | 'limited' | string;

let nextId = 1;

/** One legacy tools/call over `pool`; 'ok', 'limited' (429, rate limit) or why it failed. */
async function call(pool: Pool, sessionId: string, tool: string, args: Record<string, unknown>): Promise<{ id: number; outcome: Outcome }> {
  const id = nextId++;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_VERSION, ...API_KEY_HEADERS };
  try {
    const res = await pool.request({ path: '/mcp', method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } }) });
    const text = await res.body.text();
    if (res.statusCode === 429) return { id, outcome: 'limited' };
    const msg = replyMessage(text) as { id?: unknown; result?: { isError?: boolean } };
    return { id, outcome: res.statusCode === 200 && msg.id === id && msg.result && !msg.result.isError ? 'ok' : `HTTP ${res.statusCode}: ${text.slice(0, 160)}` };
  } catch (e) {
    return { id, outcome: `request error: ${(e as Error).message}` };
  }
}

/** Runs `one` with IN_FLIGHT at a time until `more()` says stop. */
async function loop(more: () => boolean, one: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (more()) await one();
  }));
}

function auditedRpcIds(dirs: readonly string[]): Set<number> {
  const ids = new Set<number>();
  for (const dir of dirs) {
    const file = join(dir, AUDIT_FILE);
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.includes('"type":"request"')) continue;
      const r = JSON.parse(line) as { rpcId?: unknown };
      if (typeof r.rpcId === 'number') ids.add(r.rpcId);
    }
  }
  return ids;
}

export const scaleOut: Scenario = {
  id: ID,
  title: `scale-out: ${REPLICAS} Gatehouse replicas, one Redis, one session secret, behind nginx`,
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const nginxBin = findNginx();
    if (!nginxBin) return { id: ID, title: this.title, rows: [], metrics: {}, skipped: 'nginx is not installed' };
    if (!['/usr/bin/redis-server', '/usr/local/bin/redis-server'].some((p) => existsSync(p))) return { id: ID, title: this.title, rows: [], metrics: {}, skipped: 'redis-server is not installed' };
    const stoppers: (() => Promise<void>)[] = [];
    try {
      const redis = await startRedis();
      stoppers.push(redis.stop);
      const everything = await startEverything(ctx.pinning);
      stoppers.push(everything.stop);
      const policyDir = join(ctx.tmpDir, 'policy-scale-out');
      mkdirSync(policyDir, { recursive: true });
      writeFileSync(join(policyDir, 'bench.yaml'), POLICY);
      const secret = randomBytes(32).toString('hex');
      const rateLimits = { store: 'redis', redisUrl: redis.url, prefix: `bench-${randomBytes(4).toString('hex')}:` };
      const auditDirs = Array.from({ length: REPLICAS }, (_, i) => join(ctx.tmpDir, `audit-replica-${i}`));
      const approvals = { keys: [randomBytes(32).toString('hex')], store: 'redis', redisUrl: redis.url, console: { approvers: { groups: ['approvers'] } } };
      const replicas: GatewayProcess[] = [];
      for (const dir of auditDirs) {
        const g = await startGateway(ctx.pinning, ctx.tmpDir, {
          upstreams: [{ name: 'everything', url: everything.url }],
          config: { ...replicaIdentity(), ...policyConfig(policyDir), sessions: { secret }, rateLimits, approvals, audit: { dir, durability: 'sync' } },
        });
        replicas.push(g);
        stoppers.push(g.stop);
      }
      const nginx = await startNginx(ctx.pinning, nginxBin, ctx.tmpDir, replicas.map((r) => r.url));
      stoppers.push(nginx.stop);
      const viaNginx = new Pool(new URL(nginx.url).origin, { connections: IN_FLIGHT });
      stoppers.push(() => viaNginx.close());

      // 1. A session opened through nginx, used on each replica directly.
      const sid = await openLegacySession(nginx.url, 'scale-out', API_KEY_HEADERS);
      const moved: Outcome[] = [];
      for (const r of replicas) {
        const pool = new Pool(new URL(r.url).origin, { connections: 1 });
        moved.push((await call(pool, sid, 'everything__echo', { message: 'moved' })).outcome);
        await pool.close();
      }
      const sessionMoves = moved.every((o) => o === 'ok');
      ctx.log(`  session served by ${moved.filter((o) => o === 'ok').length}/${REPLICAS} replicas`);

      // 2. One shared budget: 2N calls through nginx, round robin over the replicas.
      let sent = 0;
      let admitted = 0;
      let limited = 0;
      const other: string[] = [];
      const began = performance.now();
      await loop(() => sent < 2 * RATE_N, async () => {
        sent++;
        const { outcome } = await call(viaNginx, sid, 'everything__get-sum', { a: 1, b: 2 });
        if (outcome === 'ok') admitted++;
        else if (outcome === 'limited') limited++;
        else other.push(outcome);
      });
      const elapsedMin = (performance.now() - began) / 60_000;
      const expected = RATE_N + RATE_N * elapsedMin;
      const deviation = admitted / expected - 1;
      ctx.log(`  rate limit: ${admitted} admitted, ${limited} limited; expected ${expected.toFixed(1)} (${(100 * deviation).toFixed(2)} %)`);

      // 3. A call waiting for approval on replica 0, approved on replica 2.
      const holder = new Pool(new URL(replicas[0]!.url).origin, { connections: 1 });
      const waiting = call(holder, sid, APPROVAL_TOOL, {});
      const decision = await approveOn(replicas[2]!);
      const released = await waiting;
      await holder.close();
      const approvalReleased = decision.id !== undefined && released.outcome === 'ok';
      ctx.log(`  approval decided on replica 2 ${decision.id !== undefined ? 'was taken' : `failed (${decision.error})`}; the call on replica 0: ${released.outcome.slice(0, 120)}`);

      // 4. SIGKILL one replica under load: no acknowledged call without its audit record.
      const acked: number[] = [];
      const failedCalls: string[] = [];
      let afterKillOk = 0;
      let killedAt = Number.POSITIVE_INFINITY;
      const loadStart = performance.now();
      const killer = setTimeout(() => {
        killedAt = performance.now();
        process.kill(replicas[1]!.pid, 'SIGKILL');
      }, KILL_AT_MS);
      await loop(() => performance.now() - loadStart < KILL_LOAD_MS, async () => {
        const r = await call(viaNginx, sid, 'everything__echo', { message: 'under load' });
        if (r.outcome === 'ok') {
          acked.push(r.id);
          if (performance.now() > killedAt + 500) afterKillOk++;
        } else failedCalls.push(r.outcome);
      });
      clearTimeout(killer);
      // The survivors stop gracefully (their trails flushed); the killed one left what it had synced.
      for (const [i, r] of replicas.entries()) if (i !== 1) await r.stop();
      const audited = auditedRpcIds(auditDirs);
      const lost = acked.filter((id) => !audited.has(id));
      ctx.log(`  SIGKILL: ${acked.length} calls acknowledged, ${lost.length} without an audit record; ${afterKillOk} answered after the kill; ${failedCalls.length} failed (in flight at the kill)`);

      const rows: ResultRow[] = [
        { label: 'legacy session opened via nginx, used on each replica', value: `${moved.filter((o) => o === 'ok').length}/${REPLICAS}`, ...(sessionMoves ? {} : { note: moved.join(' | ').slice(0, 200) }) },
        { label: `shared rate limit, ${RATE_N}/min (capacity ${RATE_N}), ${2 * RATE_N} calls`, value: `${admitted} admitted`, note: `expected ${expected.toFixed(1)} (N + refill over ${(elapsedMin * 60).toFixed(1)} s): ${(100 * deviation).toFixed(2)} %; ${limited} limited${other.length ? `; ${other.length} other: ${other[0]}` : ''}` },
        { label: 'approval decided on replica 2 releases the call waiting on replica 0', value: approvalReleased ? 'yes' : 'no', note: decision.error ?? `call: ${released.outcome.slice(0, 120)}` },
        { label: 'SIGKILL of one replica under load: acknowledged calls without an audit record', value: String(lost.length), note: `${acked.length} acknowledged; ${afterKillOk} answered after the kill; ${failedCalls.length} failed${failedCalls[0] ? ` (e.g. ${failedCalls[0].slice(0, 80)})` : ''}` },
      ];
      const failed = !sessionMoves ? `session did not move: ${moved.join(' | ').slice(0, 200)}` : other.length ? `rate-limit run: ${other.length} unexpected replies, e.g. ${other[0]}` : afterKillOk === 0 ? 'no call was answered after the kill' : undefined;
      return {
        id: ID,
        title: this.title,
        note: 'Correctness, not speed: nothing here is timed against a target.',
        rows,
        metrics: { sessionMoves: sessionMoves ? 1 : 0, rateLimitDeviationPct: Math.abs(100 * deviation), approvalAcrossReplicas: approvalReleased ? 1 : 0, lostAuditRecords: lost.length, answeredAfterKill: afterKillOk },
        ...(failed ? { failed } : {}),
      };
    } finally {
      await stopAll(stoppers);
    }
  },
};
