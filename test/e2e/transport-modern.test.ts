// The 2026-07-28 rules of /mcp, end to end with raw fetch against a real gateway in front of
// the real modern fixture: version negotiation (MCP 2026-07-28, basic/versioning), required _meta (MCP 2026-07-28, basic/index (request _meta)), the
// standard and Mcp-Param-* headers ((MCP 2026-07-28, basic/transports/streamable-http (request headers)), c), status codes (MCP 2026-07-28, basic/index (error codes)).
// Streams (listen, progress, cancellation) are in transport-modern-streams.test.ts.
import { describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { useOneUpstreamBed } from '../harness/gateway-bed.ts';

let upstream: ModernUpstream;
let gw: TestGateway;

useOneUpstreamBed('up', () => startModernUpstream(), (bed) => ({ upstream, gw } = bed));

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';

const sentinel = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

function expectError(res: { status: number; json: any }, status: number, code: number, message?: RegExp, id?: number | string): void {
  expect(res.status).toBe(status);
  expect(res.json?.error?.code).toBe(code);
  if (message) expect(res.json.error.message).toMatch(message);
  if (id !== undefined) expect(res.json.id).toBe(id);
}

const call = (id: number | string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  modernBody(id, 'tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) });

describe('version negotiation (MCP 2026-07-28, basic/versioning, b.4)', () => {
  it('answers a POST without MCP-Protocol-Version with 400 / -32020', async () => {
    const { 'mcp-protocol-version': _, ...headers } = modernHeaders('tools/list');
    const res = await postJson(gw.url, modernBody(1, 'tools/list'), headers);
    expectError(res, 400, -32020, /MCP-Protocol-Version/, 1);
  });

  it.each(['1900-01-01', '2025-11-25'])('answers header version %s with 400 / -32022 listing what is supported', async (v) => {
    const res = await postJson(gw.url, modernBody(2, 'tools/list'), modernHeaders('tools/list', undefined, { 'mcp-protocol-version': v }));
    expectError(res, 400, -32022, undefined, 2);
    expect(res.json.error.data.requested).toBe(v);
    expect(res.json.error.data.supported).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25']));
  });

  it('answers an unsupported version in header and _meta alike with -32022 naming it', async () => {
    const body = modernBody(3, 'tools/list', { _meta: { [META_VERSION]: '2099-01-01' } });
    const res = await postJson(gw.url, body, modernHeaders('tools/list', undefined, { 'mcp-protocol-version': '2099-01-01' }));
    expectError(res, 400, -32022);
    expect(res.json.error.data).toEqual({ supported: expect.arrayContaining(['2026-07-28', '2025-11-25']), requested: '2099-01-01' });
  });

  it('answers a header and _meta that name different versions with -32020, even when the _meta one is unsupported', async () => {
    const body = modernBody(4, 'tools/list', { _meta: { [META_VERSION]: '2099-01-01' } });
    const res = await postJson(gw.url, body, modernHeaders('tools/list'));
    expectError(res, 400, -32020, /protocol ?version|MCP-Protocol-Version/i, 4);
  });
});

describe("an upstream's error keeps its HTTP meaning (MCP 2026-07-28, basic/transports/streamable-http)", () => {
  it('relays the upstream 400 / -32021 for a capability the client did not declare, with its data', async () => {
    const res = await postJson(gw.url, call(6, 'up__elicit', {}), modernHeaders('tools/call', 'up__elicit'));
    expectError(res, 400, -32021, undefined, 6);
    expect(res.json.error.data.requiredCapabilities).toHaveProperty('elicitation');
  });
});

describe('initialize in 2026-07-28 (MCP 2026-07-28, basic/lifecycle: no handshake)', () => {
  it('answers initialize with modern headers and _meta as an unknown method (404 / -32601), opening no session', async () => {
    const body = modernBody(5, 'initialize', { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } });
    const res = await postJson(gw.url, body, modernHeaders('initialize'));
    expectError(res, 404, -32601, undefined, 5);
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });
});

describe('required _meta (MCP 2026-07-28, basic/index (request _meta): -32602 with HTTP 400)', () => {
  it.each([
    ['no _meta', undefined, /protocolVersion/],
    ['no params at all', 'no-params', /protocolVersion/],
    ['no protocolVersion', { [META_CAPS]: {} }, /protocolVersion/],
    ['no clientCapabilities', { [META_VERSION]: '2026-07-28' }, /clientCapabilities/],
    ['clientCapabilities that is not an object', { [META_VERSION]: '2026-07-28', [META_CAPS]: 'all' }, /clientCapabilities/],
  ])('answers %s with 400 / -32602', async (_label, meta, message) => {
    const params = meta === 'no-params' ? {} : { params: meta === undefined ? {} : { _meta: meta } };
    const body = { jsonrpc: '2.0', id: 4, method: 'tools/list', ...params };
    const res = await postJson(gw.url, body, modernHeaders('tools/list'));
    expectError(res, 400, -32602, message, 4);
  });
});

describe('optional _meta keys of RequestMetaObject (MCP 2026-07-28, basic/index (request _meta), a.6: "bad logLevel" is -32602)', () => {
  it.each([
    ['a logLevel outside LoggingLevel', 'tools/list', { 'io.modelcontextprotocol/logLevel': 'verbose' }, /logLevel/],
    ['a progressToken that is an object', 'tools/call', { progressToken: { a: 1 } }, /progressToken/],
    ['a progressToken that is not an integer', 'tools/call', { progressToken: 1.5 }, /progressToken/],
    ['a clientInfo that is not an Implementation', 'tools/call', { 'io.modelcontextprotocol/clientInfo': 'me' }, /clientInfo/],
  ])('answers %s with -32602, before any upstream sees it', async (_label, method, meta, message) => {
    const before = upstream.received.length;
    const params = method === 'tools/call' ? { name: 'up__echo', arguments: { message: 'm' }, _meta: meta } : { _meta: meta };
    const res = await postJson(gw.url, modernBody(41, method, params), modernHeaders(method, method === 'tools/call' ? 'up__echo' : undefined));
    expect(res.json?.error?.code).toBe(-32602);
    expect(res.json.error.message).toMatch(message);
    expect(res.json.id).toBe(41);
    expect(upstream.received.slice(before).filter((r) => (r.body as any)?.method === method)).toEqual([]);
  });

  it('accepts every valid form: a known logLevel, integer and string progressTokens, a full clientInfo', async () => {
    for (const meta of [{ 'io.modelcontextprotocol/logLevel': 'debug' }, { progressToken: 7 }, { progressToken: 'p' }, { 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1', title: 'C' } }]) {
      const res = await postJson(gw.url, modernBody(42, 'tools/call', { name: 'up__echo', arguments: { message: 'ok' }, _meta: meta }), modernHeaders('tools/call', 'up__echo'));
      const text = res.headers.get('content-type')?.startsWith('text/event-stream') ? res.text : JSON.stringify(res.json);
      expect(text).toContain('"resultType":"complete"');
    }
  });
});

describe('standard headers (MCP 2026-07-28, basic/transports/streamable-http (request headers), b.5)', () => {
  it('answers a missing Mcp-Method with 400 / -32020', async () => {
    const { 'mcp-method': _, ...headers } = modernHeaders('tools/list');
    expectError(await postJson(gw.url, modernBody(5, 'tools/list'), headers), 400, -32020, /Mcp-Method/);
  });

  it('compares Mcp-Method case-sensitively', async () => {
    const res = await postJson(gw.url, modernBody(5, 'tools/list'), modernHeaders('TOOLS/LIST'));
    expectError(res, 400, -32020, /Mcp-Method.*'TOOLS\/LIST'.*'tools\/list'/);
  });

  const NAMED: Array<[string, Record<string, unknown>, string, (r: any) => boolean]> = [
    ['tools/call', { name: 'up__echo', arguments: { message: 'hi' } }, 'up__echo', (r) => r.content[0].text === 'hi'],
    ['prompts/get', { name: 'up__greet', arguments: { name: 'alice' } }, 'up__greet', (r) => /Hello, alice/.test(r.messages[0].content.text)],
    ['resources/read', { uri: 'mem://shared/readme' }, 'mem://shared/readme', (r) => r.contents[0].text === 'modern readme'],
  ];

  it.each(NAMED)('%s without Mcp-Name is 400 / -32020, with a different one too', async (method, params) => {
    const missing = await postJson(gw.url, modernBody(6, method, params), modernHeaders(method));
    expectError(missing, 400, -32020, /missing header Mcp-Name/);
    const wrong = await postJson(gw.url, modernBody(6, method, params), modernHeaders(method, 'something-else'));
    expectError(wrong, 400, -32020, /Mcp-Name header value 'something-else' does not match/);
  });

  it.each(NAMED)('%s accepts a Base64-sentinel Mcp-Name that decodes to the body value', async (method, params, name, check) => {
    const res = await postJson(gw.url, modernBody(7, method, params), modernHeaders(method, sentinel(name)));
    expect([res.status, res.json.id, check(res.json.result)]).toEqual([200, 7, true]);
  });

  it('refuses a raw non-ASCII Mcp-Name even when it equals the body (b.4 rule 3)', async () => {
    const res = await postJson(gw.url, call(8, 'café', {}), modernHeaders('tools/call', 'café'));
    expectError(res, 400, -32020, /invalid characters/);
  });

  it('ignores Mcp-Name on a method that has no name (the spec defines none there)', async () => {
    const res = await postJson(gw.url, modernBody(8, 'tools/list'), modernHeaders('tools/list', 'whatever'));
    expect(res.status).toBe(200);
    expect(res.json.result.tools.map((t: { name: string }) => t.name)).toContain('up__query');
  });

  it('refuses an Mcp-Name sentinel with broken Base64', async () => {
    const res = await postJson(gw.url, call(8, 'up__echo', { message: 'x' }), modernHeaders('tools/call', '=?base64?!!!?='));
    expectError(res, 400, -32020, /Mcp-Name/);
  });
});

describe('Mcp-Param-* for x-mcp-header arguments (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters)', () => {
  const args = { region: 'us-west1', query: 'q', limit: 5 };
  const post = (headers: Record<string, string>, a: Record<string, unknown> = args) =>
    postJson(gw.url, call(9, 'up__query', a), modernHeaders('tools/call', 'up__query', headers));

  it('forwards a call whose headers mirror the body, comparing integers numerically', async () => {
    const res = await post({ 'mcp-param-region': 'us-west1', 'mcp-param-limit': '5.0' });
    expect(res.status).toBe(200);
    expect(res.json.result.content[0].text).toBe('us-west1:q:5');
    const seen = upstream.received.filter((r) => r.headers['mcp-name'] === 'query').at(-1)!;
    expect(seen.headers['mcp-param-region']).toBe('us-west1');
  });

  it('accepts a Base64-sentinel Mcp-Param value', async () => {
    const res = await post({ 'mcp-param-region': sentinel('Hello, 世界'), 'mcp-param-limit': '5' }, { ...args, region: 'Hello, 世界' });
    expect(res.status).toBe(200);
    expect(res.json.result.content[0].text).toBe('Hello, 世界:q:5');
  });

  it.each([
    ['a mismatched Region', { 'mcp-param-region': 'eu-west1', 'mcp-param-limit': '5' }, /Mcp-Param-Region header value 'eu-west1' does not match/],
    ['a missing Limit', { 'mcp-param-region': 'us-west1' }, /missing header Mcp-Param-Limit/],
    ['a non-integer Limit', { 'mcp-param-region': 'us-west1', 'mcp-param-limit': 'five' }, /Mcp-Param-Limit/],
  ])('answers %s with 400 / -32020 naming the header', async (_label, headers, message) => {
    const before = upstream.received.length;
    const res = await post(headers);
    expectError(res, 400, -32020, message, 9);
    expect(upstream.received.slice(before).some((r) => r.headers['mcp-name'] === 'query')).toBe(false);
  });

  it('refuses an Mcp-Param header for an absent argument', async () => {
    const res = await post({ 'mcp-param-region': 'us-west1', 'mcp-param-limit': '5' }, { region: 'us-west1', query: 'q' });
    expectError(res, 400, -32020, /Mcp-Param-Limit header is present but argument limit is absent/);
  });
});

describe('methods and message kinds (MCP 2026-07-28, basic/index (messages), b.1, b.2)', () => {
  // `ping` is legacy-only; id 0 checks that a falsy id is echoed, not dropped.
  it.each([['nope/nothing', 10], ['ping', 0], ['initialize/extra', 'x']])('answers unknown method %s with 404 / -32601 (id %j)', async (method, id) => {
    const res = await postJson(gw.url, modernBody(id, method), modernHeaders(method));
    expectError(res, 404, -32601, new RegExp(method), id);
  });

  it('ignores a stale Mcp-Session-Id on a modern request, and never mints or echoes one (b.6)', async () => {
    const headers = modernHeaders('tools/list', undefined, { 'mcp-session-id': 'stale-session-from-elsewhere' });
    const res = await postJson(gw.url, modernBody(13, 'tools/list'), headers);
    expect(res.status).toBe(200);
    expect(res.json.result.tools.length).toBeGreaterThan(0);
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });

  it('answers an unknown tool with -32602 "Unknown tool" (200: the spec leaves the status open)', async () => {
    const res = await postJson(gw.url, call(11, 'up__nope', {}), modernHeaders('tools/call', 'up__nope'));
    expectError(res, 200, -32602, /Unknown tool: up__nope/);
  });

  it('accepts a notification with 202 and an empty body, even without Mcp-* headers', async () => {
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen:0', _meta: modernBody(0, 'x').params._meta } };
    const res = await postJson(gw.url, note, { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28' });
    expect([res.status, res.text]).toEqual([202, '']);
  });

  it('refuses a JSON-RPC response from a modern client with 400', async () => {
    const res = await postJson(gw.url, { jsonrpc: '2.0', id: 12, result: {} }, modernHeaders('tools/list'));
    expectError(res, 400, -32600, /must not send responses/);
  });

  it.each(['GET', 'DELETE'])('answers %s without a session with 405 and Allow: POST', async (method) => {
    const res = await fetch(gw.url, { method, headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' } });
    expect([res.status, res.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await res.json()).error.message).toMatch(new RegExp(method));
  });
});
