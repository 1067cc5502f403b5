// Builds the HTTP server from its dependencies; wiring only (docs/architecture.md §3). The HTTP ring:
// the MCP endpoint, on Node's request/response (the hot path: no Web Request/Response per
// call), which does its own Origin/limit checks first; everything else (health, metrics,
// well-known metadata, the approvals console) is a Hono app.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { limitBody } from './body-limit.ts';
import type { DrainState } from './drain-state.ts';
import type { Logger } from '../telemetry/logger.ts';
import { nodeRequest, writeReply, type HttpReply, type HttpRequest } from './http-io.ts';
import { errorResponse } from './replies.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import { protectedResourceMetadata } from '../identity/resource-metadata.ts';
import type { Upstream } from '../upstream/upstream.ts';

export interface AppDeps {
  config: GatewayConfig;
  upstreams: readonly Upstream[];
  mcp: (req: HttpRequest) => Promise<HttpReply>;
  logger: Logger;
  metrics?: Metrics;
  /** Sub-apps with their own authentication (the approvals console and callbacks). */
  extraRoutes?: readonly Hono[];
  /** Requests in flight and whether the gateway is draining (drain-state.ts). */
  drain?: DrainState;
}

export function buildApp(deps: AppDeps): Hono {
  const app = new Hono();
  const path = deps.config.listen.path;
  app.use('*', limitBody());
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  const metrics = deps.metrics;
  if (metrics) {
    app.get('/metrics', async () => {
      const { contentType, body } = await metrics.render();
      return new Response(body, { headers: { 'content-type': contentType } });
    });
  }
  app.get('/readyz', (c) => {
    const upstreams = deps.upstreams.map((u) => u.status());
    // Draining: still serving, but no longer to be sent new traffic.
    if (deps.drain?.draining === true) return c.json({ status: 'draining', config: deps.config.file, upstreams }, 503);
    // Ready means config loaded and serving; per-upstream health is reported, and the
    // gateway stays ready while any upstream is up (one down never takes the rest).
    const anyUp = upstreams.length === 0 || upstreams.some((u) => u.state === 'up');
    return c.json({ status: anyUp ? 'ready' : 'degraded', config: deps.config.file, upstreams }, anyUp ? 200 : 503);
  });
  // RFC 9728 protected resource metadata at both well-known paths (MCP 2026-07-28, basic/authorization; RFC 9728).
  const prm = deps.config.identity ? protectedResourceMetadata(deps.config.identity, path) : undefined;
  if (prm) for (const p of prm.paths) app.get(p, (c) => c.json(prm.document));
  for (const r of deps.extraRoutes ?? []) app.route('/', r);
  app.notFound((c) => c.json({ error: `not found; the MCP endpoint is ${path}` }, 404));
  return app;
}

/** The request path without its query, also for absolute-form request targets. */
function pathOf(url: string): string {
  if (!url.startsWith('/')) {
    try {
      return new URL(url).pathname;
    } catch {
      return '';
    }
  }
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export function buildListener(deps: AppDeps): RequestListener {
  const path = deps.config.listen.path;
  const rest = getRequestListener(buildApp(deps).fetch);
  const failed = (res: ServerResponse, e: unknown): void => {
    deps.logger.error('request failed', { error: (e as Error).message });
    if (res.headersSent) res.destroy();
    else writeReply(res, errorResponse({ kind: 'internal', message: 'internal error' }, { era: 'modern' }));
  };
  const drain = deps.drain;
  return (req: IncomingMessage, res: ServerResponse) => {
    if (drain !== undefined) {
      drain.track(res);
      if (drain.draining) res.setHeader('connection', 'close');
    }
    if (pathOf(req.url ?? '/') !== path) {
      void rest(req, res);
      return;
    }
    deps.mcp(nodeRequest(req, res)).then(
      (reply) => writeReply(res, reply),
      (e: unknown) => failed(res, e),
    );
  };
}
