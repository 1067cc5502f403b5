// The HTTP ingress under hostile or unlucky clients, on real gateways on 127.0.0.1:
// initialize keeps nothing a client can size at will, every id it issues can be used, and it
// is audited; a client that goes away is seen even when its response was queued behind
// another on the same keep-alive connection (pipelining), and for a modern request that is
// its cancellation (MCP 2026-07-28, basic/patterns/cancellation); a legacy session's messages go to one of its GET streams, not
// all of them (2025-11-25 transport), and an idle session's streams end with it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';
import { installMovableClock } from '../harness/movable-clock.ts';
import { openSocket, rawPost } from './raw-http.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';

let upstream: ModernUpstream;
let gw: TestGateway;
const auditDir = mkdtempSync(join(tmpdir(), 'gatehouse-ingress-'));

useGatewayBed({
  upstream: () => startModernUpstream(),
  config: (up) => `
sessions: { secret: "${'c3'.repeat(32)}" }
audit: { dir: "${auditDir}" }
upstreams:
  - { name: up, url: "${up.url}" }
`,
  ready: (bed) => ({ upstream, gw } = bed),
});

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const sessionHeaders = (sid: string) => ({ ...LEGACY_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
const initialize = (id: number, capabilities: unknown, clientInfo: unknown = { name: 'ingress-test', version: '1' }) =>
  postJson(gw.url, { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo } }, LEGACY_HEADERS);

function auditRecords(): Record<string, any>[] {
  return readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

describe('initialize keeps no client-sized state', () => {
  it('refuses capabilities and clientInfo too large for a session id with -32602 naming the limit, and issues no id', async () => {
    // ~3 KB: a real client's capabilities can grow this far; its id would be over the 4096
    // characters get() accepts, so every later request would get 404.
    for (const capabilities of [{ experimental: { blob: 'x'.repeat(3000) } }, { experimental: { blob: 'x'.repeat(4_000_000) } }]) {
      const res = await initialize(1, capabilities);
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.stringMatching(/at most 2048/), data: { limit: 2048 } } });
    }
    const bigInfo = await initialize(2, {}, { name: 'n'.repeat(2100), version: '1' });
    expect(bigInfo.json.error).toMatchObject({ code: -32602, data: { limit: 2048 } });
  });

  it('issues an id that works for a client just within the limit', async () => {
    const info = { name: 'ingress-test', version: '1' };
    const filler = 2048 - JSON.stringify({ experimental: { blob: '' } }).length - JSON.stringify(info).length;
    const res = await initialize(3, { experimental: { blob: 'é'.repeat(filler / 2) } }, info);
    expect(res.json.result.protocolVersion).toBe('2025-11-25');
    const sid = res.headers.get('mcp-session-id')!;
    expect(sid.length).toBeLessThanOrEqual(4096);
    const ping = await postJson(gw.url, { jsonrpc: '2.0', id: 4, method: 'ping' }, sessionHeaders(sid));
    expect(ping.json).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('audits initialize like any other request, the refused ones too', async () => {
    await initialize(9101, {});
    await initialize(9102, { experimental: { blob: 'x'.repeat(3000) } });
    const records = auditRecords();
    expect(records.find((r) => r.rpcId === 9101)).toMatchObject({ type: 'request', era: 'legacy', method: 'initialize', outcome: 'ok', client: { name: 'ingress-test', version: '1' } });
    expect(records.find((r) => r.rpcId === 9102)).toMatchObject({ type: 'request', era: 'legacy', method: 'initialize', outcome: 'error', errorCode: -32602 });
  });
});

const listen = (id: string) => rawPost(modernBody(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } }), modernHeaders('subscriptions/listen'));

