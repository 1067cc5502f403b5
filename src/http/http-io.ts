// The /mcp endpoint's view of HTTP, on Node's own request and response objects: the hot path
// skips the Web Request/Response layer (it showed in every profile). A request exposes its
// headers as Node parsed them (names in any case, repeats joined with ", " as Headers.get
// does), its body read under a size limit and a deadline, and the moment its client goes away; a reply is a
// status with an optional text body, or an SSE stream (sse-stream.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayError } from '../protocol/errors.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { onClientGone } from './client-gone.ts';
import { SseStream } from '../transport/sse-stream.ts';
import { RelayReply } from '../transport/client-relay.ts';

/** Header access by name; `Headers` fits it too. */
export interface HeaderReader {
  get(name: string): string | null;
}

export interface HttpRequest {
  readonly method: string;
  /** A header by name, any case (lower case is the fast path). */
  header(name: string): string | undefined;
  readonly headers: HeaderReader;
  /** Raw name/value pairs, flat, as received (for the header limits). */
  readonly rawHeaders: readonly string[];
  /** Synchronous when the whole body has already arrived (the common small POST). A body
   * that has not all arrived `timeoutMs` after the read began is refused (body_timeout). */
  readBody(limit: number, timeoutMs: number): Result<string, GatewayError> | Promise<Result<string, GatewayError>>;
  /** Calls `fn` if the client goes away before its response is complete. */
  onAbort(fn: () => void): void;
  /** Calls `fn` once when the response is over: sent whole, or its client gone. */
  onDone(fn: () => void): void;
  /** Keeps a place (request-caps.ts) until the request is answered: `release` runs once its
   * reply is handed over, or, for a call answered as a stream, once that stream is done. */
  holdUntilAnswered(release: () => void): void;
  /** The reply was handed over (or the request failed): the places held go back. Called once,
   * by whoever writes the reply (listener.ts). */
  answered(reply: HttpReply | undefined): void;
  /** The connection the request came on (the connection cap marks the ones past it). */
  readonly socket: Socket;
}

export interface TextReply {
  status: number;
  headers?: Readonly<Record<string, string>>;
  body?: string;
  /** Instead of `body`: a large body in the parts it was built from, written one after the
   * other, so that it is never joined into (and copied to) one more string. */
  parts?: readonly string[];
}

/** RelayReply: a big result relayed as the upstream sends it (transport/client-relay.ts). */
export type HttpReply = TextReply | SseStream | RelayReply;

/** One per request, so its methods live on the prototype; only `header` is an own closure,
 * because callers pass it around unbound as a HeaderLookup. */
class NodeHttpRequest implements HttpRequest, HeaderReader {
  readonly header: (name: string) => string | undefined;
  /** At most one per cap (overall, per principal): no array for one. */
  private holds: (() => void) | (() => void)[] | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    const headers = req.headers;
    this.header = (name) => {
      const v = headers[name] ?? headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v;
    };
  }

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get headers(): HeaderReader {
    return this;
  }

  get rawHeaders(): readonly string[] {
    return this.req.rawHeaders;
  }

  get(name: string): string | null {
    return this.header(name) ?? null;
  }

  readBody(limit: number, timeoutMs: number): Result<string, GatewayError> | Promise<Result<string, GatewayError>> {
    return readBody(this.req, limit, timeoutMs);
  }

  onAbort(fn: () => void): void {
    onClientGone(this.res, fn);
  }

  get socket(): Socket {
    return this.req.socket;
  }

  holdUntilAnswered(release: () => void): void {
    const h = this.holds;
    this.holds = h === undefined ? release : Array.isArray(h) ? [...h, release] : [h, release];
  }

  answered(reply: HttpReply | undefined): void {
    const h = this.holds;
    if (h === undefined) return;
    this.holds = undefined;
    // A call's stream (not a lasting notification stream, which has its own cap) or a relayed
    // result is still being answered after it is handed over; a 2025-11-25 call's stream until
    // its call ends, since the call goes on when the client loses the stream.
    const callStream = reply instanceof SseStream && !reply.lasting ? reply : undefined;
    const streaming = callStream !== undefined || reply instanceof RelayReply;
    for (const release of Array.isArray(h) ? h : [h]) {
      if (callStream?.outlivesClient === true) callStream.whenFinished(release);
      else if (streaming) this.onDone(release);
      else release();
    }
  }

  onDone(fn: () => void): void {
    const res = this.res;
    if (res.writableFinished || res.destroyed) {
      fn();
      return;
    }
    let done = false;
    const once = (): void => {
      if (done) return;
      done = true;
      fn();
    };
    res.once('finish', once);
    // A response queued behind another on its connection may never emit 'close' when the
    // connection drops (client-gone.ts): that case is watched there.
    onClientGone(res, once);
  }
}

