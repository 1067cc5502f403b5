// The body reader on a real node:http server on 127.0.0.1: a body still arriving when the read
// begins is read through listeners, which must all be gone once it is settled, or a request
// that stays open after its body (a listen stream) would keep them, and its body, for its life.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeRequest } from './http-io.ts';

const EVENTS = ['data', 'end', 'error', 'close'] as const;
const counts = (req: IncomingMessage): number[] => EVENTS.map((e) => req.listenerCount(e));

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** Serves one request: reads its body (limit, timeout) while it still arrives, and answers
 * with what came back and the request's listeners before and after. The client sends `first`,
 * waits for the answer's head (the read has begun), then sends `rest` and ends. */
async function readWhileArriving(first: string, rest: string, limit = 1024, timeoutMs = 10_000): Promise<{ result: unknown; before: number[]; after: number[] }> {
  server = createServer((req, res) => {
    const before = counts(req);
    const read = nodeRequest(req, res).readBody(limit, timeoutMs);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    void Promise.resolve(read).then((result) => res.end(JSON.stringify({ result, before, after: counts(req) })));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      if (rest !== '') req.end(rest);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      });
    });
    req.on('error', reject);
    req.flushHeaders();
    req.write(first);
  });
}

/** Serves one request, sent with its body in one write on a raw socket (so in one read, on
 * loopback): reads the body and answers with it and every event the read listened for. */
async function readSentWhole(body: string): Promise<{ result: unknown; listenedFor: string[] }> {
  server = createServer((req, res) => {
    const listenedFor: string[] = [];
    for (const method of ['on', 'once', 'addListener', 'prependListener'] as const) {
      const original = req[method].bind(req);
      req[method] = ((event: string, fn: (...args: unknown[]) => void) => {
        listenedFor.push(event);
        return original(event, fn);
      }) as never;
    }
    void Promise.resolve(nodeRequest(req, res).readBody(1024, 10_000)).then((result) => res.end(JSON.stringify({ result, listenedFor })));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => resolve(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))));
    socket.on('error', reject);
  });
}

describe('reading a body that came with its headers', () => {
  it('takes it whole once the read is parsed, with no listener on the request', async () => {
    const body = '{"jsonrpc":"2.0","method":"ping","id":1}';
    const { result, listenedFor } = await readSentWhole(body);
    expect(result).toEqual({ ok: true, value: body });
    expect(listenedFor).not.toContain('data');
    expect(listenedFor).not.toContain('end');
  });
});

describe('reading a body that is still arriving', () => {
  it('returns it whole and leaves none of its listeners on the request', async () => {
    const { result, before, after } = await readWhileArriving('{"jsonrpc":"2.0",', '"method":"ping","id":1}');
    expect(result).toEqual({ ok: true, value: '{"jsonrpc":"2.0","method":"ping","id":1}' });
    expect(after).toEqual(before);
  });

  it('refuses one over the limit and lets go of the request as well', async () => {
    const { result, before, after } = await readWhileArriving('x'.repeat(600), 'y'.repeat(600), 1000);
    expect(result).toEqual({ ok: false, error: { kind: 'body_too_large', limit: 1000 } });
    expect(after).toEqual(before);
  });

  it('refuses one not all there at its deadline and lets go of the request as well', async () => {
    const { result, before, after } = await readWhileArriving('{"jsonrpc":', '', 1024, 50);
    expect(result).toEqual({ ok: false, error: { kind: 'body_timeout', timeoutMs: 50 } });
    expect(after).toEqual(before);
  });
});
