// Overload is shed, not queued: past limits.maxConcurrentRequests (overall, before identity),
// limits.maxConcurrentRequestsPerPrincipal and limits.maxConnections a request gets 503 at
// once, with Retry-After, a JSON-RPC error naming the limit, an audit record and a count in
// /metrics; the requests already admitted are answered as usual, and a place freed (an
// answer sent, a connection closed) admits the next one. Notification streams do not hold a
// request place (they have limits.maxStreams); a call answered as an SSE stream holds its place
// until its result is sent.
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { auditEvents, auditRequests, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { ALICE, BOB, IDENTITY_YAML, modernCall } from '../harness/policy-env.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';

let upstream: ModernUpstream | undefined;
let gw: TestGateway | undefined;
const inflight: AbortController[] = [];
const streams: SseMessages[] = [];
const agents: Agent[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const a of inflight.splice(0)) a.abort();
  for (const s of streams.splice(0)) s.close();
  for (const a of agents.splice(0)) a.destroy();
  for (const s of sockets.splice(0)) s.destroy();
  await gw?.close();
  await upstream?.close();
  gw = undefined;
  upstream = undefined;
});

let configWith: (limits: string) => string = () => '';

/** `reload`: the gateway reloads its file when it changes (configWith writes a new one). */
async function start(limits: string, reload = false): Promise<void> {
  upstream = await startModernUpstream({ name: 'up' });
  const auditDir = join(mkdtempSync(join(tmpdir(), 'gatehouse-overload-')), 'trail');
  const url = upstream.url;
  configWith = (l) => `
${IDENTITY_YAML}
limits: ${l}
audit: { dir: "${auditDir}" }
upstreams:
  - { name: up, url: "${url}" }
`;
  gw = await startTestGateway(configWith(limits), process.env, { reload });
  await gw.waitUp();
}

let nextId = 1;

/** A slow call that stays open until it ends or the test aborts it; `steps` asks for progress (an SSE reply). */
function slowCall(who: Record<string, string>, ms: number, steps?: number): Promise<{ status: number; text: string }> {
  const abort = new AbortController();
  inflight.push(abort);
  const id = `slow-${nextId++}`;
  const body = modernBody(id, 'tools/call', { name: 'up__slow', arguments: { ms, ...(steps ? { steps } : {}) }, ...(steps ? { _meta: { progressToken: id } } : {}) });
  return fetch(gw!.url, { method: 'POST', headers: modernHeaders('tools/call', 'up__slow', who), body: JSON.stringify(body), signal: abort.signal }).then(
    async (res) => ({ status: res.status, text: await res.text() }),
    () => ({ status: 0, text: '' }),
  );
}

function expectShed(reply: { status: number; headers: Headers; json: any }, limit: string): void {
  expect(reply.status).toBe(503);
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(reply.json.error).toMatchObject({ code: -31030, data: { limit } });
  expect(reply.json.error.message).toContain(`limits.${limit}`);
}

const inFlight = (): Promise<number | undefined> => metricValue(gw!.url, 'gatehouse_requests_in_flight');

