// The /mcp endpoint's view of HTTP, on Node's own request and response objects: the hot path
// skips the Web Request/Response layer (it showed in every profile). A request exposes its
// headers as Node parsed them (names in any case, repeats joined with ", " as Headers.get
// does), its body read under a limit, and the moment its client goes away; a reply is a
// status with an optional text body, or an SSE stream (sse-stream.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayError } from '../jsonrpc/errors.ts';
import { err, ok, type Result } from '../jsonrpc/result.ts';
import { SseStream } from './sse-stream.ts';

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
  readBody(limit: number): Promise<Result<string, GatewayError>>;
  /** Calls `fn` if the client goes away before its response is complete. */
  onAbort(fn: () => void): void;
}

export interface TextReply {
  status: number;
  headers?: Readonly<Record<string, string>>;
  body?: string;
}

export type HttpReply = TextReply | SseStream;

export function nodeRequest(req: IncomingMessage, res: ServerResponse): HttpRequest {
  const header = (name: string): string | undefined => {
    const v = req.headers[name] ?? req.headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  return {
    method: req.method ?? 'GET',
    header,
    headers: { get: (name) => header(name) ?? null },
    rawHeaders: req.rawHeaders,
    readBody: (limit) => readBody(req, limit),
    onAbort(fn) {
      if (res.writableFinished) return;
      if (res.destroyed) {
        fn();
        return;
      }
      res.once('close', () => {
        if (!res.writableFinished) fn();
      });
    },
  };
}

/** Reads the body as text, never holding more than the limit: a declared Content-Length over
 * it is refused before a byte is read, and a chunked body is cut off as soon as it passes. */
function readBody(req: IncomingMessage, limit: number): Promise<Result<string, GatewayError>> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && !(Number(declared) <= limit)) {
    req.resume();
    return Promise.resolve(err({ kind: 'body_too_large', limit }));
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limit) {
        req.off('data', onData);
        req.resume();
        resolve(err({ kind: 'body_too_large', limit }));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(ok(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, total).toString('utf8'))));
    req.once('error', (e) => resolve(err({ kind: 'invalid_request', message: `request body could not be read: ${e.message}` })));
  });
}

export function writeReply(res: ServerResponse, reply: HttpReply): void {
  if (reply instanceof SseStream) {
    reply.attach(res);
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
