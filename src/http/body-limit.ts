// The body limit for the Hono side of the listener (health, metrics, well-known, the
// approvals console and webhook callbacks): /mcp has its own streaming limit
// (transport/http-io.ts). A declared Content-Length over the limit is refused before a byte
// is read; a chunked body is counted as it arrives and refused once it passes the limit, so
// no route buffers more than `maxBytes` of anything a client sends, signed or not. The 413
// closes the connection, so the rest of an oversized body is not read either.
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** What a JSON body of any Hono route may weigh: decisions and callbacks are a few hundred bytes. */
export const OTHER_ROUTES_MAX_BODY_BYTES = 64 * 1024;

export function limitBody(maxBytes: number = OTHER_ROUTES_MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      c.header('connection', 'close');
      return c.json({ error: 'too_large', message: `the request body is over ${maxBytes} bytes` }, 413);
    },
  });
}
