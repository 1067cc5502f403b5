// One exchange (src/upstream/http-exchange.ts) against a real Node HTTP server on 127.0.0.1:
// every kind of answer a Streamable HTTP server may give (MCP 2026-07-28, basic/transports/streamable-http (responses)), relayed as it arrives.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonRpcNotification, JsonRpcRequest } from '../../src/protocol/message.ts';
import { exchange, type ExchangeInput } from '../../src/upstream/http/http-exchange.ts';
import { SSE_HEADERS, sseEvent } from './scripted-server.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: { id?: unknown }) => void;

let server: Server | undefined;
let pool: Pool | undefined;

afterEach(async () => {
  await pool?.destroy();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = pool = undefined;
});

async function serve(handler: Handler): Promise<Pool> {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => handler(req, res, JSON.parse(raw || '{}') as { id?: unknown }));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return pool;
}

function input(p: Pool, extra: Partial<ExchangeInput> = {}): ExchangeInput {
  return { pool: p, path: '/mcp', headers: { 'content-type': 'application/json' }, body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }, ...extra };
}

const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };

describe('exchange over SSE', () => {
  it('hands over each notification as it arrives, before the response is sent', async () => {
    let delivered!: () => void;
    const seen = new Promise<void>((r) => (delivered = r));
    const p = await serve((_req, res, body) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(`id: x\ndata: \n\n${sseEvent(progress)}`);
      // The response goes out only once the client has relayed the notification.
      void seen.then(() => res.end(sseEvent({ jsonrpc: '2.0', id: body.id, result: { ok: true } })));
    });
    const notes: JsonRpcNotification[] = [];
    const outcome = await exchange(input(p, { onNotification: (n) => (notes.push(n), delivered()) }));
    expect(notes).toEqual([progress]);
    expect(outcome).toMatchObject({ kind: 'response', status: 200, message: { id: 7, result: { ok: true } } });
  });

  it('hands over the first event of a long burst a turn before the rest of its chunk, and every event in order', async () => {
    const count = 600;
    const note = (i: number): JsonRpcNotification => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: i } });
    const p = await serve((_req, res, body) => {
      res.writeHead(200, SSE_HEADERS);
      // One write of about 60 KB: one HTTP chunk, read in one or a few parts.
      let text = 'id: x\ndata: \n\n';
      for (let i = 1; i <= count; i++) text += sseEvent(note(i));
      res.end(text + sseEvent({ jsonrpc: '2.0', id: body.id, result: { ok: true } }));
    });
    const notes: JsonRpcNotification[] = [];
    let turnPassed = false;
    let secondAfterATurn: boolean | undefined;
    const outcome = await exchange(
      input(p, {
        onNotification: (n) => {
          notes.push(n);
          // Set in the next turn: the second event sees it only if it was held back for one.
          if (notes.length === 1) setImmediate(() => (turnPassed = true));
          if (notes.length === 2) secondAfterATurn = turnPassed;
        },
      }),
    );
    expect(secondAfterATurn).toBe(true);
    expect(notes).toEqual(Array.from({ length: count }, (_, i) => note(i + 1)));
    expect(outcome).toMatchObject({ kind: 'response', status: 200, message: { id: 7, result: { ok: true } } });
  });

  it('passes requests the upstream starts on the stream to onServerRequest', async () => {
    const p = await serve((_req, res, body) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(sseEvent({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' }) + sseEvent({ jsonrpc: '2.0', id: body.id, result: {} }));
    });
    const requests: JsonRpcRequest[] = [];
    const outcome = await exchange(input(p, { onServerRequest: (r) => requests.push(r) }));
    expect(requests).toEqual([{ jsonrpc: '2.0', id: 'srv-1', method: 'ping' }]);
    expect(outcome.kind).toBe('response');
  });

  it('answers as soon as the response arrives on a stream the server keeps open', async () => {
    const p = await serve((_req, res, body) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(sseEvent({ jsonrpc: '2.0', id: body.id, result: { early: true } }));
    });
    expect(await exchange(input(p))).toMatchObject({ kind: 'response', message: { result: { early: true } } });
  });

  it('reports a stream that ends without the response as a network error after a status', async () => {
    const p = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(sseEvent(progress) + 'data: not json\n\n');
    });
    const outcome = await exchange(input(p));
    expect(outcome).toMatchObject({ kind: 'network_error', responded: true });
    expect(outcome.kind === 'network_error' && outcome.error.message).toBe('stream closed before the response arrived');
  });

  it('stops and reports the error when relaying a notification throws', async () => {
    const p = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(sseEvent(progress));
    });
    const outcome = await exchange(input(p, { onNotification: () => { throw new Error('relay broke'); } }));
    expect(outcome).toMatchObject({ kind: 'network_error', responded: true, error: { message: 'relay broke' } });
  });
});

