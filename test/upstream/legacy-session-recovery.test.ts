// A legacy upstream that forgets its sessions (a restart) while several calls are in flight
// in one of them, against a real Node server on 127.0.0.1: every call gets its 404, each is
// sent again once in the new session (README, Protocol eras: bridging step 1: a 404 for the session means the request
// was not processed), and only one new session is opened whatever order the 404s arrive in.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { HttpUpstream } from '../../src/upstream/http/http-upstream.ts';
import type { UpstreamRequest } from '../../src/upstream/upstream.ts';
import { closeAfterEachTest, httpUpstreamAt } from './http-upstream-at.ts';
import { defaultResult, startScriptedServer, type ScriptedServer } from './scripted-server.ts';

let server: ScriptedServer | undefined;
let upstream: HttpUpstream | undefined;

closeAfterEachTest();

function call(message: string): UpstreamRequest {
  return { method: 'tools/call', params: { name: 'echo', arguments: { message } }, clientCapabilities: {} };
}

/** How many 404 answers the gateway's HTTP client has read to the end (undici's own
 * diagnostics channels: what HttpUpstream is handed next). */
function count404sRead(): { read(): number; stop(): void } {
  const statuses = new WeakMap<object, number>();
  let read = 0;
  const onHeaders = (m: unknown): void => {
    const { request, response } = m as { request: object; response: { statusCode: number } };
    statuses.set(request, response.statusCode);
  };
  const onTrailers = (m: unknown): void => {
    if (statuses.get((m as { request: object }).request) === 404) read++;
  };
  subscribe('undici:request:headers', onHeaders);
  subscribe('undici:request:trailers', onTrailers);
  return {
    read: () => read,
    stop: () => {
      unsubscribe('undici:request:headers', onHeaders);
      unsubscribe('undici:request:trailers', onTrailers);
    },
  };
}

const sessionNotFound = (res: ServerResponse): void => void res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}');

/** A legacy upstream holding every tools/call of its first session until the test answers
 * it, and its second initialize until the test opens it. */
async function setUp(): Promise<{ held: Map<string, ServerResponse>; openInit: () => void }> {
  const held = new Map<string, ServerResponse>();
  let openInit!: () => void;
  const initGate = new Promise<void>((r) => (openInit = r));
  let inits = 0;
  server = await startScriptedServer({
    script: (r, res) => {
      if (r.method !== 'tools/call' || r.headers['mcp-session-id'] !== server!.sessions[0]) return defaultResult(r);
      held.set((r.body.params as { arguments: { message: string } }).arguments.message, res);
      return undefined;
    },
    beforeInitialize: () => (++inits > 1 ? initGate : Promise.resolve()),
  });
  upstream = httpUpstreamAt(server.url, 'legacy', 5000);
  await upstream.start();
  return { held, openInit };
}

const echoed = (m: string) => ({ ok: true, value: { content: [{ type: 'text', text: `Echo: ${m}` }] } });

describe('a legacy upstream that forgets its sessions under calls in flight', () => {
  it('sends a call whose 404 arrives during the re-initialize again in the new session', async () => {
    const { held, openInit } = await setUp();
    const [first] = server!.sessions;
    const a = upstream!.request(call('a'));
    const c = upstream!.request(call('c'));
    let cSettled = false;
    void c.then(() => (cSettled = true));
    await expect.poll(() => held.size, { message: 'two calls in flight in the first session', timeout: 5000 }).toBe(2);
    server!.forgetSessions();

    const notFound = count404sRead();
    sessionNotFound(held.get('a')!);
    await expect.poll(() => server!.count('initialize'), { message: 'the re-initialize to reach the upstream', timeout: 5000 }).toBe(2);
    sessionNotFound(held.get('c')!);
    // c's 404 is read while the re-initialize is held: c waits for it rather than failing
    // with "HTTP 404".
    await expect.poll(notFound.read, { message: 'both 404s read', timeout: 5000 }).toBe(2);
    notFound.stop();
    expect(cSettled).toBe(false);
    openInit();
    expect(await Promise.all([a, c])).toEqual([echoed('a'), echoed('c')]);

    expect(server!.sessions).toHaveLength(2);
    const calls = server!.received.filter((r) => r.method === 'tools/call');
    expect(calls.map((r) => r.headers['mcp-session-id'])).toEqual([first, first, server!.sessions[1], server!.sessions[1]]);
  });

  it('keeps the new session when a call\'s 404 in the old one arrives after it is in use', async () => {
    const { held, openInit } = await setUp();
    openInit();
    const a = upstream!.request(call('a'));
    const b = upstream!.request(call('b'));
    await expect.poll(() => held.size, { message: 'two calls in flight in the first session', timeout: 5000 }).toBe(2);
    server!.forgetSessions();

    sessionNotFound(held.get('a')!);
    expect(await a).toEqual(echoed('a'));
    const second = server!.sessions[1];
    sessionNotFound(held.get('b')!);
    expect(await b).toEqual(echoed('b'));

    // b went again in the session a opened: none forgotten by the gateway, none opened for b.
    expect(server!.sessions).toEqual([server!.sessions[0], second]);
    expect(server!.count('initialize')).toBe(2);
    expect(server!.received.filter((r) => r.method === 'tools/call').at(-1)!.headers['mcp-session-id']).toBe(second);
    expect(await upstream!.request(call('d'))).toEqual(echoed('d'));
    expect(server!.received.at(-1)!.headers['mcp-session-id']).toBe(second);
    expect(server!.sessions).toHaveLength(2);
  });
});
