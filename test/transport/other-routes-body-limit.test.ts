// Routes other than /mcp (the Hono app in src/http/listener.ts) have a body limit of their own, on a
// real listener on 127.0.0.1: a route that reads its body never sees more than the limit,
// declared or chunked, and the 413 closes the connection.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { OTHER_ROUTES_MAX_BODY_BYTES } from '../../src/http/body-limit.ts';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';
import { buildListener } from '../../src/http/listener.ts';
import { closeServer } from '../harness/close-server.ts';

const config = parseConfig('upstreams: []\n', '/tmp/body-limit-test.yaml', {}, { host: '127.0.0.1', port: 0 });
let server: Server | undefined;
let bytesSeen: number[] = [];

async function serve(): Promise<URL> {
  // A route that reads whatever it is given, as a callback handler does before checking it.
  const reader = new Hono().post('/reader', async (c) => {
    const body = await c.req.arrayBuffer();
    bytesSeen.push(body.byteLength);
    return c.json({ bytes: body.byteLength });
  });
  const { logger } = createMemoryLogger();
  server = createServer(buildListener({ config, upstreams: [], mcp: async () => ({ status: 204, body: '' }), logger, extraRoutes: [reader] }));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/reader`);
}

afterEach(async () => {
  bytesSeen = [];
  await closeServer(server);
  server = undefined;
});

/** Streams up to `total` bytes chunked, stopping once an answer arrives. */
function postChunked(url: URL, total: number): Promise<{ status: number; body: string; sent: number; connection?: string }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST' }, (res) => {
      answered = true;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sent, ...(res.headers.connection ? { connection: res.headers.connection } : {}) }));
    });
    req.on('error', (e) => (answered ? undefined : reject(e)));
    const piece = Buffer.alloc(16 * 1024, 0x62);
    const pump = (): void => {
      while (!answered && sent < total) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('the body limit of routes other than /mcp', () => {
  it('passes a body within the limit to the route', async () => {
    const url = await serve();
    const ok = await postChunked(url, OTHER_ROUTES_MAX_BODY_BYTES);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ bytes: OTHER_ROUTES_MAX_BODY_BYTES });
  });

  it('refuses a chunked body once it passes the limit, before the route reads it, and closes the connection', async () => {
    const url = await serve();
    const res = await postChunked(url, 16 * 1024 * 1024);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'too_large', message: `the request body is over ${OTHER_ROUTES_MAX_BODY_BYTES} bytes` });
    expect(res.connection).toBe('close');
    expect(res.sent).toBeLessThan(16 * 1024 * 1024);
    expect(bytesSeen).toEqual([]);
  });

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    const url = await serve();
    const res = await fetch(url, { method: 'POST', body: 'x'.repeat(OTHER_ROUTES_MAX_BODY_BYTES + 1) });
    expect(res.status).toBe(413);
    expect(bytesSeen).toEqual([]);
  });
});