describe('resuming a 2025-11-25 stream the upstream closed early (MCP 2025-11-25, basic/transports, resumability)', () => {
  /** Primes with an id and `retry`, closes the POST stream, then answers a GET that carries Last-Event-ID. */
  async function closingServer(getAnswer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ p: Pool; seen: { method: string; lastEventId?: string }[] }> {
    const seen: { method: string; lastEventId?: string }[] = [];
    const p = await serve((req, res) => {
      const lastEventId = req.headers['last-event-id'];
      seen.push({ method: req.method!, ...(typeof lastEventId === 'string' ? { lastEventId } : {}) });
      if (req.method === 'GET') return getAnswer(req, res);
      res.writeHead(200, SSE_HEADERS);
      res.end('id: ev-1\nretry: 40\ndata: \n\n');
    });
    return { p, seen };
  }

  it('asks again with GET and Last-Event-ID after the retry interval, and takes the response from that stream', async () => {
    const { p, seen } = await closingServer((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(`id: ev-2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { resumed: true } })}\n\n`);
    });
    const outcome = await exchange(input(p, { resumable: true, headers: { 'content-type': 'application/json', 'mcp-session-id': 's1' } }));
    expect(outcome).toMatchObject({ kind: 'response', message: { id: 7, result: { resumed: true } } });
    expect(seen.map((s) => [s.method, s.lastEventId])).toEqual([['POST', undefined], ['GET', 'ev-1']]);
  });

  it('gives up after a few resumptions of a server that keeps closing, and never resends the call', async () => {
    const { p, seen } = await closingServer((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end('id: ev-again\ndata: \n\n');
    });
    const outcome = await exchange(input(p, { resumable: true }));
    expect(outcome).toMatchObject({ kind: 'network_error', responded: true });
    expect(seen.map((s) => s.method)).toEqual(['POST', 'GET', 'GET', 'GET']);
  });

  it('fails as a lost stream, not a lost session, when the GET is refused', async () => {
    const { p } = await closingServer((_req, res) => void res.writeHead(404).end());
    expect(await exchange(input(p, { resumable: true }))).toMatchObject({ kind: 'network_error', error: { message: expect.stringMatching(/resuming the stream failed \(HTTP 404\)/) } });
  });

  it('does not resume a 2026-07-28 exchange (no resumable flag)', async () => {
    const { p, seen } = await closingServer((_req, res) => void res.writeHead(405).end());
    expect(await exchange(input(p))).toMatchObject({ kind: 'network_error', responded: true });
    expect(seen.map((s) => s.method)).toEqual(['POST']);
  });
});

