// The load-generator process (pinned to its own CPU by load-generator.ts). It receives one
// run at a time over IPC, drives autocannon with a per-request builder (a unique JSON-RPC id
// and echo argument for every request) and checks every reply with checkReply: a single
// non-2xx, connection error or wrong body makes the run count as failed, never as fast.
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { buildRequest, checkReply, type WireRequest } from './mcp-wire.ts';
import { MAX_SAMPLES, startTally, tallyResult } from './run-tally.ts';
import { sdkLoad } from './sdk-load.ts';
import { sseSessionLoad } from './sse-session-load.ts';
import { summarizeLatencies, type LatencySummary } from './statistics.ts';

export interface LoadSpec {
  url: string;
  connections: number;
  durationSec: number;
  request: WireRequest;
  /** Requests per second across all connections (autocannon `overallRate`); absent: as fast as possible.
   * autocannon spends each connection's quota at the start of every second, so this is a
   * bursty load: right for a soak, wrong for latency. */
  overallRate?: number;
  /** Open loop at this many requests per second, spaced evenly (pacedLoad below): latency
   * at a steady load. Takes precedence over overallRate. */
  pacedRate?: number;
  /** Closed loop on the paced load's own client (undici) instead of autocannon, so that its
   * latencies compare with a paced run's. */
  closedLoop?: boolean;
  /** Undici loads only (paced or closedLoop): a 503 carrying Retry-After and the JSON-RPC capacity error (-31030) is a
   * request shed, counted apart (`refused`, `refusedLatencyMs`), not a failure. */
  shed?: boolean;
  /** Drive the endpoint through the MCP SDK 1.x client over this transport instead
   * (sdk-load.ts; closed loop, `request.tool` called with an echo message). */
  sdkTransport?: 'sse' | 'streamableHttp';
  /** Drive a 2024-11-05 HTTP+SSE endpoint with the raw session load generator instead
   * (sse-session-load.ts; closed loop, `request.tool` called with an echo message). */
  sseSession?: boolean;
}

export interface LoadResult {
  completed: number;
  failures: number;
  /** The first few reasons a reply was rejected (or a connection failed). */
  failureSamples: string[];
  errors: number;
  timeouts: number;
  non2xx: number;
  elapsedSec: number;
  /** Verified replies per second. */
  rps: number;
  latencyMs: LatencySummary;
  /** Requests shed with 503 (spec.shed), and how long their refusal took. */
  refused?: number;
  refusedLatencyMs?: LatencySummary;
  /** Undici loads: the replies of `latencyMs` timed from when each request was actually sent,
   * not from when it was due (the same in a closed loop). */
  sentLatencyMs?: LatencySummary;
  /** Paced loads: how late each request was sent after it was due, which is the client's own
   * delay (a stall of its process, or all its connections busy), charged to `latencyMs`. */
  sendLagMs?: LatencySummary;
}

/** JSON-RPC code of a capacity refusal (the gateway's over_capacity). */
const OVER_CAPACITY = -31030;

function isShed(status: number, retryAfter: unknown, body: string): boolean {
  if (status !== 503 || retryAfter === undefined) return false;
  try {
    return (JSON.parse(body) as { error?: { code?: number } }).error?.code === OVER_CAPACITY;
  } catch {
    return false;
  }
}

export type WorkerMessage = { type: 'run'; spec: LoadSpec } | { type: 'exit' };
export type WorkerReply = { type: 'result'; result: LoadResult } | { type: 'error'; message: string };

let nextId = 1;

interface Context {
  id?: number;
}

async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let failures = 0;
  let completed = 0;
  const failureSamples: string[] = [];
  const fail = (why: string): void => {
    failures++;
    if (failureSamples.length < MAX_SAMPLES) failureSamples.push(why);
  };
  let latencies = new Float64Array(1 << 16);
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: spec.durationSec,
        pipelining: 1,
        timeout: 10,
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
        method: 'POST',
        requests: [
          {
            method: 'POST',
            setupRequest: (request, context) => {
              const id = nextId++;
              (context as Context).id = id;
              const built = buildRequest(spec.request, id);
              return { ...request, headers: built.headers, body: built.body };
            },
            onResponse: (status, body, context) => {
              const id = (context as Context).id;
              const why = id === undefined ? 'reply without a request id in context' : checkReply(spec.request, id, status, body);
              if (why) fail(why);
            },
          },
        ],
      },
      (error: unknown, res: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(res)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      if (completed === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[completed++] = responseTime;
    });
    instance.on('reqError', (e: unknown) => fail(`request error: ${(e as Error).message ?? String(e)}`));
  });
  const elapsedSec = (performance.now() - started) / 1000;
  if (result.errors > 0 && failureSamples.length < MAX_SAMPLES) failureSamples.push(`${result.errors} connection errors`);
  return {
    completed,
    failures,
    failureSamples,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    elapsedSec,
    rps: (completed - failures) / elapsedSec,
    latencyMs: summarizeLatencies(latencies.subarray(0, completed)),
  };
}

