// Failure isolation across HTTP upstreams: one upstream dying, coming back on the same port,
// hanging on its list or overrunning its per-upstream timeout must never take the others
// down or hold the merged list past `listDeadline` (docs/architecture.md §4 upstream ring; MCP 2026-07-28, basic/patterns/cancellation
// for cancellation, README, Protocol eras: bridging step 7 for the explicit notifications/cancelled to legacy upstreams).
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, connect, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModernClient, type ModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { freePort } from '../harness/free-port.ts';

const LIST_DEADLINE_MS = 1000;

/** A TCP front on a fixed port for the modern fixture: `stop()` is the upstream dying
 * (connections cut, port refused), `start()` is it coming back on the same port. */
function tcpFront(port: number, targetPort: number) {
  let server: TcpServer | undefined;
  const sockets = new Set<Socket>();
  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  return {
    start: () =>
      new Promise<void>((resolve, reject) => {
        server = createTcpServer((inbound) => {
          const outbound = connect(targetPort, '127.0.0.1');
          track(inbound);
          track(outbound);
          inbound.pipe(outbound).pipe(inbound);
          inbound.on('close', () => outbound.destroy());
          outbound.on('close', () => inbound.destroy());
        });
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server?.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}

/** A modern upstream that answers server/discover at once and holds every other request
 * unanswered while `answering` is off: the hung tools/list the deadline exists for. */
async function startStuckUpstream() {
  const held: { res: ServerResponse; id: unknown }[] = [];
  let heldCount = 0;
  let answering = false;
  const reply = (res: ServerResponse, id: unknown, result: Record<string, unknown>): void => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', ...result } }));
  };
  const tools = { tools: [{ name: 'ping', inputSchema: { type: 'object' } }], ttlMs: 0, cacheScope: 'public' };
  const server: HttpServer = createHttpServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(raw || '{}') as { id?: unknown; method?: string };
      if (msg.method === 'server/discover') return reply(res, msg.id, { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'public' });
      if (answering) return reply(res, msg.id, tools);
      heldCount++;
      held.push({ res, id: msg.id });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    held: () => heldCount,
    setAnswering(on: boolean) {
      answering = on;
      if (on) for (const h of held.splice(0)) reply(h.res, h.id, tools);
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let front: ReturnType<typeof tcpFront>;
let frontUrl: string;
let gw: TestGateway;
let client: ModernClient;

const toolNames = async (): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);
const readyz = async () => (await fetch(new URL('/readyz', gw.url))).json() as Promise<{ upstreams: { name: string; state: string; lastError?: string }[] }>;
const statusOf = (name: string) => gw.upstreams.find((u) => u.name === name)!.status();

beforeAll(async () => {
  [modern, legacy] = await Promise.all([startModernUpstream({ name: 'flaky-server' }), startLegacyUpstream()]);
  const port = await freePort();
  front = tcpFront(port, Number(new URL(modern.url).port));
  await front.start();
  frontUrl = `http://127.0.0.1:${port}/mcp`;
  gw = await startTestGateway(`
listDeadline: ${LIST_DEADLINE_MS}ms
upstreams:
  - { name: flaky, url: "${frontUrl}" }
  - { name: lg, url: "${legacy.url}", timeout: 1s }
`);
  await gw.waitUp();
  client = await connectModernClient(gw.url);
});

afterAll(async () => {
  await client?.close();
  await gw?.close();
  await Promise.all([front?.stop(), modern?.close(), legacy?.close()]);
});

describe('a hung upstream list', () => {
  let stuck: Awaited<ReturnType<typeof startStuckUpstream>>;
  let gw2: TestGateway;
  beforeAll(async () => {
    stuck = await startStuckUpstream();
    gw2 = await startTestGateway(`
listDeadline: ${LIST_DEADLINE_MS}ms
upstreams:
  - { name: lg, url: "${legacy.url}" }
  - { name: stuck, url: "${stuck.url}", timeout: 60s }
`);
    await gw2.waitUp();
  });
  afterAll(async () => {
    // The gateway goes first, with the list request still held: closing must not wait it out
    // (the stuck upstream's 60 s timeout is longer than this hook may take).
    await gw2?.close();
    await stuck?.close();
  });

  it('never holds the merged tools/list beyond listDeadline and is reported missing', async () => {
    const res = await postJson(gw2.url, modernBody(1, 'tools/list'), modernHeaders('tools/list'));
    // The deadline decides, not the stuck upstream's own 60 s timeout: the request is still held
    // there, and the log names the deadline.
    const names = (res.json.result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(['lg__echo', 'lg__add', 'lg__slow', 'lg__fail', 'lg__elicit']);
    expect(stuck.held()).toBe(1);
    expect(gw2.logs).toContainEqual(expect.objectContaining({ msg: 'upstream too slow for list, answering without it', upstream: 'stuck', kind: 'tools', servedStale: false }));
    // A hung list is slow, not dead: the upstream stays up.
    expect(gw2.upstreams.find((u) => u.name === 'stuck')!.status().state).toBe('up');
  });

  it('serves the last good copy of a list that hangs on refresh, still within listDeadline', async () => {
    stuck.setAnswering(true);
    const list = async () => {
      const res = await postJson(gw2.url, modernBody(2, 'tools/list'), modernHeaders('tools/list'));
      return (res.json.result.tools as { name: string }[]).map((t) => t.name);
    };
    expect(await list()).toContain('stuck__ping');
    stuck.setAnswering(false);
    expect(await list()).toEqual(['lg__echo', 'lg__add', 'lg__slow', 'lg__fail', 'lg__elicit', 'stuck__ping']);
    expect(stuck.held()).toBe(2);
    expect(gw2.logs).toContainEqual(expect.objectContaining({ msg: 'upstream too slow for list, answering without it', upstream: 'stuck', kind: 'tools', servedStale: true }));
  });

  it('does not hold a call to a healthy upstream while another upstream\'s list hangs', async () => {
    // The stuck upstream's tools part is stale and its refresh hangs; lg's part is fresh.
    stuck.setAnswering(false);
    const tooSlow = (): number => gw2.logs.filter((l) => l.msg === 'upstream too slow for list, answering without it').length;
    const before = tooSlow();
    const res = await postJson(gw2.url, modernBody(3, 'tools/call', { name: 'lg__add', arguments: { a: 1, b: 2 } }), modernHeaders('tools/call', 'lg__add'));
    expect(res.json.result.content).toEqual([{ type: 'text', text: '3' }]);
    // Had the call waited on the merged list, the list deadline would have passed for it.
    expect(tooSlow()).toBe(before);
  });
});

describe('per-upstream timeout on tools/call', () => {
  it('answers with the timeout error naming the upstream and cancels the legacy call upstream', async () => {
    const res = await postJson(gw.url, modernBody(7, 'tools/call', { name: 'lg__slow', arguments: { ms: 5000 } }), modernHeaders('tools/call', 'lg__slow'));
    expect(res.json.error).toEqual({ code: -31002, message: 'Upstream "lg" did not answer within 1000 ms', data: { upstream: 'lg' } });
    const upstreamCall = legacy.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call').at(-1)!;
    const upstreamId = (upstreamCall.body as { id: number }).id;
    await expect.poll(() => legacy.cancelled.includes(upstreamId), { message: 'notifications/cancelled at the legacy upstream', timeout: 5000 }).toBe(true);
    const session = upstreamCall.headers['mcp-session-id'];
    const cancels = legacy.received.filter((r) => r.headers['mcp-session-id'] === session && (r.body as { method?: string } | undefined)?.method === 'notifications/cancelled');
    expect(cancels.map((r) => r.body)).toEqual([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upstreamId, reason: 'timeout' } }]);
  });
});

describe('cancellation from a modern client to a legacy upstream', () => {
  it('turns the closed response stream into notifications/cancelled upstream (MCP 2026-07-28, basic/patterns/cancellation, g.3 step 7)', async () => {
    const abort = new AbortController();
    const before = legacy.received.length;
    const call = client.callTool({ name: 'lg__slow', arguments: { ms: 900 } }, { signal: abort.signal });
    await expect.poll(() => legacy.received.slice(before).some((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call'), { message: 'the call to reach the legacy upstream', timeout: 3000 }).toBe(true);
    abort.abort();
    await expect(call).rejects.toThrow();
    const upstreamCall = legacy.received.slice(before).find((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call')!;
    const upstreamId = (upstreamCall.body as { id: number }).id;
    await expect.poll(() => legacy.cancelled.includes(upstreamId), { message: 'the legacy handler to see the abort', timeout: 3000 }).toBe(true);
    expect(legacy.received.slice(before).map((r) => r.body)).toContainEqual({
      jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upstreamId, reason: 'client disconnected' },
    });
  });
});

describe('an HTTP upstream that dies and comes back on the same port', () => {
  it('keeps serving the others, names the failure, and recovers without a gateway restart', async () => {
    expect((await client.callTool({ name: 'flaky__echo', arguments: { message: 'before' } })).structuredContent).toEqual({ message: 'before' });
    const inflight = client.callTool({ name: 'flaky__slow', arguments: { ms: 8000 } });
    await expect.poll(() => modern.received.some((r) => r.headers['mcp-name'] === 'slow'), { message: 'the slow call to reach the modern upstream', timeout: 5000 }).toBe(true);
    await front.stop();

    // Closed mid-call: the caller learns it as a lost connection, with the upstream named.
    // The client hears which upstream and what happened, never its URL (it may hold a secret).
    await expect(inflight).rejects.toThrow(/Upstream "flaky" is unavailable: connection lost$/);

    // The merged list comes; the dead upstream's part is its last good copy.
    const names = await toolNames();
    expect(names).toEqual(expect.arrayContaining(['lg__echo', 'flaky__echo']));
    expect(statusOf('flaky')).toMatchObject({ state: 'down', era: undefined, lastError: expect.stringContaining('ECONNREFUSED') });
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream down', upstream: 'flaky', reason: expect.stringContaining(frontUrl) }));
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'serving last good list of a failing upstream', upstream: 'flaky', kind: 'tools' }));
    const ready = await readyz();
    expect(ready.upstreams.find((u) => u.name === 'flaky')).toMatchObject({ state: 'down', lastError: expect.stringContaining(`cannot reach ${new URL(frontUrl).origin}: `) });
    expect(ready.upstreams.find((u) => u.name === 'lg')).toMatchObject({ state: 'up' });

    const dead = await postJson(gw.url, modernBody(21, 'tools/call', { name: 'flaky__echo', arguments: { message: 'x' } }), modernHeaders('tools/call', 'flaky__echo'));
    expect(dead.json.error.code).toBe(-31001);
    expect(dead.json.error.message).toBe('Upstream "flaky" is unavailable: connection failed');
    expect(dead.json.error.data).toEqual({ upstream: 'flaky' });
    expect((await client.callTool({ name: 'lg__add', arguments: { a: 2, b: 3 } })).content).toEqual([{ type: 'text', text: '5' }]);

    const discoversBefore = modern.received.filter((r) => r.headers['mcp-method'] === 'server/discover').length;
    await front.start();
    // Recovery is noticed in the background (re-probe with backoff), before any client call.
    await expect.poll(async () => (await readyz()).upstreams.find((u) => u.name === 'flaky')?.state, { message: 'readyz to show flaky up again without a client request', timeout: 8000 }).toBe('up');
    const back = await client.callTool({ name: 'flaky__echo', arguments: { message: 'after' } });
    expect(back.structuredContent).toEqual({ message: 'after' });
    expect(modern.received.filter((r) => r.headers['mcp-method'] === 'server/discover').length).toBe(discoversBefore + 1);
    expect(statusOf('flaky')).toMatchObject({ state: 'up', era: 'modern' });
    expect(statusOf('flaky').lastError).toBeUndefined();
    expect((await readyz()).upstreams.find((u) => u.name === 'flaky')).toMatchObject({ state: 'up' });
  });
});
