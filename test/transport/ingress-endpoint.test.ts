// The real /mcp endpoint behind the real listener on 127.0.0.1, with a gateway made for the
// case: an exception inside the gateway reaches the log, not the client; a client gone before
// its body is read (during authentication) does not leave the read hanging; and however many
// requests are pipelined on a keep-alive connection, watching it for the client going away
// adds at most one listener to it.
import { compose } from '../../src/http/compose.ts';
import { guardLayer, observeLayer, withIdentity } from '../../src/http/mcp-layers.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import type { Gateway } from '../../src/mcp/method-table.ts';
import type { Call, Reply } from '../../src/protocol/call.ts';
import type { Authenticate } from '../../src/identity/authenticate.ts';
import { ANONYMOUS_PRINCIPAL } from '../../src/identity/principal.ts';
import { ok } from '../../src/protocol/result.ts';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';
import { createObserver } from '../../src/http/observer.ts';
import { buildListener } from '../../src/http/listener.ts';
import { createTracing } from '../../src/telemetry/tracing.ts';
import type { HttpReply, HttpRequest } from '../../src/http/http-io.ts';
import { LegacySessions } from '../../src/transport/legacy-sessions.ts';
import { createMcpEndpoint } from '../../src/transport/mcp-endpoint.ts';
import { Notifier } from '../../src/transport/notifier.ts';
import { modernBody, modernHeaders, postJson } from '../harness/gateway.ts';
import { openSocket, rawPost } from './raw-http.ts';
import { closeServer } from '../harness/close-server.ts';

describe('the endpoint on a bare listener', () => {
  const config = parseConfig('upstreams: []\n', '/tmp/ingress-test.yaml', {}, { host: '127.0.0.1', port: 0 });
  let server: Server | undefined;
  let sessions: LegacySessions | undefined;

  afterEach(async () => {
    await closeServer(server);
    sessions?.close();
    server = undefined;
  });

  /** The real endpoint behind the real listener, with `gateway` given; with `slowAuth`,
   * authentication lasts until the client's connection has closed (server side). Every reply
   * the endpoint makes is kept, even one nobody is left to read. */
  async function serve(gateway: Gateway, slowAuth = false) {
    const { logger, lines } = createMemoryLogger();
    const observer = createObserver({ tracing: createTracing({ env: {}, serviceName: 'gatehouse', serviceVersion: '0', logger }), logger });
    const socketClosed: Promise<void>[] = [];
    const sockets: Socket[] = [];
    const authenticate: Authenticate = async () => {
      if (slowAuth) await socketClosed.at(-1);
      return ok(ANONYMOUS_PRINCIPAL);
    };
    sessions = new LegacySessions(undefined, 60_000);
    const endpoint = compose([observeLayer(observer, logger, config.listen.path), guardLayer(config)], withIdentity(authenticate, createMcpEndpoint({ config, gateway, sessions, notifier: new Notifier(), logger, observer })));
    const replies: HttpReply[] = [];
    const arrived: HttpRequest[] = [];
    const mcp = async (req: HttpRequest): Promise<HttpReply> => {
      arrived.push(req);
      const reply = await endpoint(req);
      replies.push(reply);
      return reply;
    };
    server = createServer(buildListener({ config, upstreams: [], mcp, logger }));
    server.on('connection', (s: Socket) => {
      sockets.push(s);
      socketClosed.push(new Promise((r) => s.once('close', () => r())));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    return { port: (server.address() as AddressInfo).port, lines, arrived, replies, sockets };
  }

  /** A gateway whose every method answers with `reply` (and records nothing). */
  const gatewayThat = (reply: (call: Call) => Promise<Reply>): Gateway => ({ handle: async (call) => ({ reply: await reply(call), record: {} }), knows: () => true, capabilities: () => ({}), legacyCapabilities: () => ({}), instructions: () => undefined });

  it('answers an exception inside the gateway with a fixed message, and logs it with the request id', async () => {
    const { port, lines } = await serve(gatewayThat(async () => {
      throw new Error('connect ECONNREFUSED 10.20.30.40:5432 (/srv/gatehouse/db.ts)');
    }));
    const res = await postJson(`http://127.0.0.1:${port}/mcp`, modernBody(77, 'tools/call', { name: 'up__echo', arguments: {} }), modernHeaders('tools/call', 'up__echo'));
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 77, error: { code: -32603, message: 'Internal error: the gateway failed to complete this request' } });
    expect(res.text).not.toMatch(/ECONNREFUSED|10\.20\.30\.40|\/srv/);
    const logged = lines.find((l) => l.level === 'error' && l.rpcId === 77);
    expect(logged).toMatchObject({ method: 'tools/call', requestId: expect.stringMatching(/^[0-9a-f]{16}$/), error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('watches a keep-alive connection with at most one listener of its own, however many requests were pipelined on it', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const served = await serve(gatewayThat(async () => {
        await new Promise((r) => setTimeout(r, 5));
        return ok({ content: [] });
      }));
      const socket = await openSocket(served.port);
      let received = '';
      socket.on('data', (d: Buffer) => (received += d.toString()));
      const batch = async (n: number, from: number): Promise<number> => {
        const requests = Array.from({ length: n }, (_, i) => rawPost(modernBody(from + i, 'tools/call', { name: 'up__echo', arguments: {} }), modernHeaders('tools/call', 'up__echo')));
        const answered = received.split('HTTP/1.1 200').length - 1;
        socket.write(requests.join(''));
        await expect.poll(() => received.split('HTTP/1.1 200').length - 1, { message: `${n} answers`, timeout: 3000 }).toBe(answered + n);
        return served.sockets[0]!.listenerCount('close');
      };
      const alone = await batch(1, 0);
      const pipelined = await batch(30, 100);
      expect(pipelined).toBeLessThanOrEqual(alone + 1);
      expect(await batch(30, 200)).toBe(pipelined);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
      socket.destroy();
    } finally {
      process.off('warning', onWarning);
    }
  });

  it.each([
    ['mid-body, settles its body read with the mid-body error', 10],
    ['after sending the whole request, still has it read, and the modern request cancelled (b.3)', 0],
  ])('a client gone during authentication %s', async (_label, cut) => {
    const seen: Array<{ method: string; aborted: boolean }> = [];
    const served = await serve(gatewayThat(async (call) => {
      seen.push({ method: call.method, aborted: call.signal.aborted });
      return ok({ content: [] });
    }), true);
    const socket = await openSocket(served.port);
    const request = rawPost(modernBody(5, 'tools/call', { name: 'up__echo', arguments: {} }), modernHeaders('tools/call', 'up__echo'));
    socket.write(request.slice(0, request.length - cut));
    await expect.poll(() => served.arrived.length, { message: 'the request to arrive', timeout: 3000 }).toBe(1);
    socket.destroy();
    // Nobody reads the answer; that the endpoint made one shows that the body read settled.
    await expect.poll(() => served.replies.length, { message: 'the endpoint to answer', timeout: 2000 }).toBe(1);
    if (cut === 0) {
      expect(seen).toEqual([{ method: 'tools/call', aborted: true }]);
    } else {
      expect(seen).toEqual([]);
      const reply = served.replies[0] as { status: number; body: string };
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body).error).toEqual({ code: -32600, message: 'Invalid request: the request body ended early' });
    }
  });
});
