// The 2025-11-25 face of /mcp, end to end with raw fetch against real gateways in front of a
// modern and a legacy upstream: initialize and sealed Mcp-Session-Id (README, Protocol eras: bridging),
// session errors (404), DELETE, the GET stream, ping, multi-replica ids (docs/architecture.md §5), and
// legacy cancellation: notifications/cancelled cancels, a disconnect does not (MCP 2026-07-28, basic/patterns/cancellation,
// README, Protocol eras: bridging step 6).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream, type ReceivedRequest } from '../fixtures/modern-upstream.ts';
import { postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';

const SECRET = 'a1'.repeat(32);
const OTHER_SECRET = 'b2'.repeat(32);

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let gw: TestGateway;
let replica: TestGateway;
let stranger: TestGateway;

const yaml = (secret: string) => `
sessions: { secret: "${secret}" }
upstreams:
  - { name: up, url: "${modern.url}" }
  - { name: old, url: "${legacy.url}" }
`;

beforeAll(async () => {
  [modern, legacy] = await Promise.all([startModernUpstream(), startLegacyUpstream()]);
  [gw, replica, stranger] = await Promise.all([startTestGateway(yaml(SECRET)), startTestGateway(yaml(SECRET)), startTestGateway(yaml(OTHER_SECRET))]);
  await Promise.all([gw.waitUp(), replica.waitUp(), stranger.waitUp()]);
});

afterAll(async () => {
  await Promise.all([gw?.close(), replica?.close(), stranger?.close()]);
  await Promise.all([modern?.close(), legacy?.close()]);
});

const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function sessionHeaders(sid: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...BASE_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', ...extra };
}

const initializeBody = (protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-legacy', version: '1' } },
});

/** initialize (no MCP-Protocol-Version, as 2025-11-25 clients send it) + notifications/initialized. */
async function openSession(url = gw.url): Promise<string> {
  const res = await postJson(url, initializeBody(), BASE_HEADERS);
  expect(res.status).toBe(200);
  const sid = res.headers.get('mcp-session-id')!;
  const ack = await postJson(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders(sid));
  expect(ack.status).toBe(202);
  return sid;
}

const request = (url: string, sid: string, id: number | string, method: string, params?: Record<string, unknown>, extra?: Record<string, string>) =>
  postJson(url, { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, sessionHeaders(sid, extra));

const slowCall = (received: ReceivedRequest[], ms: number) =>
  received.find((r) => (r.body as any)?.method === 'tools/call' && (r.body as any).params?.arguments?.ms === ms);

describe('initialize and the session id (README, Protocol eras: bridging)', () => {
  it('answers initialize with an InitializeResult and a visible-ASCII Mcp-Session-Id', async () => {
    const res = await postJson(gw.url, initializeBody(), BASE_HEADERS);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toMatch(/^[\x21-\x7e]{16,}$/);
    expect(res.json.id).toBe(0);
    const result = res.json.result;
    expect(result.protocolVersion).toBe('2025-11-25');
    expect(result.serverInfo.name).toBe('gatehouse');
    expect(result.capabilities.tools).toBeDefined();
    expect(result).not.toHaveProperty('resultType');
  });

  it('mints a different session id for each initialize', async () => {
    const [a, b] = await Promise.all([openSession(), openSession()]);
    expect(a).not.toBe(b);
  });

  it('answers an unknown requested version with the version it speaks', async () => {
    const res = await postJson(gw.url, initializeBody('1999-01-01'), BASE_HEADERS);
    expect(res.json.result.protocolVersion).toBe('2025-11-25');
  });

  it('serves requests in the session: ping is {}, tools/list has both upstreams without modern fields', async () => {
    const sid = await openSession();
    const ping = await request(gw.url, sid, 1, 'ping');
    expect(ping.status).toBe(200);
    expect(ping.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const list = await request(gw.url, sid, 2, 'tools/list');
    const names = list.json.result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['up__echo', 'old__echo', 'up__slow', 'old__slow']));
    expect(list.json.result).not.toHaveProperty('resultType');
    expect(list.json.result).not.toHaveProperty('ttlMs');
  });

  it('refuses a second initialize inside a session', async () => {
    const sid = await openSession();
    const res = await postJson(gw.url, { ...initializeBody(), id: 5 }, sessionHeaders(sid));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ id: 5, error: { code: -32600, message: expect.stringMatching(/already initialized/) } });
  });

  it('answers an unknown method inside a session with -32601 and HTTP 200, keeping 404 for an unknown session', async () => {
    const sid = await openSession();
    const res = await request(gw.url, sid, 7, 'no/such/method');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
    expect((await request(gw.url, sid, 8, 'ping')).status).toBe(200);
  });

  it('advertises logging, since it serves logging/setLevel', async () => {
    const res = await postJson(gw.url, initializeBody(), BASE_HEADERS);
    expect(res.json.result.capabilities.logging).toEqual({});
    const sid = res.headers.get('mcp-session-id')!;
    expect((await request(gw.url, sid, 9, 'logging/setLevel', { level: 'info' })).json).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('refuses a modern MCP-Protocol-Version inside a session with 400', async () => {
    const sid = await openSession();
    const res = await request(gw.url, sid, 6, 'tools/list', undefined, { 'mcp-protocol-version': '2026-07-28' });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(-32022);
    expect(res.json.error.data.requested).toBe('2026-07-28');
  });
});

