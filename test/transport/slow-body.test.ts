// A client that sends its headers and then trickles (or withholds) its body is cut off at
// limits.bodyTimeout: 408 with a JSON-RPC error naming the limit, the connection closed, an
// audit record and a count in gatehouse_limit_hits_total. Node alone held such a request for
// its requestTimeout (300 s). Raw sockets on a real gateway; the deadline is set low here, and
// the test waits for the gateway's answer (an event), not for time to pass.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { openSocket, parseResponse } from './raw-http.ts';

let gw: TestGateway;
const auditDir = mkdtempSync(join(tmpdir(), 'gatehouse-slow-body-'));

useGatewayBed({
  upstream: () => startModernUpstream(),
  config: (upstream) => `
limits: { bodyTimeout: 300ms }
audit: { dir: "${auditDir}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
`,
  ready: (bed) => ({ gw } = bed),
});

const BODY = JSON.stringify(modernBody(1, 'tools/list'));
const HEAD = [
  'POST /mcp HTTP/1.1',
  'host: 127.0.0.1',
  'content-type: application/json',
  'accept: application/json, text/event-stream',
  'mcp-protocol-version: 2026-07-28',
  'mcp-method: tools/list',
  `content-length: ${Buffer.byteLength(BODY)}`,
].join('\r\n');

/** Sends the head and `parts` of the body, each in its own write; resolves with the response
 * and whether the gateway closed the connection after it. */
async function send(parts: string[]): Promise<{ status: number; headers: Record<string, string>; json: any }> {
  const socket = await openSocket(gw.port);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.write(`${HEAD}\r\n\r\n`);
  for (const p of parts) socket.write(p);
  // A whole body gets its answer on a connection that stays open: end it from this side then.
  if (parts.join('') === BODY) {
    await new Promise<void>((r) => socket.on('data', () => (Buffer.concat(chunks).includes('"jsonrpc"') ? r() : undefined)));
    socket.end();
  }
  await closed;
  const res = parseResponse(Buffer.concat(chunks).toString('utf8'));
  return { status: res.status, headers: res.headers, json: JSON.parse(res.body) };
}

/** The records written so far: none yet is an empty (or absent) file, not an error. */
const records = (): Record<string, any>[] => {
  const file = join(auditDir, 'gatehouse-audit.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
};

async function limitHits(): Promise<number> {
  const text = await (await fetch(new URL('/metrics', gw.url))).text();
  return Number(/^gatehouse_limit_hits_total\{limit="bodyTimeout"\} (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

describe('a body that does not arrive within limits.bodyTimeout', () => {
  it('gets 408 with a JSON-RPC error naming the limit, and the connection closes', async () => {
    const before = await limitHits();
    const before408 = records().filter((r) => r.errorCode === -32600).length;
    // Half the body, then nothing: the gateway must not wait for the rest for long.
    const res = await send([BODY.slice(0, 20)]);
    expect(res.status).toBe(408);
    expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Request body not received within 300 ms (limits.bodyTimeout)' } });
    expect(res.headers.connection).toBe('close');
    expect(await limitHits()).toBe(before + 1);
    await expect.poll(() => records().filter((r) => r.errorCode === -32600).length).toBe(before408 + 1);
  });

  it('does not touch a body that arrives in pieces within the deadline', async () => {
    const res = await send([BODY.slice(0, 20), BODY.slice(20)]);
    expect(res.status).toBe(200);
    expect(res.json.result.tools.length).toBeGreaterThan(0);
  });
});
