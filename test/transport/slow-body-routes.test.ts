// The routes other than /mcp (the approvals console and callbacks, health, readiness, metrics)
// have a body-read deadline too: limits.bodyTimeout. A client that sends its headers and then
// trickles or withholds the body gets 408 naming the limit and the connection closes; when a
// route answered without reading the body (a 404 here), the connection is closed at the
// deadline rather than held for the rest of a body that never comes. Node alone held both for
// its requestTimeout (300 s). Raw sockets on real listeners; the deadline is set low, and the
// tests wait for the listener's answer and close (events), not for time to pass.
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { buildListener } from '../../src/http/listener.ts';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';
import { startModernUpstream } from '../fixtures/modern-upstream.ts';
import { closeServer } from '../harness/close-server.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { metricValue } from '../harness/metrics.ts';
import { openSocket, parseResponse } from './raw-http.ts';

/** Writes `head` and then `parts` of the body, each its own write; resolves with the response
 * once the listener closes the connection. `whole`: the body was sent whole, so the client
 * ends the connection itself once it has the answer. */
async function send(port: number, head: string, parts: string[], whole = false): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const socket = await openSocket(port);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.write(`${head}\r\n\r\n`);
  for (const p of parts) socket.write(p);
  if (whole) {
    await new Promise<void>((r) => socket.on('data', () => (Buffer.concat(chunks).includes('\r\n\r\n{') ? r() : undefined)));
    socket.end();
  }
  await closed;
  return parseResponse(Buffer.concat(chunks).toString('utf8'));
}

const BODY = JSON.stringify({ decision: 'approve', note: 'looks fine' });
const head = (path: string): string => [`POST ${path} HTTP/1.1`, 'host: 127.0.0.1', 'content-type: application/json', `content-length: ${Buffer.byteLength(BODY)}`].join('\r\n');

describe('a route that reads its body', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const config = parseConfig('limits: { bodyTimeout: 300ms }\nupstreams: []\n', '/tmp/slow-body-routes.yaml', {}, { host: '127.0.0.1', port: 0 });
    // A route that reads its whole body first, as the console's and callbacks' handlers do.
    const reader = new Hono().post('/reader', async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }));
    server = createServer(buildListener({ config, upstreams: [], mcp: async () => ({ status: 204 }), logger: createMemoryLogger().logger, extraRoutes: [reader] }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await closeServer(server);
  });

  it('gets 408 naming limits.bodyTimeout when the body does not arrive in time, and the connection closes', async () => {
    const res = await send(port, head('/reader'), [BODY.slice(0, 10)]);
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({ error: 'body_timeout', message: 'the request body was not received within 300 ms (limits.bodyTimeout)' });
  });

  it('does not touch a body that arrives in pieces within the deadline', async () => {
    const res = await send(port, head('/reader'), [BODY.slice(0, 10), BODY.slice(10)], true);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ bytes: Buffer.byteLength(BODY) });
  });
});

describe('a route that answers without reading the body, on a running gateway', () => {
  let gw: TestGateway;
  useGatewayBed({
    upstream: () => startModernUpstream(),
    config: (up) => `
limits: { bodyTimeout: 300ms }
upstreams:
  - { name: up, url: "${up.url}" }
`,
    ready: (bed) => ({ gw } = bed),
  });

  it('closes the connection at the deadline instead of waiting for the rest of the body, and counts it', async () => {
    const before = await metricValue(gw.url, 'gatehouse_limit_hits_total', { limit: 'bodyTimeout' });
    const res = await send(gw.port, head('/approvals/nowhere'), [BODY.slice(0, 10)]);
    expect(res.status).toBe(404);
    expect(await metricValue(gw.url, 'gatehouse_limit_hits_total', { limit: 'bodyTimeout' })).toBe(before! + 1);
    expect(gw.logs.find((l) => l.msg === 'request body not received in time')).toMatchObject({ path: '/approvals/nowhere', limit: 'bodyTimeout', timeoutMs: 300 });
  });
});