describe('session errors and lifecycle', () => {
  it.each([
    ['an unknown id', () => 'no-such-session'],
    ['a garbage id', () => '\x21'.repeat(300)],
    ['an over-long id', () => 'A'.repeat(5000)],
  ])('answers %s with 404', async (_label, make) => {
    const res = await request(gw.url, make(), 1, 'ping');
    expect(res.status).toBe(404);
    expect(res.json.error.message).toMatch(/Session not found/);
  });

  it('answers a tampered session id with 404 (the id is authenticated)', async () => {
    const sid = await openSession();
    const i = Math.floor(sid.length / 2);
    const tampered = sid.slice(0, i) + (sid[i] === 'A' ? 'B' : 'A') + sid.slice(i + 1);
    expect((await request(gw.url, tampered, 1, 'ping')).status).toBe(404);
    expect((await request(gw.url, sid, 1, 'ping')).status).toBe(200);
  });

  it('opens an SSE stream on GET, and DELETE ends the session and that stream', async () => {
    const sid = await openSession();
    const get = await fetch(gw.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(get.headers.get('x-accel-buffering')).toBe('no');
    const reader = get.body!.getReader();

    const del = await fetch(gw.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
    expect([200, 204]).toContain(del.status);
    // The GET stream of the deleted session ends.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());

    expect((await request(gw.url, sid, 2, 'ping')).status).toBe(404);
    expect((await fetch(gw.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } })).status).toBe(404);
    const again = await fetch(gw.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid } });
    expect(again.status).toBe(404);
    await again.body?.cancel();
  });

  it('lets a replica with the same sessions.secret serve the session, and not one with another secret', async () => {
    const sid = await openSession();
    const same = await request(replica.url, sid, 3, 'tools/list');
    expect(same.status).toBe(200);
    expect(same.json.result.tools.map((t: { name: string }) => t.name)).toContain('old__echo');
    const other = await request(stranger.url, sid, 3, 'tools/list');
    expect(other.status).toBe(404);
    expect(other.json.error.message).toMatch(/Session not found/);
  });
});

describe('cancellation (MCP 2026-07-28, basic/patterns/cancellation: explicit in 2025-11-25, a disconnect is not a cancel)', () => {
  it.each([
    ['the legacy upstream', 'old__slow', () => legacy, 5101],
    ['the modern upstream', 'up__slow', () => modern, 5102],
  ])('notifications/cancelled aborts the in-flight call on %s', async (_label, tool, up, ms) => {
    const sid = await openSession();
    const pending = request(gw.url, sid, 41, 'tools/call', { name: tool, arguments: { ms } });
    await expect.poll(() => slowCall(up().received, ms), { timeout: 3000 }).toBeDefined();
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 41, reason: 'user stop' } };
    const ack = await postJson(gw.url, note, sessionHeaders(sid));
    expect(ack.status).toBe(202);
    const upstreamId = (slowCall(up().received, ms)!.body as { id: string | number }).id;
    await expect.poll(() => up().cancelled.includes(upstreamId), { timeout: 3000 }).toBe(true);
    // The POST ends, and without a response: a cancelled request is not answered (2025-11-25
    // cancellation), least of all with the abort as an "upstream unavailable" error.
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.text).not.toMatch(/data:/);
  });

  it('does not cancel the matching request of another session', async () => {
    const [a, b] = await Promise.all([openSession(), openSession()]);
    const pending = request(gw.url, a, 42, 'tools/call', { name: 'old__slow', arguments: { ms: 250 } });
    await expect.poll(() => slowCall(legacy.received, 250), { timeout: 3000 }).toBeDefined();
    const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 42 } };
    expect((await postJson(gw.url, note, sessionHeaders(b))).status).toBe(202);
    const res = await pending;
    expect(res.json.result.content[0].text).toBe('slept 250ms');
  });

  it.each([
    ['the legacy upstream', 'old__slow', () => legacy, 301],
    ['the modern upstream', 'up__slow', () => modern, 302],
  ])('a legacy client disconnect does not cancel the call on %s', async (_label, tool, up, ms) => {
    const sid = await openSession();
    const abort = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 43, method: 'tools/call', params: { name: tool, arguments: { ms } } });
    const pending = fetch(gw.url, { method: 'POST', headers: sessionHeaders(sid), body, signal: abort.signal });
    await expect.poll(() => slowCall(up().received, ms), { timeout: 3000 }).toBeDefined();
    abort.abort();
    await expect(pending).rejects.toThrow();
    const upstreamId = (slowCall(up().received, ms)!.body as { id: string | number }).id;
    // The call runs to its end instead of being cancelled.
    await expect.poll(() => up().finished.includes(upstreamId), { timeout: 3000 }).toBe(true);
    expect(up().cancelled).not.toContain(upstreamId);
    if (up() === legacy) expect(legacy.received.some((r) => (r.body as any)?.method === 'notifications/cancelled' && (r.body as any).params?.requestId === upstreamId)).toBe(false);
  });
});
