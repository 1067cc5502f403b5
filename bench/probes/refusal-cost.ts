// Probe (not part of `npm run bench`, not a test): what a refused request costs Gatehouse
// against an accepted one. A raw modern upstream in this process answers `echo` at once and
// holds `hold` until the probe lets go; Gatehouse (plain, `limits.maxConcurrentRequests` CAP)
// runs as its own process. Measured from /proc: gateway CPU per accepted echo (closed loop,
// CAP connections, nothing refused), then, with CAP `hold` calls taking every place, gateway
// CPU per refusal (closed loop, CONNECTIONS connections, every reply checked to be the 503), and
// the same for the floor below.
// Then refusals paced at PACED_RATES, as they arrive under overload (each pays its own wake-up
// more often than in a closed loop), against the floor: a bare node:http server that answers
// every request with the same 503 body, in its own process, at the same rates.
//   node --import tsx bench/probes/refusal-cost.ts [seconds] [--profile DIR] [--audit]
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { startBareRefusal } from '../harness/bare-refusal.ts';
import { startGateway } from '../harness/gateway-process.ts';
import { buildRequest, type WireRequest } from '../harness/mcp-wire.ts';
import { cpuMicros } from '../harness/proc-stats.ts';
import { summarizeProfile } from '../profile/cpu-profile-summary.ts';

const CAP = 8;
const CONNECTIONS = 32;
const PACED_RATES = [250, 1000];
const args = process.argv.slice(2);
const seconds = Number(args.find((a) => /^\d+$/.test(a)) ?? 5);
const profileAt = args.indexOf('--profile');
const profileDir = profileAt === -1 ? undefined : args[profileAt + 1];
const audit = args.includes('--audit');

const held: { res: ServerResponse; id: number }[] = [];
const meta = { 'io.modelcontextprotocol/serverInfo': { name: 'probe-upstream', version: '1.0.0' } };
const schema = { type: 'object', properties: { message: { type: 'string' } } };
const upstream = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: number; method?: string; params?: { name?: string; arguments?: { message?: string } } };
    if (msg.id === undefined) return void res.writeHead(202).end();
    const answer = (result: object): void =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { resultType: 'complete', ...result, _meta: meta } }));
    if (msg.method === 'server/discover') return answer({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 600_000, cacheScope: 'public' });
    if (msg.method === 'tools/list')
      return answer({ tools: [{ name: 'echo', inputSchema: schema }, { name: 'hold', inputSchema: schema }], ttlMs: 600_000, cacheScope: 'public' });
    if (msg.params?.name === 'hold') return void held.push({ res, id: msg.id });
    answer({ content: [{ type: 'text', text: msg.params?.arguments?.message ?? '' }] });
  });
});
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;

const gateway = await startGateway({ taskset: undefined }, mkdtempSync(join(tmpdir(), 'refusal-cost-')), {
  // The CAP held calls must outlast every phase (about a minute at the default 5 s each), past the default 30 s timeout.
  upstreams: [{ name: 'up', url: upstreamUrl, timeout: '10m' }],
  ...(profileDir ? { profileDir } : {}),
  config: { limits: { maxConcurrentRequests: CAP }, ...(audit ? { audit: { dir: mkdtempSync(join(tmpdir(), 'refusal-cost-audit-')) } } : {}) },
});

/** The refusal phase's samples only (µs, CLOCK_MONOTONIC), for the profile summary. */
const window = { fromUs: 0, toUs: 0 };
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);
const echo: WireRequest = { kind: 'tools/call', era: 'modern', tool: 'up__echo' };
let nextId = 1;

/** Closed loop for `seconds`; returns gateway CPU µs per reply, replies/s and the replies of each status. */
async function load(connections: number, target: { url: string; pid: number } = gateway): Promise<{ cpuPerReply: number; rps: number; statuses: Record<number, number> }> {
  const statuses: Record<number, number> = {};
  const before = cpuMicros(target.pid);
  const result = await autocannon({
    url: target.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const built = buildRequest(echo, nextId++);
          return { ...request, headers: built.headers, body: built.body };
        },
        onResponse: (status) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
        },
      },
    ],
  });
  const used = cpuMicros(target.pid) - before;
  return { cpuPerReply: used / result.requests.total, rps: result.requests.total / seconds, statuses };
}

