// SSE backpressure (src/transport/sse-stream.ts) on a real Node server on 127.0.0.1: a client
// that stops reading gets its stream dropped once a bounded backlog waits for it, instead of
// the gateway holding every notification it was ever sent; a client that reads gets them all.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseStream } from '../../src/transport/sse-stream.ts';

const CAP = 256 * 1024;
const MESSAGE = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, message: 'x'.repeat(1000) } };

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  const s = server;
  server = undefined;
  if (s) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** A server whose one route attaches a stream and hands it, and its response, to the test. */
async function serveStream(): Promise<{ port: number; next: Promise<{ stream: SseStream; res: ServerResponse; cancelled: () => boolean }> }> {
  let hand!: (v: { stream: SseStream; res: ServerResponse; cancelled: () => boolean }) => void;
  const next = new Promise<{ stream: SseStream; res: ServerResponse; cancelled: () => boolean }>((r) => (hand = r));
  server = createServer((_req, res) => {
    let cancelled = false;
    const stream = new SseStream({ maxUnsentBytes: CAP, onCancel: () => (cancelled = true) });
    stream.attach(res);
    hand({ stream, res, cancelled: () => cancelled });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as AddressInfo).port, next };
}

function openRaw(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.write('GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
  return socket;
}

describe('an SSE stream whose client does not read', () => {
  it('is dropped once its unsent backlog passes the cap, and counts as the client gone', async () => {
    const { port, next } = await serveStream();
    const socket = openRaw(port);
    socket.pause(); // reads nothing: the kernel's buffers fill, then the response's own
    const { stream, res, cancelled } = await next;
    let sent = 0;
    let peak = 0;
    // 64 MB offered, in 1 KB messages, one event-loop turn at a time so the socket can flush.
    for (let round = 0; round < 64 && !stream.closed; round++) {
      for (let i = 0; i < 1000 && !stream.closed; i++) {
        stream.send(MESSAGE);
        sent++;
        peak = Math.max(peak, res.writableLength);
      }
      await new Promise((r) => setImmediate(r));
    }
    expect(stream.closed).toBe(true);
    expect(cancelled()).toBe(true);
    expect(res.destroyed).toBe(true);
    // Never more than the cap and one message held, though far more was offered.
    expect(peak).toBeLessThanOrEqual(CAP + 2048);
    expect(sent).toBeLessThanOrEqual(64_000);
    // Later sends are no-ops, not errors.
    stream.send(MESSAGE);
    stream.close();
  });

  it('delivers everything to a client that reads, however much it is', async () => {
    const { port, next } = await serveStream();
    const socket = openRaw(port);
    let received = 0;
    socket.on('data', (c: Buffer) => (received += c.length));
    const { stream, cancelled } = await next;
    let bytes = 0;
    // 8 MB in all, in bursts of 100 KB: far past the cap in total, never in one burst.
    for (let round = 0; round < 80; round++) {
      for (let i = 0; i < 100; i++) {
        stream.send(MESSAGE);
        bytes += JSON.stringify(MESSAGE).length + 23;
      }
      // A reading client drains each burst before the next is sent.
      await expect.poll(() => received, { timeout: 5000, interval: 5 }).toBeGreaterThanOrEqual(bytes);
      expect(stream.closed).toBe(false);
    }
    stream.close();
    await expect.poll(() => received, { timeout: 5000, interval: 5 }).toBeGreaterThanOrEqual(bytes);
    expect(stream.closed).toBe(true);
    expect(cancelled()).toBe(false);
    expect(received).toBeGreaterThanOrEqual(bytes);
  });
});
