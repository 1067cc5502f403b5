// Legacy sessions and notification streams are capped overall and per principal: past a cap
// the gateway answers 503 with Retry-After and a JSON-RPC error naming the limit, records the
// refusal and counts it; what one principal holds never keeps another out of the rest. Streams
// end cleanly at their maximum lifetime or once idle for limits.streamIdleTimeout, and every
// stream's opening and end is in the audit trail.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { ALICE, BOB, IDENTITY_YAML } from '../harness/policy-env.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let upstream: ModernUpstream | undefined;
let gw: TestGateway | undefined;
let auditDir = '';
const streams: SseMessages[] = [];

afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  await gw?.close();
  await upstream?.close();
  gw = undefined;
  upstream = undefined;
});

async function start(limits: string): Promise<TestGateway> {
  upstream = await startModernUpstream({ name: 'up' });
  auditDir = join(mkdtempSync(join(tmpdir(), 'gatehouse-caps-')), 'trail');
  gw = await startTestGateway(`
${IDENTITY_YAML}
limits: ${limits}
audit: { dir: "${auditDir}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  await gw.waitUp();
  return gw;
}

function records(): Record<string, any>[] {
  return readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

function initialize(who: Record<string, string>) {
  return postJson(gw!.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'caps', version: '1' } } }, { ...LEGACY_HEADERS, ...who });
}

/** Sends notifications/initialized in the session: its first use, when the gateway starts holding it. */
function use(sid: string, who: Record<string, string>) {
  return postJson(gw!.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...LEGACY_HEADERS, ...who, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
}

async function openSession(who: Record<string, string>): Promise<string> {
  const init = await initialize(who);
  expect(init.status).toBe(200);
  const sid = init.headers.get('mcp-session-id')!;
  expect((await use(sid, who)).status).toBe(202);
  return sid;
}

function expectOverCapacity(reply: { status: number; headers: Headers; json: any }, limit: string): void {
  expect(reply.status).toBe(503);
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(reply.json.error).toMatchObject({ code: -31030, data: { limit } });
  expect(reply.json.error.message).toContain(`limits.${limit}`);
}

async function listen(who: Record<string, string>, id: string) {
  const opened = await openSse(gw!.url, { method: 'POST', headers: modernHeaders('subscriptions/listen', undefined, who), body: JSON.stringify(modernBody(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } })) });
  streams.push(opened.sse);
  return opened;
}

async function getStream(sid: string, who: Record<string, string>) {
  const opened = await openSse(gw!.url, { method: 'GET', headers: { accept: 'text/event-stream', ...who, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
  streams.push(opened.sse);
  return opened;
}

describe('session caps', () => {
  it('keeps one principal within maxSessionsPerPrincipal and everyone within maxSessions', async () => {
    await start('{ maxSessions: 4, maxSessionsPerPrincipal: 2 }');
    const alice = [await openSession(ALICE), await openSession(ALICE)];
    expectOverCapacity(await initialize(ALICE), 'maxSessionsPerPrincipal');
    // Alice's share is full, Bob's is not.
    await openSession(BOB);
    await openSession(BOB);
    expectOverCapacity(await initialize(BOB), 'maxSessions');
    expect(await metricValue(gw!.url, 'gatehouse_sessions')).toBe(4);
    // Ending a session frees its place.
    const ended = await fetch(gw!.url, { method: 'DELETE', headers: { ...ALICE, 'mcp-session-id': alice[0]!, 'mcp-protocol-version': '2025-11-25' } });
    expect(ended.status).toBe(204);
    await openSession(ALICE);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxSessionsPerPrincipal' })).toBe(1);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxSessions' })).toBe(1);
    const refused = records().filter((r) => r.type === 'request' && r.errorCode === -31030);
    expect(refused.map((r) => [r.method, r.principal.subject])).toEqual([
      ['initialize', 'alice'],
      ['initialize', 'bob'],
    ]);
  });

  it('refuses the first use of an id issued before the cap filled', async () => {
    await start('{ maxSessionsPerPrincipal: 1 }');
    const first = (await initialize(ALICE)).headers.get('mcp-session-id')!;
    const second = (await initialize(ALICE)).headers.get('mcp-session-id')!;
    expect((await use(first, ALICE)).status).toBe(202);
    const late = await use(second, ALICE);
    expectOverCapacity(late, 'maxSessionsPerPrincipal');
    expect(await metricValue(gw!.url, 'gatehouse_sessions')).toBe(1);
  });
});

describe('stream caps', () => {
  it('caps listen and GET streams per principal and overall, and records each opening and end', async () => {
    await start('{ maxStreams: 3, maxStreamsPerPrincipal: 2 }');
    const a1 = await listen(ALICE, 'a1');
    const a2 = await listen(ALICE, 'a2');
    await a1.sse.waitFor(1);
    await a2.sse.waitFor(1);
    const a3 = await postJson(gw!.url, modernBody('a3', 'subscriptions/listen', { notifications: { toolsListChanged: true } }), modernHeaders('subscriptions/listen', undefined, ALICE));
    expectOverCapacity(a3, 'maxStreamsPerPrincipal');
    expect(a3.json.id).toBe('a3');
    const sid = await openSession(BOB);
    const b1 = await getStream(sid, BOB);
    expect(b1.response.status).toBe(200);
    const b2 = await fetch(gw!.url, { method: 'GET', headers: { accept: 'text/event-stream', ...BOB, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
    expect(b2.status).toBe(503);
    expect(((await b2.json()) as any).error.data.limit).toBe('maxStreams');
    expect(await metricValue(gw!.url, 'gatehouse_streams')).toBe(3);
    // A stream the client closes frees its place.
    a1.sse.close();
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_streams')).toBe(2);
    const again = await listen(ALICE, 'a4');
    await again.sse.waitFor(1);
    expect(again.sse.messages[0].method).toBe('notifications/subscriptions/acknowledged');
    // The trail is written behind the streams: wait for the fourth opening to be on disk.
    const streamEvents = () => records().filter((r) => r.type === 'event' && r.event.startsWith('stream_'));
    await expect.poll(() => streamEvents().filter((e) => e.event === 'stream_opened').length).toBe(4);
    const events = streamEvents();
    expect(events.filter((e) => e.event === 'stream_opened').map((e) => [e.detail.stream, e.detail.principal.subject])).toEqual([
      ['listen', 'alice'],
      ['listen', 'alice'],
      ['get', 'bob'],
      ['listen', 'alice'],
    ]);
    expect(events.filter((e) => e.event === 'stream_closed')).toEqual([expect.objectContaining({ detail: expect.objectContaining({ stream: 'listen', subscriptionId: 'a1', reason: 'client_gone' }) })]);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxStreamsPerPrincipal' })).toBe(1);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxStreams' })).toBe(1);
  });

  it('ends a stream at streamMaxLifetime: a listen stream with its result, a GET stream by closing', async () => {
    await start('{ streamMaxLifetime: 300ms }');
    const { sse } = await listen(ALICE, 'life-1');
    const sid = await openSession(BOB);
    const get = await getStream(sid, BOB);
    await expect.poll(() => sse.ended(), { timeout: 5_000 }).toBe(true);
    expect(sse.messages.map((m) => m.method ?? m.result)).toEqual([
      'notifications/subscriptions/acknowledged',
      { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'life-1' } },
    ]);
    expect(sse.messages[1].id).toBe('life-1');
    await expect.poll(() => get.sse.ended(), { timeout: 5_000 }).toBe(true);
    await expect.poll(() => records().filter((r) => r.event === 'stream_closed' && r.detail.reason === 'lifetime').length).toBe(2);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'streamMaxLifetime' })).toBe(2);
    expect(await metricValue(gw!.url, 'gatehouse_streams')).toBe(0);
  });

  it('ends a stream that sent nothing for streamIdleTimeout, long before its lifetime, and says so', async () => {
    await start('{ streamIdleTimeout: 300ms, streamMaxLifetime: 1h }');
    const { sse } = await listen(ALICE, 'idle-1');
    const sid = await openSession(BOB);
    const get = await getStream(sid, BOB);
    await expect.poll(() => sse.ended(), { timeout: 5_000 }).toBe(true);
    expect(sse.messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 'idle-1', result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'idle-1' } } });
    await expect.poll(() => get.sse.ended(), { timeout: 5_000 }).toBe(true);
    await expect.poll(() => records().filter((r) => r.event === 'stream_closed' && r.detail.reason === 'idle').map((r) => r.detail.stream).sort()).toEqual(['get', 'listen']);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'streamIdleTimeout' })).toBe(2);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'streamMaxLifetime' })).toBe(0);
    expect(await metricValue(gw!.url, 'gatehouse_streams')).toBe(0);
  });
});