export function nodeRequest(req: IncomingMessage, res: ServerResponse): HttpRequest {
  return new NodeHttpRequest(req, res);
}

const BODY_ENDED_EARLY: GatewayError = { kind: 'invalid_request', message: 'the request body ended early' };

/** Reads the body as text, never holding more than the limit: a declared Content-Length over
 * it is refused before a byte is read, and a chunked body is cut off as soon as it passes.
 * Nor for longer than `timeoutMs`: a client that trickles its body held the request, and its
 * slot, for Node's own requestTimeout (300 s) otherwise. */
function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Result<string, GatewayError> | Promise<Result<string, GatewayError>> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && !(Number(declared) <= limit)) {
    req.resume();
    return err({ kind: 'body_too_large', limit });
  }
  // The whole message was parsed while the request waited (identity is checked first), so
  // its body sits in the stream's buffer: take it in one read, with no listeners or promise.
  // Also when its client has gone since: the request arrived whole, and whether it runs must
  // not depend on how long authentication took (in 2025-11-25 a disconnect is no cancel).
  const whole = buffered(req, limit);
  if (whole !== undefined) return whole;
  // Gone before its end, and before this read began (say, while it was authenticated): 'close'
  // has fired already, so waiting for it would wait forever.
  if (req.destroyed) return err(BODY_ENDED_EARLY);
  // Without an await before this read (no identity configured), it runs inside the 'request'
  // event, which Node's parser emits at the end of the headers, before it parses the body that
  // came in the same read. By the next microtask that read is parsed: a small body sent with its
  // headers is in the buffer then, and is taken without the listeners and timer of a stream.
  return Promise.resolve().then(() => buffered(req, limit) ?? (req.destroyed ? err(BODY_ENDED_EARLY) : streamed(req, limit, timeoutMs)));
}

/** The whole body, when it has all arrived and nobody reads the stream. A body of a declared
 * length is whole once that many bytes wait in the buffer, which is a turn before Node marks
 * the message complete. */
function buffered(req: IncomingMessage, limit: number): Result<string, GatewayError> | undefined {
  if (req.readableFlowing || req.listenerCount('data') !== 0) return undefined;
  if (!req.complete) {
    const declared = req.headers['content-length'];
    if (declared === undefined || req.readableLength !== Number(declared)) return undefined;
  }
  const buffered: Buffer | null = req.read();
  if (buffered === null) return ok('');
  if (buffered.length > limit) return err({ kind: 'body_too_large', limit });
  return ok(buffered.toString('utf8'));
}

/** A body still arriving: read as it comes, within the limit and the deadline. */
function streamed(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Result<string, GatewayError>> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let total = 0;
    // Settled, the reader lets go of the request: one that stays open long after its body (a
    // listen stream, for hours) would otherwise hold, in these listeners, its body's buffers
    // and text and the deadline's timer for as long as it lasts.
    const settle = (r: Result<string, GatewayError>): void => {
      clearTimeout(deadline);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      chunks = [];
      resolve(r);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limit) {
        req.resume();
        settle(err({ kind: 'body_too_large', limit }));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => settle(ok(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, total).toString('utf8')));
    const onError = (e: Error): void => settle(err({ kind: 'invalid_request', message: `request body could not be read: ${e.message}` }));
    // Closed before its end (a client gone mid-body): settle rather than wait forever.
    const onClose = (): void => settle(err(BODY_ENDED_EARLY));
    // The rest is not read: the refusal closes the connection (Connection: close).
    const deadline = setTimeout(() => {
      req.resume();
      settle(err({ kind: 'body_timeout', timeoutMs }));
    }, timeoutMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

export function writeReply(res: ServerResponse, reply: HttpReply): void {
  if (reply instanceof SseStream || reply instanceof RelayReply) {
    reply.attach(res);
    return;
  }
  const parts = reply.parts;
  if (parts !== undefined) {
    let length = 0;
    for (const p of parts) length += Buffer.byteLength(p);
    res.writeHead(reply.status, { ...reply.headers, 'content-length': length });
    for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]!);
    res.end(parts.at(-1));
    return;
  }
  if (reply.body === undefined) {
    res.writeHead(reply.status, reply.headers);
    res.end();
    return;
  }
  res.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(reply.body) });
  res.end(reply.body);
}