/** Sends one request and checks its reply; `startedAt` is when its latency starts. */
type SendOne = (startedAt: number) => Promise<void>;

/** Load over one undici pool of `connections`, driven by `drive` (pacedLoad, closedLoad below):
 * every reply is checked as under autocannon, and with `spec.shed` a capacity refusal is
 * counted apart, with its own latency. */
async function undiciLoad(spec: LoadSpec, drive: (one: SendOne) => Promise<void>): Promise<LoadResult> {
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, { connections: spec.connections, pipelining: 1 });
  const t = startTally();
  const sentLatencies: number[] = [];
  const sendLags: number[] = [];
  const refusedLatencies: number[] = [];
  const one: SendOne = async (startedAt) => {
    const sentAt = performance.now();
    sendLags.push(sentAt - startedAt);
    const id = nextId++;
    const built = buildRequest(spec.request, id);
    try {
      const res = await pool.request({ path: url.pathname, method: 'POST', headers: built.headers, body: built.body, headersTimeout: 10_000, bodyTimeout: 10_000 });
      const body = await res.body.text();
      const answeredAt = performance.now();
      if (spec.shed && isShed(res.statusCode, res.headers['retry-after'], body)) {
        refusedLatencies.push(answeredAt - startedAt);
        return;
      }
      t.latencies.push(answeredAt - startedAt);
      sentLatencies.push(answeredAt - sentAt);
      if (res.statusCode < 200 || res.statusCode > 299) t.non2xx++;
      const why = checkReply(spec.request, id, res.statusCode, body);
      if (why) t.fail(why);
      else t.good++;
    } catch (e) {
      t.errors++;
      t.fail(`request error: ${(e as Error).message}`);
    }
  };
  const started = performance.now();
  await drive(one);
  const elapsedSec = (performance.now() - started) / 1000;
  await pool.close();
  return {
    ...tallyResult(t, elapsedSec),
    sentLatencyMs: summarizeLatencies(Float64Array.from(sentLatencies)),
    sendLagMs: summarizeLatencies(Float64Array.from(sendLags)),
    ...(spec.shed ? { refused: refusedLatencies.length, refusedLatencyMs: summarizeLatencies(Float64Array.from(refusedLatencies)) } : {}),
  };
}

/** Paced, open-loop load: request n is due at n / rate seconds, sent on time whatever the
 * earlier ones are doing (up to `connections` in flight, then it waits for one), and its
 * latency is counted from when it was due, so a stall is charged to every request it delays
 * (no coordinated omission). */
function pacedLoad(spec: LoadSpec, rate: number): Promise<LoadResult> {
  return undiciLoad(spec, async (one) => {
    const total = Math.floor(rate * spec.durationSec);
    const started = performance.now();
    const inFlight = new Set<Promise<void>>();
    for (let sent = 0; sent < total; ) {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - started) / 1000) * rate) + 1);
      for (; sent < due; sent++) {
        if (inFlight.size >= spec.connections) await Promise.race(inFlight);
        const p = one(started + (sent / rate) * 1000).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      const next = started + (sent / rate) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
    await Promise.all(inFlight);
  });
}

/** Closed loop on the paced load's client: each of `connections` sends its next request when
 * its last one is answered, for `durationSec`; latency from sending. Every request is answered
 * before it returns, so none is still held by the server when the next run starts. */
function closedLoad(spec: LoadSpec): Promise<LoadResult> {
  return undiciLoad(spec, async (one) => {
    const until = performance.now() + spec.durationSec * 1000;
    await Promise.all(
      Array.from({ length: spec.connections }, async () => {
        while (performance.now() < until) await one(performance.now());
      }),
    );
  });
}

process.on('message', (msg: WorkerMessage) => {
  if (msg.type === 'exit') {
    process.disconnect();
    return;
  }
  const { spec } = msg;
  const tool = spec.request.kind === 'tools/call' ? spec.request.tool : '';
  const run = spec.sdkTransport
    ? sdkLoad({ url: spec.url, transport: spec.sdkTransport, tool, connections: spec.connections, durationSec: spec.durationSec })
    : spec.sseSession
      ? sseSessionLoad({ url: spec.url, tool, connections: spec.connections, durationSec: spec.durationSec })
      : spec.pacedRate
        ? pacedLoad(spec, spec.pacedRate)
        : spec.closedLoop
          ? closedLoad(spec)
          : runLoad(spec);
  run.then(
    (result) => process.send?.({ type: 'result', result } satisfies WorkerReply),
    (e: unknown) => process.send?.({ type: 'error', message: (e as Error).message } satisfies WorkerReply),
  );
});