describe('exchange with other answers', () => {
  it('reads a JSON body that arrives in many chunks, characters split between them whole', async () => {
    const text = 'é€😀'.repeat(20_000);
    const p = await serve((_req, res, body) => {
      const bytes = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { text } }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      // Odd-sized pieces, so that some end inside a multi-byte character; flushed one by one.
      const write = (at: number): void => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, at + 7_777), () => write(at + 7_777));
      };
      write(0);
    });
    const outcome = await exchange(input(p));
    expect(outcome).toMatchObject({ kind: 'response', message: { id: 7, result: { text } } });
  });

  it('reads a JSON body', async () => {
    const p = await serve((_req, res, body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { json: 1 } })));
    expect(await exchange(input(p))).toMatchObject({ kind: 'response', message: { result: { json: 1 } } });
  });

  it('takes 202 for an accepted notification', async () => {
    const p = await serve((_req, res) => res.writeHead(202).end());
    expect(await exchange(input(p, { body: { jsonrpc: '2.0', method: 'notifications/initialized' } }))).toMatchObject({ kind: 'accepted', status: 202 });
  });

  it('keeps the body and the JSON-RPC error of an HTTP error', async () => {
    const error = { jsonrpc: '2.0', id: 7, error: { code: -32020, message: 'Header mismatch' } };
    const p = await serve((_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(error)));
    expect(await exchange(input(p))).toMatchObject({ kind: 'http_error', status: 400, bodyText: JSON.stringify(error), message: error });
  });

  it('reports a 200 whose body is not the response as an HTTP error with the body', async () => {
    const p = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":99,"result":{}}'));
    expect(await exchange(input(p))).toMatchObject({ kind: 'http_error', status: 200, bodyText: '{"jsonrpc":"2.0","id":99,"result":{}}' });
  });
});

describe('exchange with a long timeout of its own', () => {
  /** The pool's own header and body timers at 200 ms (undici rounds them up to about 1 s),
   * standing in for its 300 s default against a call configured to wait longer than that. */
  async function shortTimerPool(handler: Handler): Promise<Pool> {
    const first = await serve(handler);
    await first.destroy();
    pool = new Pool(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`, { headersTimeout: 200, bodyTimeout: 200 });
    return pool;
  }

  it('waits past the pool\'s header timer for a slow answer', async () => {
    const p = await shortTimerPool((_req, res, body) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { late: true } })), 1600);
    });
    expect(await exchange(input(p, { timeoutMs: 4000 }))).toMatchObject({ kind: 'response', message: { result: { late: true } } });
  });

  it('waits past the pool\'s body timer between events of a stream', async () => {
    const p = await shortTimerPool((_req, res, body) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(sseEvent(progress));
      setTimeout(() => res.end(sseEvent({ jsonrpc: '2.0', id: body.id, result: { slow: true } })), 1600);
    });
    expect(await exchange(input(p, { timeoutMs: 4000 }))).toMatchObject({ kind: 'response', message: { result: { slow: true } } });
  });

  it('still ends at its own timeout', async () => {
    const p = await shortTimerPool((_req, res) => void setTimeout(() => res.writeHead(200, SSE_HEADERS).end(), 2500));
    expect(await exchange(input(p, { timeoutMs: 300 }))).toEqual({ kind: 'timeout' });
  });
});

describe('exchange cut short', () => {
  it('times out, and closes the connection so that the server sees the cancel (MCP 2026-07-28, basic/patterns/cancellation)', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => (closed = r));
    const p = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.on('close', closed);
    });
    expect(await exchange(input(p, { timeoutMs: 100 }))).toEqual({ kind: 'timeout' });
    await serverSawClose;
  });

  it('stops when the caller goes away', async () => {
    const p = await serve((_req, res) => res.writeHead(200, SSE_HEADERS).write(': waiting\n\n'));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    expect(await exchange(input(p, { signal: abort.signal }))).toEqual({ kind: 'aborted' });
  });

  it('sends nothing for a caller that is already gone', async () => {
    let requests = 0;
    await serve((_req, res) => (requests++, res.writeHead(202).end()));
    // One connection: a request sent first is read first.
    const one = new Pool(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`, { connections: 1 });
    const abort = new AbortController();
    abort.abort();
    expect(await exchange(input(one, { signal: abort.signal }))).toEqual({ kind: 'aborted' });
    // The next exchange is answered after the first would have been read.
    expect(await exchange(input(one))).toMatchObject({ kind: 'accepted', status: 202 });
    expect(requests).toBe(1);
    await one.destroy();
  });

  it('reports a refused connection as a network error before any status', async () => {
    const p = await serve(() => undefined);
    await new Promise<void>((r) => server!.close(() => r()));
    const outcome = await exchange(input(p));
    expect(outcome).toMatchObject({ kind: 'network_error', responded: false });
    expect(outcome.kind === 'network_error' && `${outcome.error.message} ${(outcome.error as { code?: string }).code}`).toContain('ECONNREFUSED');
  });
});