/** Paced at `rate` for `seconds` on 64 connections; returns CPU µs of `pid` per request, checking each is a 503. */
async function pacedRefusals(url: string, pid: number, rate: number): Promise<number> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 64 });
  const built = buildRequest(echo, nextId++);
  const total = rate * seconds;
  const before = cpuMicros(pid);
  const started = performance.now();
  const replies: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i / rate) * 1000 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    replies.push(
      pool.request({ path: target.pathname, method: 'POST', headers: built.headers, body: built.body }).then(async (res) => {
        await res.body.text();
        if (res.statusCode !== 503) throw new Error(`expected 503, got ${res.statusCode}`);
      }),
    );
  }
  await Promise.all(replies);
  const used = cpuMicros(pid) - before;
  await pool.close();
  return used / total;
}

try {
  await load(CAP);
  const accepted = await load(CAP);
  console.error(`accepted: ${accepted.cpuPerReply.toFixed(0)} µs gateway CPU per call, ${accepted.rps.toFixed(0)}/s`, accepted.statuses);
  const holds = Array.from({ length: CAP }, (_, i) => {
    const built = buildRequest({ kind: 'tools/call', era: 'modern', tool: 'up__hold' }, 1_000_000 + i);
    return fetch(gateway.url, { method: 'POST', headers: built.headers, body: built.body }).then((r) => r.text());
  });
  while (held.length < CAP) await new Promise((r) => setTimeout(r, 20));
  await load(CONNECTIONS);
  window.fromUs = monotonicUs();
  const refused = await load(CONNECTIONS);
  window.toUs = monotonicUs();
  console.error(`refused: ${refused.cpuPerReply.toFixed(0)} µs gateway CPU per refusal, ${refused.rps.toFixed(0)}/s`, refused.statuses);
  if (!profileDir) {
    const sample = buildRequest(echo, nextId++);
    const refusalText = await (await fetch(gateway.url, { method: 'POST', headers: sample.headers, body: sample.body })).text();
    const floor = await startBareRefusal({ taskset: undefined }, 0, refusalText);
    try {
      await load(CONNECTIONS, floor);
      const bare = await load(CONNECTIONS, floor);
      console.error(`closed loop, ${CONNECTIONS} connections: ${bare.cpuPerReply.toFixed(0)} µs for a bare node:http 503, ${bare.rps.toFixed(0)}/s`, bare.statuses);
      for (const rate of PACED_RATES) {
        await pacedRefusals(floor.url, floor.pid, rate);
        const gw = await pacedRefusals(gateway.url, gateway.pid, rate);
        const bare = await pacedRefusals(floor.url, floor.pid, rate);
        console.error(`paced ${rate}/s: ${gw.toFixed(0)} µs gateway CPU per refusal, ${bare.toFixed(0)} µs for a bare node:http 503`);
      }
    } finally {
      await floor.stop();
    }
  }
  for (const { res, id } of held) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', content: [] } }));
  await Promise.allSettled(holds);
} finally {
  await gateway.stop();
  upstream.close();
}

if (profileDir) {
  const files = readdirSync(profileDir);
  const profile = files.find((f) => f.endsWith('.cpuprofile'));
  const maps = files.find((f) => f.startsWith('source-maps-'));
  if (!profile) throw new Error(`no .cpuprofile in ${profileDir}`);
  const summary = summarizeProfile(join(profileDir, profile), maps ? join(profileDir, maps) : undefined, window, 25);
  console.error(`refusal window: busy ${summary.busyMs.toFixed(0)} of ${summary.profileMs.toFixed(0)} ms`);
  for (const h of summary.topSelf) console.error(`self  ${h.pct.toFixed(1).padStart(5)} %  ${h.fn}  ${h.location}`);
  for (const h of summary.topSrcInclusive) console.error(`total ${h.pct.toFixed(1).padStart(5)} %  ${h.fn}  ${h.location}`);
  for (const a of summary.byArea.slice(0, 12)) console.error(`area  ${a.pct.toFixed(1).padStart(5)} %  ${a.area}`);
}
