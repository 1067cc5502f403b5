// The body reader on a real node:http server on 127.0.0.1: a body still arriving when the read
// begins is read through listeners, which must all be gone once it is settled, or a request
// that stays open after its body (a listen stream) would keep them, and its body, for its life.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
