// A client that stops reading a relayed big result (README, Big results relayed as they come): the gateway, a real
// `gatehouse serve` process, pauses its upstream instead of taking the result in, so its peak
// RSS grows by far less than the result and only what the client's socket took is written;
// when the upstream's timeout ends the call, the record says so. The peak is the process's own
// high-water mark (VmHWM, reset before the call), read once the call's audit record is
// written: a bound, not a speed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killStarted, startServe, type CliRun } from '../harness/cli-process.ts';
import { startBigResultUpstream, type BigResultUpstream } from '../fixtures/big-result-upstream.ts';

const MB = 1_000_000;
/** Well past what the kernel's socket buffers on loopback can take between them, below limits.maxUpstreamAnswerBytes. */
const RESULT = 56 * MB;
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-backpressure-'));
let up: BigResultUpstream;
let gateway: CliRun;
let mcp: string;
let client: Socket | undefined;

beforeAll(async () => {
  up = await startBigResultUpstream('legacy');
  const file = join(dir, 'gatehouse.yaml');
  writeFileSync(file, `
upstreams:
  - { name: big, url: "${up.url}", timeout: 8s }
audit:
  dir: ${dir}
  record: { results: none }
`);
  ({ run: gateway, mcp } = await startServe(file, dir));
}, 30_000);

afterAll(async () => {
  client?.destroy();
  killStarted();
  await up?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A memory figure of the gateway process, in bytes (Linux /proc). */
function status(field: 'VmHWM' | 'VmRSS'): number {
  const text = readFileSync(`/proc/${gateway.child.pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text)![1]) * 1024;
}
const peakRss = (): number => status('VmHWM');
const rss = (): number => status('VmRSS');

function records(): Record<string, any>[] {
  const file = join(dir, 'gatehouse-audit.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.type === 'request');
}

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A 2025-11-25 session's headers (initialize and notifications/initialized done). */
async function legacySession(): Promise<Record<string, string>> {
  const init = await fetch(mcp, { method: 'POST', headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
  await init.text();
  const headers = { ...LEGACY_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  await (await fetch(mcp, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return headers;
}

const callBody = (id: string, bytes: number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big__text', arguments: { bytes } } });

async function fetchWhole(session: Record<string, string>, id: string, bytes: number): Promise<number> {
  const res = await fetch(mcp, { method: 'POST', headers: session, body: callBody(id, bytes) });
  return (await res.arrayBuffer()).byteLength;
}

describe('a client that stops reading a relayed result', () => {
  it('pauses the upstream: the gateway holds a small part of the result, never all of it', async () => {
    // Warm: the relay's code has run and the heap has grown to what a relayed call needs.
    const session = await legacySession();
    expect(await fetchWhole(session, 'warm-1', 2 * MB)).toBeGreaterThan(2 * MB);
    expect(await fetchWhole(session, 'warm-2', 2 * MB)).toBeGreaterThan(2 * MB);
    const before = rss();
    // From here the high-water mark is the peak of this call alone (proc(5): clear_refs).
    writeFileSync(`/proc/${gateway.child.pid}/clear_refs`, '5');

    const url = new URL(mcp);
    const body = callBody('stalled', RESULT);
    const head = Object.entries({ ...session, host: url.host, 'content-length': String(Buffer.byteLength(body)) }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    client = connect(Number(url.port), '127.0.0.1');
    // Sends the request, then reads nothing: what the gateway writes waits in the socket buffers.
    client.pause();
    client.write(`POST ${url.pathname} HTTP/1.1\r\n${head}\r\n${body}`);

    // The upstream's timeout (8 s) ends the call: the relay was paused all that while.
    await expect.poll(() => records().find((r) => r.rpcId === 'stalled'), { timeout: 30_000, interval: 100 }).toMatchObject({ outcome: 'error', relayed: true, errorCode: -31002 });
    // Only what the client's socket took was written to it; the rest never left the upstream.
    expect(records().find((r) => r.rpcId === 'stalled')!.responseBytes).toBeLessThan(RESULT / 4);
    // Far less than the result: it was never in the gateway whole (the buffered path holds it 3 to 5 times).
    expect(peakRss() - before).toBeLessThan(RESULT / 2);
  }, 40_000);
});
