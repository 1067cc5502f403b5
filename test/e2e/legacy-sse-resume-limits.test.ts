// A resumed call stream (GET with Last-Event-ID, 2025-11-25) is held like the session's other
// GET streams: it takes a slot of limits.maxStreams, so past the cap a resumption gets the 503
// any stream would; it is counted in gatehouse_streams; and its opening and end are audit
// records, ending `call_ended` once the call it continues has answered. Against a real SDK
// 1.x server whose test_sampling call waits for the client's answer, so the call, and its
// resumed stream, stay open for as long as the test needs. Also: a call whose client lost
// its stream keeps its request place until it ends; a DELETE of its session cancels it.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';
import { auditEvents, auditRequests, postJson, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { metricValue } from '../harness/metrics.ts';
import { RawEventReader, readEvents, type RawEvent } from '../harness/raw-sse.ts';

let server: Sdk1Server;
let gw: TestGateway;

useGatewayBed({
  upstream: () => startSdk1Server(),
  config: (up) => `limits: { maxStreams: 1 }\nupstreams:\n  - { name: up, url: "${up.url}", prefix: "" }\n`,
  ready: (bed) => ({ upstream: server, gw } = bed),
});

const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const open: Response[] = [];
afterEach(async () => {
  for (const res of open.splice(0)) await res.body?.cancel().catch(() => undefined);
});

async function openSession(): Promise<Record<string, string>> {
  const init = await postJson(gw.url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'raw', version: '1' } } }, BASE);
  const headers = { ...BASE, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  await postJson(gw.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

const samplingAsk = (events: RawEvent[]): { id: string | number } | undefined =>
  events.map((e) => (e.data === '' ? undefined : JSON.parse(e.data))).find((m) => m?.method === 'sampling/createMessage');

async function get(session: Record<string, string>, lastEventId?: string): Promise<Response> {
  const res = await fetch(gw.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session['mcp-session-id']!, 'mcp-protocol-version': '2025-11-25', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } });
  open.push(res);
  return res;
}

const streamEvents = (event: string) => auditEvents(gw).filter((e) => e.event === event).map((e) => e.detail);

/** Calls test_sampling (which waits for the client's answer), loses the call's stream once the
 * question came, and resumes it with GET and the priming event's id: the resumed stream, read
 * up to the question again (the events after the priming one come again). */
async function callLoseAndResume(session: Record<string, string>, id: number): Promise<{ reader: RawEventReader; firstId: string }> {
  const abort = new AbortController();
  const call = await fetch(gw.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'test_sampling', arguments: { prompt: 'hi' } } }), signal: abort.signal });
  expect(call.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const first = await readEvents(call, (ev) => samplingAsk(ev) !== undefined);
  // The client loses its stream (in 2025-11-25 not a cancel: the call goes on upstream).
  abort.abort();
  const firstId = first[0]!.id!;
  const resumed = await get(session, firstId);
  expect(resumed.status).toBe(200);
  const reader = new RawEventReader(resumed);
  expect(await reader.until((ev) => samplingAsk(ev) !== undefined)).toBe(true);
  return { reader, firstId };
}

describe('a resumed call stream, with limits.maxStreams 1', () => {
  it('takes the one stream slot, is counted and audited, and gives it back when its call has answered', async () => {
    const session = await openSession();
    const { reader, firstId } = await callLoseAndResume(session, 7);
    await expect.poll(() => metricValue(gw.url, 'gatehouse_streams')).toBe(1);
    await expect.poll(() => streamEvents('stream_opened').filter((d) => d.stream === 'resume')).toEqual([expect.objectContaining({ sessionId: session['mcp-session-id'] })]);

    // The cap is full: another resumption and a plain GET stream are both refused.
    for (const refused of [await get(session, firstId), await get(session)]) {
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-31030);
    }

    // The client answers the question: the call ends, its answer reaches the resumed stream, which ends.
    const answered = await postJson(gw.url, { jsonrpc: '2.0', id: samplingAsk(reader.events)!.id, result: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'test' } }, session);
    expect(answered.status).toBe(202);
    const events = await reader.toEnd();
    const answer = events.map((e) => (e.data === '' ? undefined : JSON.parse(e.data))).find((m) => m?.id === 7);
    expect(answer.result.content[0].text).toBe('LLM response: sampled');
    await expect.poll(() => streamEvents('stream_closed').filter((d) => d.stream === 'resume')).toEqual([expect.objectContaining({ reason: 'call_ended' })]);
    await expect.poll(() => metricValue(gw.url, 'gatehouse_streams')).toBe(0);
    // Its slot is free again.
    expect((await get(session)).status).toBe(200);
  });

  it('ends with its session, and frees its slot', async () => {
    const session = await openSession();
    const { reader } = await callLoseAndResume(session, 8);

    const deleted = await fetch(gw.url, { method: 'DELETE', headers: session });
    expect(deleted.status).toBe(204);
    await reader.toEnd();
    await expect.poll(() => streamEvents('stream_closed').filter((d) => d.stream === 'resume' && d.sessionId === session['mcp-session-id'])).toEqual([expect.objectContaining({ reason: 'session_ended' })]);
    await expect.poll(() => metricValue(gw.url, 'gatehouse_streams')).toBe(0);
    // The call still waiting in the ended session is cancelled: its request place is free, and its record says so.
    await expect.poll(() => metricValue(gw.url, 'gatehouse_requests_in_flight')).toBe(0);
    await expect.poll(() => auditRequests(gw).find((r) => r.rpcId === 8)).toMatchObject({ outcome: 'cancelled', name: 'test_sampling' });
  });
});

describe('a 2025-11-25 call whose client lost its stream', () => {
  it('keeps its place under limits.maxConcurrentRequests until the call ends upstream', async () => {
    const session = await openSession();
    const { question, drop } = await callOnOwnConnection(session, 9);
    expect(await metricValue(gw.url, 'gatehouse_requests_in_flight')).toBe(1);
    const connected = (await metricValue(gw.url, 'gatehouse_connections'))!;
    // The client loses its stream; once the gateway has seen the connection close, the call
    // (which goes on upstream) still holds its place.
    drop();
    await expect.poll(() => metricValue(gw.url, 'gatehouse_connections')).toBe(connected - 1);
    expect(await metricValue(gw.url, 'gatehouse_requests_in_flight')).toBe(1);
    // The question is answered: the call ends, and its place is given back.
    const answered = await postJson(gw.url, { jsonrpc: '2.0', id: question.id, result: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'test' } }, session);
    expect(answered.status).toBe(202);
    await expect.poll(() => metricValue(gw.url, 'gatehouse_requests_in_flight')).toBe(0);
  });
});

/** test_sampling on a connection of its own, read until the question came; `drop` closes that connection. */
function callOnOwnConnection(session: Record<string, string>, id: number): Promise<{ question: { id: string | number }; drop: () => void }> {
  const url = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: session, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        const events = text.split('\n\n').flatMap((block) => block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => ({ data: l.slice(6) })));
        const question = samplingAsk(events);
        if (question) resolve({ question, drop: () => req.destroy() });
      });
    });
    req.on('error', (e) => {
      if (!req.destroyed) reject(e);
    });
    req.end(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'test_sampling', arguments: { prompt: 'hi' } } }));
  });
}