describe('limits.maxConcurrentRequests', () => {
  it('refuses a request past the cap at once, whoever sends it, and admits the next one when a place frees', async () => {
    await start('{ maxConcurrentRequests: 2 }');
    const first = slowCall(ALICE, 400);
    const second = slowCall(BOB, 60_000);
    await expect.poll(inFlight).toBe(2);
    const refused = await modernCall(gw!.url, BOB, 'up__echo', { message: 'third' });
    expectShed(refused, 'maxConcurrentRequests');
    // Shed before identity: a request with no credentials at all gets the same answer, not 401.
    expectShed(await postJson(gw!.url, modernBody(99, 'tools/list'), modernHeaders('tools/list')), 'maxConcurrentRequests');
    expect(upstream!.received.filter((r) => (r.body as any)?.params?.arguments?.message === 'third')).toHaveLength(0);
    // The admitted call is answered as usual; its place then admits a new call.
    expect((await first).text).toContain('slept 400ms');
    await expect.poll(inFlight).toBe(1);
    expect((await modernCall(gw!.url, ALICE, 'up__echo', { message: 'later' })).json.result.content[0].text).toBe('later');
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxConcurrentRequests' })).toBe(2);
    const audited = auditRequests(gw!).filter((r) => r.errorCode === -31030);
    expect(audited).toHaveLength(2);
    expect(audited.every((r) => r.outcome === 'error')).toBe(true);
    void second;
  });

  it('keeps the place of a call answered as an SSE stream until its result is sent, and not that of a listen stream', async () => {
    await start('{ maxConcurrentRequests: 1 }');
    // Three open listen streams, and still room for a call.
    for (const id of ['l1', 'l2', 'l3']) {
      const opened = await openSse(gw!.url, { method: 'POST', headers: modernHeaders('subscriptions/listen', undefined, ALICE), body: JSON.stringify(modernBody(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } })) });
      expect(opened.response.status).toBe(200);
      streams.push(opened.sse);
    }
    await expect.poll(inFlight).toBe(0);
    // A call with progress: its reply is an SSE stream from its first notification on.
    const body = modernBody('progressing', 'tools/call', { name: 'up__slow', arguments: { ms: 900, steps: 3 }, _meta: { progressToken: 'p1' } });
    const progressing = await openSse(gw!.url, { method: 'POST', headers: modernHeaders('tools/call', 'up__slow', ALICE), body: JSON.stringify(body) });
    streams.push(progressing.sse);
    await progressing.sse.waitFor(1);
    expect(progressing.sse.messages[0]).toMatchObject({ method: 'notifications/progress' });
    expect(await inFlight()).toBe(1);
    expectShed(await modernCall(gw!.url, BOB, 'up__echo', { message: 'while streaming' }), 'maxConcurrentRequests');
    await progressing.sse.waitFor(4);
    expect(progressing.sse.messages[3].result.content[0].text).toBe('slept 900ms');
    await expect.poll(inFlight).toBe(0);
    expect((await modernCall(gw!.url, BOB, 'up__echo', { message: 'after' })).json.result.content[0].text).toBe('after');
  });
});

describe('refusals of the overall cap', () => {
  it('name the cap in force after a reload lowers it, and every refused request of either era has its own audit record and counts', async () => {
    await start('{ maxConcurrentRequests: 2 }', true);
    const held = [slowCall(ALICE, 60_000), slowCall(BOB, 60_000)];
    await expect.poll(inFlight).toBe(2);
    const modern = await modernCall(gw!.url, BOB, 'up__echo', { message: 'modern' });
    expectShed(modern, 'maxConcurrentRequests');
    expect(modern.json.error.message).toContain('(limits.maxConcurrentRequests, 2)');
    // A session id makes it a 2025-11-25 request: shed before the session is looked at.
    const legacyHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'not-looked-at', 'mcp-protocol-version': '2025-11-25', ...ALICE };
    const legacy = await postJson(gw!.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'up__echo', arguments: { message: 'legacy' } } }, legacyHeaders);
    expectShed(legacy, 'maxConcurrentRequests');

    writeFileSync(gw!.config.file, configWith('{ maxConcurrentRequests: 1 }'));
    await expect.poll(() => auditEvents(gw!).some((e) => e.event === 'config_reload' && e.detail.result === 'applied'), { timeout: 10_000 }).toBe(true);
    const lowered = await modernCall(gw!.url, BOB, 'up__echo', { message: 'after the reload' });
    expectShed(lowered, 'maxConcurrentRequests');
    expect(lowered.json.error.message).toContain('(limits.maxConcurrentRequests, 1)');

    const audited = auditRequests(gw!).filter((r) => r.limit === 'maxConcurrentRequests');
    expect(audited.map((r) => r.era)).toEqual(['modern', 'legacy', 'modern']);
    expect(new Set(audited.map((r) => r.requestId)).size).toBe(3);
    expect(audited.every((r) => r.outcome === 'error' && r.errorCode === -31030)).toBe(true);
    expect(await metricValue(gw!.url, 'gatehouse_refusals_total', { reason: 'over_capacity', status: '503' })).toBe(3);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxConcurrentRequests' })).toBe(3);
    void held;
  });
});

