// A server-sent-events response the gateway writes to as messages arrive: one JSON-RPC
// message per event's data (MCP 2026-07-28, basic/transports/streamable-http (responses)), `X-Accel-Buffering: no` so proxies do not hold it,
// comment lines as keep-alives on long-lived streams. A stream can be written to before it
// is attached to its HTTP response (a call's first notification decides that the reply is a
// stream); what was sent meanwhile is written, in order, when it is attached.
//
// Backpressure. A client that stops reading must not make the gateway hold an ever-growing
// backlog of notifications for it. Once more than `maxUnsentBytes` wait in the response's
// buffer (past what the kernel's socket buffers already took), the stream is given up: the
// connection is dropped and the stream ends as if the client had gone (onCancel), so a
// modern call is cancelled upstream and a listen stream stops listening. A message is never
// cut: the check comes before each write, so the final reply, however large, is written whole.
//
// Events written in one turn of the event loop (the notifications of one upstream read, say)
// go to the response as one write at the end of that turn: each write of a chunked response
// costs Node several buffered socket writes, which for a thousand small progress events
// would cost more than the events themselves.
//
// Resumable streams (2025-11-25 only; sse-replay.ts): with a `replay` log every event gets an
// id and is recorded, also after the client went away, so a GET with Last-Event-ID can give
// it what it missed; prime() sends the id-only priming event with the retry interval first.
import type { ServerResponse } from 'node:http';
import type { JsonObject } from '../protocol/message.ts';
import { onClientGone } from '../http/client-gone.ts';
import type { ReplayLog } from './sse-replay.ts';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** The most a stream holds unsent for a client that does not read (SseStream's backpressure). */
export const SSE_MAX_UNSENT_BYTES = 8 * 1024 * 1024;

export interface SseOptions {
  headers?: Readonly<Record<string, string>>;
  keepAliveMs?: number;
  /** Unsent bytes past which a stream whose client does not read is dropped; SSE_MAX_UNSENT_BYTES by default. */
  maxUnsentBytes?: number;
  /** The client went away before the stream was closed: for HTTP that is the cancellation (MCP 2026-07-28, basic/patterns/cancellation). */
  onCancel?: () => void;
  /** Ids and a record of every event, for resumption (2025-11-25). */
  replay?: ReplayLog;
  /** The call goes on without its client (no onCancel): see `outlivesClient`. */
  outlivesClient?: boolean;
}

export class SseStream {
  #res: ServerResponse | undefined;
  #pending: string[] = [];
  /** Events of this turn not yet handed to the response (attached), and their length. */
  #queued: string[] = [];
  #queuedLength = 0;
  #closed = false;
  #ended = false;
  #timer: NodeJS.Timeout | undefined;
  /** close() was called: the stream's last event was sent (or the call ended). */
  #finished = false;
  #whenFinished: (() => void)[] | undefined;
  readonly #opts: SseOptions;

  constructor(opts: SseOptions = {}) {
    this.#opts = opts;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A notification stream (listen, legacy GET: the ones with keep-alives), held for as long as
   * its client listens and counted under limits.maxStreams, not as a request being answered. */
  get lasting(): boolean {
    return this.#opts.keepAliveMs !== undefined;
  }

  /** Binds the stream to its response: headers now, then whatever was sent before. */
  attach(res: ServerResponse): void {
    this.#res = res;
    res.writeHead(200, this.#opts.headers ? { ...SSE_HEADERS, ...this.#opts.headers } : SSE_HEADERS);
    if (this.#pending.length > 0) res.write(this.#pending.join(''));
    else res.flushHeaders();
    this.#pending = [];
    if (this.#closed) {
      this.#end();
      return;
    }
    onClientGone(res, () => {
      if (this.#ended) return;
      // The client went away first.
      this.#ended = true;
      if (this.#closed) return;
      this.#stop();
      this.#opts.onCancel?.();
    });
    // Gone already: no keep-alives for nobody.
    if (this.#closed) return;
    const every = this.#opts.keepAliveMs;
    if (every) {
      this.#timer = setInterval(() => this.#write(': keep-alive\n\n'), every);
      this.#timer.unref();
    }
  }

  send(message: JsonObject): void {
    this.sendText(JSON.stringify(message));
  }

  /** A message already serialized as JSON. */
  sendText(json: string): void {
    const replay = this.#opts.replay;
    if (replay === undefined) {
      if (!this.#closed) this.#write(`event: message\ndata: ${json}\n\n`);
      return;
    }
    if (this.#finished) return;
    const id = replay.nextId();
    const chunk = `id: ${id}\nevent: message\ndata: ${json}\n\n`;
    replay.record(id, chunk);
    if (!this.#closed) this.#write(chunk);
  }

  /** A message serialized as JSON in parts (a large one: respond.ts), written part by part
   * without joining them, except into a replay log, which keeps each event as one chunk. */
  sendParts(parts: readonly string[]): void {
    if (parts.length === 1 || this.#opts.replay !== undefined) {
      this.sendText(parts.join(''));
      return;
    }
    if (this.#closed) return;
    // One message: the backlog check comes once, before it, so that it is never cut.
    this.#write('event: message\ndata: ');
    const res = this.#res;
    if (this.#closed) return;
    this.#flush();
    for (const p of parts) {
      if (res === undefined) this.#pending.push(p);
      else res.write(p);
    }
    if (res === undefined) this.#pending.push('\n\n');
    else res.write('\n\n');
  }

  /** Hands the response to a relayed result (client-relay.ts), which writes one event's data
   * and its end; the stream is closed after it. Not before the stream is attached, nor with a
   * replay log, which keeps every event whole. */
  relayInto(): ServerResponse | undefined {
    const res = this.#res;
    if (res === undefined || this.#closed || this.#opts.replay !== undefined) return undefined;
    this.#write('event: message\ndata: ');
    if (this.#closed) return undefined;
    this.#flush();
    return res;
  }

  /** The priming event (an id and empty data) and how long a client waits before it reconnects. */
  prime(retryMs: number): void {
    const replay = this.#opts.replay;
    if (replay === undefined || this.#closed) return;
    this.#write(`id: ${replay.nextId()}\nretry: ${Math.max(0, Math.floor(retryMs))}\ndata: \n\n`);
  }

  /** An event already formatted (a replayed one). */
  sendChunk(chunk: string): void {
    if (!this.#closed) this.#write(chunk);
  }

  /** close() was called. */
  get finished(): boolean {
    return this.#finished;
  }

  /** The call this stream answers goes on when its client leaves (2025-11-25, where losing
   * the stream is not a cancellation). */
  get outlivesClient(): boolean {
    return this.#opts.outlivesClient === true;
  }

  /** Runs `fn` once close() is called: the call this stream answers has ended. */
  whenFinished(fn: () => void): void {
    if (this.#finished) fn();
    else (this.#whenFinished ??= []).push(fn);
  }

  close(): void {
    if (!this.#finished) {
      this.#finished = true;
      this.#opts.replay?.end();
      const waiting = this.#whenFinished;
      this.#whenFinished = undefined;
      if (waiting) for (const fn of waiting) fn();
    }
    if (this.#closed) return;
    this.#stop();
    if (this.#res) this.#end();
  }

  #write(chunk: string): void {
    const res = this.#res;
    if (res === undefined) {
      this.#pending.push(chunk);
      return;
    }
    if (res.writableLength + this.#queuedLength > (this.#opts.maxUnsentBytes ?? SSE_MAX_UNSENT_BYTES)) {
      this.#overflow(res);
      return;
    }
    if (this.#queued.length === 0) process.nextTick(this.#flushTurn);
    this.#queued.push(chunk);
    this.#queuedLength += chunk.length;
  }

  readonly #flushTurn = (): void => this.#flush();

  /** Hands the events queued this turn to the response, as one write. */
  #flush(): void {
    if (this.#queued.length === 0) return;
    const text = this.#queued.length === 1 ? this.#queued[0]! : this.#queued.join('');
    this.#queued = [];
    this.#queuedLength = 0;
    const res = this.#res;
    if (res !== undefined && !res.destroyed && !res.writableEnded) res.write(text);
  }

  /** The client has not read what it was sent: drop it as if it had gone. */
  #overflow(res: ServerResponse): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#queued = [];
    this.#queuedLength = 0;
    this.#stop();
    res.destroy();
    this.#opts.onCancel?.();
  }

  #end(): void {
    this.#flush();
    this.#ended = true;
    this.#res?.end();
  }

  #stop(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }
}
