// The body-read deadline of the routes other than /mcp (the Hono app: the approvals console
// and its callbacks, health, readiness, metrics; and the admin listener): limits.bodyTimeout,
// as on /mcp (http-io.ts). Without it a client that sends headers and then trickles, or
// withholds, its body holds the request and its socket for Node's own requestTimeout (300 s).
// The clock starts when the request reaches the routes (its headers are in) and stops when its
// body has all arrived. Past it: 408 with `Connection: close` if nothing was answered yet; if
// a route answered without reading the body (a 404, a refusal), the connection is closed,
// since the rest of the body would otherwise still be waited for before the next request.
// Requests without a body are not watched.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface BodyDeadline {
  timeoutMs: number;
  /** Told of each request cut off (metrics, log). */
  onExpired: (req: IncomingMessage) => void;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function watchBodyDeadline(req: IncomingMessage, res: ServerResponse, d: BodyDeadline): void {
  if (req.complete || !hasBody(req)) return;
  const timer = setTimeout(() => {
    if (req.complete) return;
    d.onExpired(req);
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    const body = JSON.stringify({ error: 'body_timeout', message: `the request body was not received within ${d.timeoutMs} ms (limits.bodyTimeout)` });
    res.writeHead(408, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
    // The rest of the body is never read: once the answer is out, the connection goes.
    res.end(body, () => req.socket.destroy());
  }, d.timeoutMs);
  timer.unref();
  const stop = (): void => clearTimeout(timer);
  // 'end' once the body has been read (by the route, or by Node discarding what no route read);
  // 'close' when the request is over either way.
  req.once('end', stop);
  req.once('close', stop);
}
