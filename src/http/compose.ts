// The HTTP ring's shape: layers `(req, next)` composed once, outermost first, over an
// endpoint. A layer answers itself (a refusal) or hands the request on; it never changes
// the request, so what reaches the endpoint is what arrived.
import type { HttpReply, HttpRequest } from './http-io.ts';

export type Endpoint = (req: HttpRequest) => Promise<HttpReply>;
export type Layer = (req: HttpRequest, next: Endpoint) => Promise<HttpReply>;

export function compose(layers: readonly Layer[], endpoint: Endpoint): Endpoint {
  let handler = endpoint;
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    const next = handler;
    handler = (req) => layer(req, next);
  }
  return handler;
}