describe('limits.maxConcurrentRequestsPerPrincipal', () => {
  it("refuses one principal's request past its share while another principal is served", async () => {
    await start('{ maxConcurrentRequestsPerPrincipal: 1 }');
    const held = slowCall(ALICE, 60_000);
    await expect.poll(inFlight).toBe(1);
    const refused = await modernCall(gw!.url, ALICE, 'up__echo', { message: 'second' });
    expectShed(refused, 'maxConcurrentRequestsPerPrincipal');
    expect((await modernCall(gw!.url, BOB, 'up__echo', { message: 'bob' })).json.result.content[0].text).toBe('bob');
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxConcurrentRequestsPerPrincipal' })).toBe(1);
    const audited = auditRequests(gw!).filter((r) => r.errorCode === -31030);
    expect(audited).toEqual([expect.objectContaining({ principal: expect.objectContaining({ subject: 'alice' }), outcome: 'error' })]);
    void held;
  });
});

describe('limits.maxConnections raised by a reload', () => {
  it('applies at once, also when the old cap had Node turning new connections away', async () => {
    await start('{ maxConnections: 1 }', true);
    const call = (agent: Agent | false, message: string) => post(agent, modernBody(nextId++, 'tools/call', { name: 'up__echo', arguments: { message } }), modernHeaders('tools/call', 'up__echo', ALICE));
    const a = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(a);
    expect((await call(a, 'a')).json.result.content[0].text).toBe('a');
    // A second connection that sends nothing: with it open, Node's own limit (twice the cap) is full.
    const url = new URL(gw!.url);
    const idle = connect(Number(url.port), url.hostname);
    sockets.push(idle);
    await new Promise((r) => idle.once('connect', r));
    // Accepted in the order they came: the next connection is the third, and Node drops it.
    await expect(call(false, 'turned away')).rejects.toThrow();
    writeFileSync(gw!.config.file, configWith('{ maxConnections: 10 }'));
    await expect.poll(() => auditEvents(gw!).some((e) => e.event === 'config_reload' && e.detail.result === 'applied'), { timeout: 10_000 }).toBe(true);
    expect((await call(false, 'after the reload')).json.result.content[0].text).toBe('after the reload');
  });
});

/** One GET over `agent`; `closed` settles when its connection closes. */
function getOnce(agent: Agent, path: string): Promise<{ status: number; headers: IncomingHttpHeaders; closed: Promise<void> }> {
  const url = new URL(gw!.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, agent }, (res) => {
      const closed = new Promise<void>((r) => res.socket.once('close', () => r()));
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, closed }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One POST over `agent` (keep-alive: its connection stays open afterwards). */
function post(agent: Agent | false, body: unknown, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; json: any }> {
  const url = new URL(gw!.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('limits.maxConnections', () => {
  it('answers a request on a connection past the cap with 503 and closes it; a freed place admits a new connection', async () => {
    await start('{ maxConnections: 2 }');
    const call = (agent: Agent | false, message: string) => post(agent, modernBody(nextId++, 'tools/call', { name: 'up__echo', arguments: { message } }), modernHeaders('tools/call', 'up__echo', ALICE));
    const [a, b, c] = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
    agents.push(a, b, c);
    expect((await call(a, 'a')).json.result.content[0].text).toBe('a');
    expect((await call(b, 'b')).json.result.content[0].text).toBe('b');
    const refused = await call(c, 'c');
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers.connection).toBe('close');
    expect(refused.json.error).toMatchObject({ code: -31030, data: { limit: 'maxConnections' } });
    // The two open connections are still served.
    expect((await call(a, 'a again')).json.result.content[0].text).toBe('a again');
    // A probe on a connection past the cap is answered, and that connection then closed.
    const d = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(d);
    const probe = await getOnce(d, '/healthz');
    expect(probe.status).toBe(200);
    expect(probe.headers.connection).toBe('close');
    await probe.closed;
    // One of them closes: a new connection is admitted.
    a.destroy();
    await expect.poll(async () => (await call(false, 'new')).status).toBe(200);
    b.destroy();
    c.destroy();
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxConnections' })).toBeGreaterThanOrEqual(1);
    const audited = auditRequests(gw!).filter((r) => r.errorCode === -31030);
    expect(audited.length).toBeGreaterThanOrEqual(1);
    expect(audited[0]).toMatchObject({ outcome: 'error' });
    expect(upstream!.received.filter((r) => (r.body as any)?.params?.arguments?.message === 'c')).toHaveLength(0);
  });
});
