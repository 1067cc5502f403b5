// Resumable call streams for 2025-11-25 clients, end to end with raw HTTP against a real SDK
// 1.x server that makes its own streams resumable (an event store; its test_reconnection tool
// closes its stream before answering). Through Gatehouse the call's answer is a stream too:
// primed (an id, empty data, the upstream's retry) and with ids on every event; a client
// whose stream broke comes back with GET and Last-Event-ID and gets the rest, the response
// included (MCP 2025-11-25, basic/transports, resumability and redelivery). Which session
// may resume what, and the bounds: src/transport/sse-replay.test.ts.
import { describe, expect, it } from 'vitest';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';
import { postJson, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { readEvents, type RawEvent } from '../harness/raw-sse.ts';

let server: Sdk1Server;
let gw: TestGateway;

useGatewayBed({
  upstream: () => startSdk1Server(),
  config: (up) => `upstreams:\n  - { name: up, url: "${up.url}", prefix: "" }\n`,
  ready: (bed) => ({ upstream: server, gw } = bed),
});

const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(): Promise<string> {
  const init = await postJson(gw.url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, BASE);
  const sid = init.headers.get('mcp-session-id')!;
  await postJson(gw.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...BASE, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
  return sid;
}

const callTool = (sid: string, id: number, name: string, signal?: AbortSignal, meta?: Record<string, unknown>) =>
  fetch(gw.url, {
    method: 'POST',
    headers: { ...BASE, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) } }),
    ...(signal ? { signal } : {}),
  });
const callReconnection = (sid: string, id: number, signal?: AbortSignal) => callTool(sid, id, 'test_reconnection', signal);

const answerOf = (events: RawEvent[], id: number) => events.find((e) => e.data !== '' && JSON.parse(e.data).id === id);

describe('a resumable upstream stream, relayed to a 2025-11-25 client', () => {
  it('answers with a primed stream: an id and the retry first, then events with ids, the response last', async () => {
    const sid = await openSession();
    const res = await callReconnection(sid, 1);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(res, (ev) => answerOf(ev, 1) !== undefined);
    expect(events[0]).toMatchObject({ id: expect.any(String), retry: '500', data: '' });
    const answer = answerOf(events, 1)!;
    expect(answer.id).toEqual(expect.any(String));
    expect(answer.id).not.toBe(events[0]!.id);
    expect(JSON.parse(answer.data).result.content[0].text).toMatch(/completed/);
  });

  it('answers a call that completes at once as plain JSON, though the upstream primed its stream', async () => {
    const sid = await openSession();
    const res = await callTool(sid, 3, 'test_simple_text');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text).toEqual(expect.any(String));
  });

  it('makes the stream resumable from its first notification on: primed first, ids on every event', async () => {
    const sid = await openSession();
    const res = await callTool(sid, 4, 'test_tool_with_progress', undefined, { progressToken: 'p4' });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(res, (ev) => answerOf(ev, 4) !== undefined);
    expect(events[0]).toMatchObject({ id: expect.any(String), retry: '500', data: '' });
    const progress = events.filter((e) => e.data !== '' && JSON.parse(e.data).method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const e of events.slice(1)) expect(e.id).toEqual(expect.any(String));
  });

  it('gives a client that lost its stream the rest, response included, on GET with Last-Event-ID', async () => {
    const sid = await openSession();
    const abort = new AbortController();
    const res = await callReconnection(sid, 2, abort.signal);
    const [priming] = await readEvents(res, (ev) => ev.length >= 1);
    abort.abort();
    const resumed = await fetch(gw.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', 'last-event-id': priming!.id! } });
    expect(resumed.status).toBe(200);
    const events = await readEvents(resumed, (ev) => answerOf(ev, 2) !== undefined);
    expect(JSON.parse(answerOf(events, 2)!.data).result.content[0].text).toMatch(/completed/);
  });
});