describe('a client gone while its response waits behind another on the same connection', () => {
  it('ends both pipelined listen streams, leaving no listener behind', async () => {
    const before = gw.notifier.size();
    const socket = await openSocket(gw.port);
    socket.write(listen('pipe-1') + listen('pipe-2'));
    // Both are dispatched at once; the second's response is queued behind the first's stream.
    await expect.poll(() => gw.notifier.size(), { message: 'both listen streams', timeout: 3000 }).toBe(before + 2);
    socket.destroy();
    await expect.poll(() => gw.notifier.size(), { message: 'every listener removed', timeout: 3000 }).toBe(before);
  });

  it('cancels a pipelined modern tools/call when its client goes (MCP 2026-07-28, basic/patterns/cancellation)', async () => {
    const ms = 5301;
    const socket = await openSocket(gw.port);
    const call = modernBody('pipe-call', 'tools/call', { name: 'up__slow', arguments: { ms } });
    socket.write(listen('pipe-3') + rawPost(call, modernHeaders('tools/call', 'up__slow')));
    const upstreamId = () => (upstream.received.find((r) => (r.body as any)?.params?.arguments?.ms === ms)?.body as { id: string | number } | undefined)?.id;
    await expect.poll(upstreamId, { message: 'the slow call upstream', timeout: 3000 }).toBeDefined();
    socket.destroy();
    await expect.poll(() => upstream.cancelled.includes(upstreamId()!), { message: 'the upstream call cancelled', timeout: 2000 }).toBe(true);
  });
});

describe('a legacy session with several GET streams', () => {
  const streams: SseMessages[] = [];
  afterAll(() => streams.forEach((s) => s.close()));

  async function openSession(url: string): Promise<string> {
    const res = await postJson(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ingress-test', version: '1' } } }, LEGACY_HEADERS);
    const sid = res.headers.get('mcp-session-id')!;
    expect((await postJson(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders(sid))).status).toBe(202);
    return sid;
  }

  async function getStream(url: string, sid: string): Promise<{ response: Response; sse: SseMessages }> {
    const opened = await openSse(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
    expect(opened.response.status).toBe(200);
    streams.push(opened.sse);
    return opened;
  }

  it('sends each notification on one stream only: the most recently opened one still open', async () => {
    const sid = await openSession(gw.url);
    const before = gw.notifier.size();
    const first = (await getStream(gw.url, sid)).sse;
    const second = (await getStream(gw.url, sid)).sse;
    expect(gw.notifier.size()).toBe(before + 2);
    gw.notifier.publish('tools');
    await second.waitFor(1);
    expect(second.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    expect(first.messages).toEqual([]);
    second.close();
    await expect.poll(() => gw.notifier.size(), { message: 'the second stream gone', timeout: 3000 }).toBe(before + 1);
    gw.notifier.publish('prompts');
    await first.waitFor(1);
    // One stream keeps its order: had the tools notification gone to the first stream too, it
    // would stand before this one.
    expect(first.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' }]);
  });

  it('keeps a session with an open GET stream alive however quiet, and expires it once the stream is gone', async () => {
    // Idle time passes on this clock; the gateway takes it when it starts.
    const clock = installMovableClock();
    const idle = await startTestGateway(`sessions: { idleTimeout: 300 }\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
    try {
      const sid = await openSession(idle.url);
      const abort = new AbortController();
      const response = await fetch(idle.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, signal: abort.signal });
      expect(response.status).toBe(200);
      expect(idle.notifier.size()).toBe(1);
      // Three idle timeouts with nothing but the open stream: the session is still there.
      clock.advance(1000);
      expect(idle.notifier.size()).toBe(1);
      expect((await postJson(idle.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, sessionHeaders(sid))).status).toBe(200);
      abort.abort();
      await expect.poll(() => idle.notifier.size(), { message: 'the stream gone', timeout: 3000 }).toBe(0);
      // Without its stream, the session goes idle like any other.
      clock.advance(700);
      expect((await postJson(idle.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, sessionHeaders(sid))).status).toBe(404);
    } finally {
      await idle.close();
      clock.restore();
    }
  });

  it('ends the GET streams of a session when it is deleted', async () => {
    const sid = await openSession(gw.url);
    const before = gw.notifier.size();
    const abort = new AbortController();
    const response = await fetch(gw.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, signal: abort.signal });
    expect(response.status).toBe(200);
    await expect.poll(() => gw.notifier.size(), { message: 'the stream registered', timeout: 3000 }).toBe(before + 1);
    const timer = setTimeout(() => abort.abort(), 3000);
    // Ends by itself (true), or is cut off by the timer (false).
    const ended = (async () => {
      for await (const _ of response.body as unknown as AsyncIterable<Uint8Array>);
      return true;
    })().catch(() => false);
    const deleted = await fetch(gw.url, { method: 'DELETE', headers: sessionHeaders(sid) });
    expect(deleted.status).toBeLessThan(300);
    expect(await ended).toBe(true);
    clearTimeout(timer);
    expect(gw.notifier.size()).toBe(before);
  });
});
