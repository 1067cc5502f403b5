// The HTTP listener in front of the /mcp endpoint (src/http/listener.ts), on a real Node server on
// 127.0.0.1: /mcp goes to the endpoint on Node's request/response, query strings included;
// every other path goes to the Hono app; an endpoint that fails answers a JSON-RPC 500
// without details and logs what happened.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';
import { buildListener } from '../../src/http/listener.ts';
import type { HttpReply, HttpRequest } from '../../src/http/http-io.ts';
import { closeServer } from '../harness/close-server.ts';

const config = parseConfig('upstreams: []\n', '/tmp/listener-test.yaml', {}, { host: '127.0.0.1', port: 0 });
let server: Server | undefined;
/** Node's own view of the latest request, to see when its body has all arrived. */
let incoming: IncomingMessage | undefined;

async function serve(mcp: (req: HttpRequest) => Promise<HttpReply>) {
  const { logger, lines } = createMemoryLogger();
  server = createServer(buildListener({ config, upstreams: [], mcp, logger }));
  server.prependListener('request', (req: IncomingMessage) => void (incoming = req));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines };
}

afterEach(async () => {
  await closeServer(server);
  server = undefined;
});

describe('the /mcp listener', () => {
  it('hands /mcp, with or without a query, to the endpoint with its method, headers and body', async () => {
    const seen: string[] = [];
    const { base } = await serve(async (req) => {
      const body = await req.readBody(1000, 30_000);
      seen.push(`${req.method} ${req.header('X-Probe')} ${body.ok ? body.value : 'error'}`);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
    });
    for (const path of ['/mcp', '/mcp?tenant=a']) {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'x-probe': 'p' }, body: 'hello' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe('11');
      expect(await res.json()).toEqual({ ok: true });
    }
    expect(seen).toEqual(['POST p hello', 'POST p hello']);
  });

  it('sends other paths to the app: /healthz answers, /mcp/ is not the endpoint', async () => {
    const { base } = await serve(async () => ({ status: 200, body: 'endpoint' }));
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const other = await fetch(`${base}/mcp/`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
    expect((await other.json()).error).toMatch(/the MCP endpoint is \/mcp/);
  });

  it('answers a JSON-RPC 500 without the failure\'s details when the endpoint fails, and logs it', async () => {
    const { base, lines } = await serve(async () => {
      throw new Error('secret internals');
    });
    const res = await fetch(`${base}/mcp`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } });
    expect(JSON.stringify(body)).not.toContain('secret internals');
    expect(lines.some((l) => l.msg === 'request failed' && l.error === 'secret internals')).toBe(true);
  });
});

describe('reading the body', () => {
  let reading: () => void = () => undefined;
  /** An endpoint that reads the body under `limit` (once all of it has arrived, if
   * `whole`) and says how it went; `reading` is called once the read is under way. */
  const reader = (whole: boolean, limit: number) => async (req: HttpRequest): Promise<HttpReply> => {
    if (whole) await vi.waitUntil(() => incoming?.complete, { timeout: 2000, interval: 5 });
    const pending = req.readBody(limit, 30_000);
    const sync = !(pending instanceof Promise);
    reading();
    const body = await pending;
    return { status: 200, body: JSON.stringify({ sync, ok: body.ok, value: body.ok ? body.value : body.error.kind }) };
  };

  /** POSTs `parts` without Content-Length (chunked); with `afterRead`, each part after the
   * first only once the endpoint reads, so that the body is still arriving then. */
  const postChunked = (url: string, parts: string[], afterRead = false) =>
    new Promise<any>((resolve, reject) => {
      const read = new Promise<void>((r) => (reading = r));
      const req = httpRequest(url, { method: 'POST' }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(JSON.parse(text)));
      });
      req.on('error', reject);
      void (async () => {
        for (const [i, p] of parts.entries()) {
          if (i === 1 && afterRead) await read;
          req.write(p);
        }
        req.end();
      })();
    });

  it('takes a body that has fully arrived in one synchronous read', async () => {
    const { base } = await serve(reader(true, 1000));
    const res = await fetch(`${base}/mcp`, { method: 'POST', body: '{"jsonrpc":"2.0"}' });
    expect(await res.json()).toEqual({ sync: true, ok: true, value: '{"jsonrpc":"2.0"}' });
  });

  it('refuses a fully arrived chunked body over the limit', async () => {
    const { base } = await serve(reader(true, 10));
    expect(await postChunked(`${base}/mcp`, ['0123456789', 'abcdef'])).toEqual({ sync: true, ok: false, value: 'body_too_large' });
  });

  it('streams a body still arriving, and cuts it off once it passes the limit', async () => {
    const { base } = await serve(reader(false, 25));
    expect(await postChunked(`${base}/mcp`, ['0123456789', '0123456789'], true)).toEqual({ sync: false, ok: true, value: '01234567890123456789' });
    expect(await postChunked(`${base}/mcp`, ['0123456789', '0123456789', '0123456789'], true)).toEqual({ sync: false, ok: false, value: 'body_too_large' });
  });

  it('settles with an error when the client goes away in the middle of the body', async () => {
    const results: unknown[] = [];
    let arrived!: () => void;
    const started = new Promise<void>((r) => (arrived = r));
    const { base } = await serve(async (req) => {
      arrived();
      const body = await req.readBody(1000, 30_000);
      results.push(body.ok ? body.value : body.error.kind);
      return { status: 400 };
    });
    const req = httpRequest(`${base}/mcp`, { method: 'POST' });
    req.on('error', () => undefined);
    req.write('{"jsonrpc":');
    // The request is at the endpoint, its body begun and not finished.
    await started;
    req.destroy();
    await expect.poll(() => results, { timeout: 2000 }).toEqual(['invalid_request']);
  });
});
