// Builds the HTTP app from its dependencies; wiring only (design.md §3). The HTTP ring:
// health endpoints, then the MCP endpoint, which does its own Origin/limit checks first.
import { Hono } from 'hono';
import type { GatewayConfig } from './config/types.ts';
import type { Metrics } from './telemetry/metrics.ts';
import { protectedResourceMetadata } from './identity/resource-metadata.ts';
import type { Upstream } from './upstream/upstream.ts';

export interface AppDeps {
  config: GatewayConfig;
  upstreams: readonly Upstream[];
  mcp: (req: Request) => Promise<Response>;
  metrics?: Metrics;
  /** Sub-apps with their own authentication (the approvals console and callbacks). */
  extraRoutes?: readonly Hono[];
}

export function buildApp(deps: AppDeps): Hono {
  const app = new Hono();
  const path = deps.config.listen.path;
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
    // Ready means config loaded and serving; per-upstream health is reported, and the
    // gateway stays ready while any upstream is up (one down never takes the rest).
    const anyUp = upstreams.length === 0 || upstreams.some((u) => u.state === 'up');
    return c.json({ status: anyUp ? 'ready' : 'degraded', config: deps.config.file, upstreams }, anyUp ? 200 : 503);
  });
  // RFC 9728 protected resource metadata at both well-known paths (digest f.1).
  const prm = deps.config.identity ? protectedResourceMetadata(deps.config.identity, path) : undefined;
  if (prm) for (const p of prm.paths) app.get(p, (c) => c.json(prm.document));
  for (const r of deps.extraRoutes ?? []) app.route('/', r);
  app.all(path, (c) => deps.mcp(c.req.raw));
  app.notFound((c) => c.json({ error: `not found; the MCP endpoint is ${path}` }, 404));
  return app;
}
