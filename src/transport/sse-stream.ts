// A server-sent-events response the gateway writes to as messages arrive: one JSON-RPC
// message per event's data (digest b.2), `X-Accel-Buffering: no` so proxies do not hold it,
// comment lines as keep-alives on long-lived streams.
import type { JsonObject } from '../jsonrpc/message.ts';

export interface SseStream {
  response: Response;
  send(message: JsonObject): void;
  /** A message already serialized as JSON. */
  sendText(json: string): void;
  close(): void;
  readonly closed: boolean;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

const encoder = new TextEncoder();

export function openSseStream(opts: { headers?: Record<string, string>; keepAliveMs?: number; onCancel?: () => void }): SseStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (cancelled: boolean): void => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    if (cancelled) opts.onCancel?.();
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      // The client went away: for HTTP that is the cancellation (digest b.3).
      finish(true);
    },
  });
  if (opts.keepAliveMs) {
    timer = setInterval(() => {
      if (!closed) controller.enqueue(encoder.encode(': keep-alive\n\n'));
    }, opts.keepAliveMs);
    timer.unref();
  }
  const stream: SseStream = {
    response: new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...opts.headers } }),
    send(message) {
      stream.sendText(JSON.stringify(message));
    },
    sendText(json) {
      if (closed) return;
      controller.enqueue(encoder.encode(`event: message\ndata: ${json}\n\n`));
    },
    close() {
      if (closed) return;
      controller.close();
      finish(false);
    },
    get closed() {
      return closed;
    },
  };
  return stream;
}
