// The HTTP ring and the JSON-RPC parse of the /mcp endpoint, end to end with raw fetch
// against a real gateway in front of a real modern upstream: Origin (MCP 2026-07-28, basic/transports/streamable-http), header and
// body limits (MCP 2026-07-28, basic/transports/streamable-http (request headers) suggested order), -32700/-32600 (MCP 2026-07-28, basic/index (messages)), Content-Type, and the health
// endpoints. The protocol rules of each era live in transport-modern / transport-legacy.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';

const MAX_BODY = 2048;
const ALLOWED = 'https://app.example.com';

let upstream: ModernUpstream;
let gw: TestGateway;
let degraded: TestGateway;

beforeAll(async () => {
  upstream = await startModernUpstream();
  gw = await startTestGateway(`
allowedOrigins: ["${ALLOWED}"]
limits: { maxBodyBytes: ${MAX_BODY}, maxHeaderCount: 30, maxHeaderBytes: 3000 }
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  // Port 1 on loopback refuses connections: an upstream that never comes up.
  degraded = await startTestGateway(`
upstreams:
  - { name: up, url: "${upstream.url}" }
  - { name: dead, url: "http://127.0.0.1:1/mcp", timeout: 500ms }
`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await degraded?.close();
  await upstream?.close();
});

const listHeaders = (extra: Record<string, string> = {}) => modernHeaders('tools/list', undefined, extra);
const listBody = () => modernBody(1, 'tools/list');

/** Asserts an error response: status, code, and that no id was invented. */
function expectError(res: { status: number; json: any }, status: number, code: number, message?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.json?.jsonrpc).toBe('2.0');
  expect(res.json?.error?.code).toBe(code);
  if (message) expect(res.json.error.message).toMatch(message);
}

describe('JSON-RPC parse (MCP 2026-07-28, basic/index (messages), a.6)', () => {
  it('answers malformed JSON with 400 / -32700 and no id', async () => {
    const res = await postJson(gw.url, '{"jsonrpc":"2.0","id":1,', listHeaders());
    expectError(res, 400, -32700, /Parse error/);
    expect(res.json.id ?? null).toBeNull();
  });

  it('refuses a batch array with 400 / -32600 (batches are not part of either era)', async () => {
    const res = await postJson(gw.url, [listBody(), modernBody(2, 'tools/list')], listHeaders());
    expectError(res, 400, -32600, /batch/i);
  });

  it.each([
    ['a non-object body', '"hello"', /object/],
    ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'tools/list' }, /jsonrpc/],
    ['a missing jsonrpc', { id: 1, method: 'tools/list' }, /jsonrpc/],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'tools/list' }, /"id"/],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'tools/list' }, /"id"/],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }, /"id"/],
    ['a numeric method', { jsonrpc: '2.0', id: 1, method: 42 }, /"method"/],
    ['an empty method', { jsonrpc: '2.0', id: 1, method: '' }, /"method"/],
    ['array params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] }, /"params"/],
    ['string params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'x' }, /"params"/],
    ['neither method nor result', { jsonrpc: '2.0', id: 1 }, /method/],
  ])('refuses %s with 400 / -32600', async (_label, body, message) => {
    const res = await postJson(gw.url, body, listHeaders());
    expectError(res, 400, -32600, message);
  });

  it('echoes a readable id when only the params shape is wrong (the id is known)', async () => {
    const res = await postJson(gw.url, { jsonrpc: '2.0', id: 'req-9', method: 'tools/list', params: [1] }, listHeaders());
    expectError(res, 400, -32600);
    expect(res.json.id).toBe('req-9');
  });
});

describe('Content-Type', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/json-seq'])('refuses %s with 415', async (type) => {
    const res = await postJson(gw.url, listBody(), listHeaders({ 'content-type': type }));
    expectError(res, 415, -32600, /Content-Type/);
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await postJson(gw.url, listBody(), listHeaders({ 'content-type': 'application/json; charset=utf-8' }));
    expect(res.status).toBe(200);
    expect(res.json.result.tools.map((t: { name: string }) => t.name)).toContain('up__echo');
  });
});

describe('body limit (limits.maxBodyBytes)', () => {
  const oversized = () => JSON.stringify(modernBody(1, 'tools/list', { pad: 'x'.repeat(MAX_BODY) }));

  it('refuses a body over the limit that declares its Content-Length with 413', async () => {
    const res = await postJson(gw.url, oversized(), listHeaders());
    expectError(res, 413, -32600, new RegExp(`${MAX_BODY} bytes`));
    // The rest of the body is not read: the connection ends with the answer.
    expect(res.headers.get('connection')).toBe('close');
  });

  it('refuses a chunked body without Content-Length once it passes the limit', async () => {
    const text = oversized();
    const res = await new Promise<{ status: number; json: any; chunked: boolean; connection?: string }>((resolve, reject) => {
      const req = httpRequest(gw.url, { method: 'POST', headers: listHeaders() }, (r) => {
        let data = '';
        r.on('data', (c: Buffer) => (data += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, json: JSON.parse(data), chunked: req.getHeader('content-length') === undefined, connection: r.headers.connection }));
      });
      req.on('error', reject);
      // Several writes and no Content-Length: Node sends Transfer-Encoding: chunked.
      for (let i = 0; i < text.length; i += 500) req.write(text.slice(i, i + 500));
      req.end();
    });
    expect(res.chunked).toBe(true);
    expectError(res, 413, -32600);
    expect(res.connection).toBe('close');
  });

  it('accepts a body just under the limit', async () => {
    const body = modernBody(1, 'tools/list', { pad: 'x'.repeat(MAX_BODY - 400) });
    expect(JSON.stringify(body).length).toBeLessThan(MAX_BODY);
    const res = await postJson(gw.url, body, listHeaders());
    expect(res.status).toBe(200);
  });
});

describe('header limits (431, before any parsing)', () => {
  it('refuses too many headers with 431', async () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x-pad-${i}`, 'v']));
    const res = await postJson(gw.url, '{not json', listHeaders(many));
    expectError(res, 431, -32600, /Too many request headers/);
  });

  it('refuses headers whose total size is over the limit with 431', async () => {
    const res = await postJson(gw.url, '{not json', listHeaders({ 'x-big': 'b'.repeat(3000) }));
    expectError(res, 431, -32600, /too large/);
  });
});

describe('Origin (MCP 2026-07-28, basic/transports/streamable-http: 403 for an invalid Origin)', () => {
  it.each(['https://evil.example', 'null', 'https://app.example.com.evil.example', 'http://localhost.evil.example'])(
    'refuses Origin %s with 403 and a JSON-RPC error without id',
    async (origin) => {
      const res = await postJson(gw.url, listBody(), listHeaders({ origin }));
      expectError(res, 403, -32600, /Origin not allowed/);
      expect('id' in res.json).toBe(false);
    },
  );

  it('checks Origin before parsing the body and on GET too', async () => {
    const bad = await postJson(gw.url, '{not json', listHeaders({ origin: 'https://evil.example' }));
    expect(bad.status).toBe(403);
    const get = await fetch(gw.url, { headers: { origin: 'https://evil.example', accept: 'text/event-stream' } });
    expect(get.status).toBe(403);
    await get.body?.cancel();
  });

  it.each(['http://localhost:5173', 'http://127.0.0.1:9999', 'http://[::1]:3000', ALLOWED])('serves Origin %s', async (origin) => {
    const res = await postJson(gw.url, listBody(), listHeaders({ origin }));
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(1);
    expect(res.json.result.resultType).toBe('complete');
  });
});

describe('HTTP surface', () => {
  it('answers other HTTP methods on /mcp with 405 and an Allow header', async () => {
    const res = await fetch(gw.url, { method: 'PUT', headers: listHeaders(), body: JSON.stringify(listBody()) });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, DELETE');
    expect((await res.json()).error.code).toBe(-32600);
  });

  it('/healthz is 200', async () => {
    const res = await fetch(new URL('/healthz', gw.url));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is 200 with the status of each upstream', async () => {
    const res = await fetch(new URL('/readyz', gw.url));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.status).toBe('ready');
    expect(body.upstreams).toEqual([expect.objectContaining({ name: 'up', state: 'up' })]);
  });

  it('/readyz stays 200 with one upstream down and reports which one', async () => {
    const state = (name: string) => degraded.upstreams.find((u) => u.name === name)?.status().state;
    await expect.poll(() => [state('up'), state('dead')], { timeout: 5000 }).toEqual(['up', 'down']);
    const res = await fetch(new URL('/readyz', degraded.url));
    expect(res.status).toBe(200);
    const body = await res.json();
    const states = Object.fromEntries(body.upstreams.map((u: { name: string; state: string }) => [u.name, u.state]));
    expect(states.up).toBe('up');
    expect(states.dead).toBe('down');
    expect(body.upstreams.find((u: { name: string }) => u.name === 'dead').lastError).toBeTruthy();
  });

  it('answers an unknown path with 404', async () => {
    const res = await fetch(new URL('/nope', gw.url));
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatch(/\/mcp/);
  });
});
