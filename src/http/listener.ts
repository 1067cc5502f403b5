// Builds the HTTP server from its dependencies; wiring only (docs/architecture.md §3). The HTTP ring:
// the MCP endpoint, on Node's request/response (the hot path: no Web Request/Response per
// call), which does its own Origin/limit checks first; everything else (health, metrics,
// well-known metadata, the approvals console) is a Hono app. Those routes get the same
// DNS-rebinding defence as /mcp: the Host must be one this listener answers to and a browser's
// Origin must be allowed (the console checks its own Origin, against its public URL). Exempt:
// /healthz (it says only "ok") and the RFC 9728 metadata (public, and fetched cross-origin by
// browser clients). With `admin` configured, /metrics and /readyz move to their own listener
// (buildAdminListener), which keeps the same checks for its own address. A Host that is an IP
// address passes on /metrics and /readyz (on the admin listener, everywhere): a scrape or a
// probe reaches a pod by its IP, and a rebinding page never carries an address as its Host.
// Both listeners have a body size limit (body-limit.ts) and a body-read deadline
// (body-deadline.ts) of their own.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono, type MiddlewareHandler } from 'hono';
import { limitBody } from './body-limit.ts';
import { watchBodyDeadline, type BodyDeadline } from './body-deadline.ts';
import type { DrainState } from './drain-state.ts';
import type { Logger } from '../telemetry/logger.ts';
import { nodeRequest, writeReply, type HttpReply, type HttpRequest } from './http-io.ts';
import { errorResponse } from './replies.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import { PROTECTED_RESOURCE_WELL_KNOWN, protectedResourceMetadata, type ProtectedResourceMetadata } from '../identity/resource-metadata.ts';
import type { RouteLookup } from '../servers/server-routes.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { mapError, type GatewayError } from '../protocol/errors.ts';
import { checkHost, checkOrigin, hostRule } from './http-guards.ts';

export interface AppDeps {
  config: GatewayConfig;
  upstreams: readonly Upstream[];
  mcp: (req: HttpRequest) => Promise<HttpReply>;
  logger: Logger;
  metrics?: Metrics;
  /** Upstream lists left out of merged lists until they answer again (the catalog's list circuit). */
  failingLists?: () => readonly { upstream: string; kind: string; since: number; failures: number; retryAt: number; cause: string }[];
  /** Sub-apps with their own authentication (the approvals console and callbacks). */
  extraRoutes?: readonly Hono[];
  /** Requests in flight and whether the gateway is draining (drain-state.ts). */
  drain?: DrainState;
  /** Connections past limits.maxConnections (connection-cap.ts): the other routes still answer
   * on one, then close it; /mcp refuses with 503 (request-caps.ts). */
  connections?: { isOver(socket: Socket): boolean };
  /** With virtual servers: which MCP endpoint answers a path and Host (servers/server-routes.ts);
   * the default endpoint is one of its entries. Unset: `mcp` at listen.path alone. */
  routes?: RouteLookup<(req: HttpRequest) => Promise<HttpReply>>;
  /** RFC 9728 metadata of each virtual server, by its path-inserted well-known path and Host. */
  serverMetadata?: RouteLookup<ProtectedResourceMetadata>;
}

export function buildApp(deps: AppDeps): Hono {
  const app = new Hono();
  const path = deps.config.listen.path;
  app.use('*', limitBody());
  app.use('*', rebindingGuard(deps, deps.config.listen.host, (p) => OPERATOR_PATHS.has(p)));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  if (deps.config.admin === undefined) operatorRoutes(app, deps);
  // RFC 9728 protected resource metadata at both well-known paths (MCP 2026-07-28, basic/authorization; RFC 9728).
  const prm = deps.config.identity ? protectedResourceMetadata(deps.config.identity, path) : undefined;
  // A virtual server's document is at its own path-inserted URL; the root one stays the default endpoint's.
  const own = deps.serverMetadata;
  if (own) app.get(`${PROTECTED_RESOURCE_WELL_KNOWN}/*`, (c, next) => {
    const document = own(c.req.path, c.req.header('host'));
    return document ? Promise.resolve(c.json(document)) : next();
  });
  if (prm) for (const p of prm.paths) app.get(p, (c) => c.json(prm.document));
  for (const r of deps.extraRoutes ?? []) app.route('/', r);
  app.notFound((c) => c.json({ error: `not found; the MCP endpoint is ${path}` }, 404));
  return app;
}

/** The admin listener's app: health, readiness and metrics only. */
export function buildAdminApp(deps: AppDeps, adminHost: string): Hono {
  const app = new Hono();
  app.use('*', limitBody());
  app.use('*', rebindingGuard(deps, adminHost, () => true));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  operatorRoutes(app, deps);
  app.notFound((c) => c.json({ error: 'not found; this listener serves /healthz, /readyz and /metrics' }, 404));
  return app;
}

export function buildAdminListener(deps: AppDeps, adminHost: string): RequestListener {
  const app = getRequestListener(buildAdminApp(deps, adminHost).fetch);
  const deadline = bodyDeadline(deps);
  return (req, res) => {
    watchBodyDeadline(req, res, deadline);
    app(req, res).catch((e: unknown) => {
      deps.logger.error('request failed', { error: (e as Error).message });
      res.destroy();
    });
  };
}

/** limits.bodyTimeout for the Hono routes, counted and logged like /mcp's (body-deadline.ts). */
function bodyDeadline(deps: AppDeps): BodyDeadline {
  return {
    timeoutMs: deps.config.limits.bodyTimeoutMs,
    onExpired: (req) => {
      deps.metrics?.recordLimitHit('bodyTimeout');
      deps.metrics?.recordRefusal('body_timeout', 408);
      deps.logger.warn('request body not received in time', { path: pathOf(req.url ?? '/').slice(0, 200), limit: 'bodyTimeout', timeoutMs: deps.config.limits.bodyTimeoutMs });
    },
  };
}

/** /metrics and /readyz: what an operator reads, and what an outsider must not. */
function operatorRoutes(app: Hono, deps: AppDeps): void {
  const metrics = deps.metrics;
  if (metrics) {
    app.get('/metrics', async () => {
      const { contentType, body } = await metrics.render();
      return new Response(body, { headers: { 'content-type': contentType } });
    });
  }
  app.get('/readyz', (c) => {
    const failing = deps.failingLists?.() ?? [];
    const upstreams = deps.upstreams.map((u) => {
      const lists = failing.filter((f) => f.upstream === u.name).map((f) => ({ kind: f.kind, cause: f.cause, since: new Date(f.since).toISOString(), failures: f.failures, retryAt: new Date(f.retryAt).toISOString() }));
      return lists.length ? { ...u.status(), failingLists: lists } : u.status();
    });
    // Draining: still serving, but no longer to be sent new traffic.
    if (deps.drain?.draining === true) return c.json({ status: 'draining', config: deps.config.file, upstreams }, 503);
    // Ready means config loaded and serving; per-upstream health is reported, and the
    // gateway stays ready while any upstream is up (one down never takes the rest).
    const anyUp = upstreams.length === 0 || upstreams.some((u) => u.state === 'up');
    return c.json({ status: anyUp ? 'ready' : 'degraded', config: deps.config.file, upstreams }, anyUp ? 200 : 503);
  });
}

/** What an operator's scraper and probes read. */
const OPERATOR_PATHS: ReadonlySet<string> = new Set(['/metrics', '/readyz']);

/** Host (and, but for the console, Origin) as on /mcp, for a listener bound to `listenHost`.
 * The gateway's own public names (identity `resource`, approvals `publicUrl`) are allowed, and
 * IP addresses on the paths `byAddress` accepts. */
function rebindingGuard(deps: AppDeps, listenHost: string, byAddress: (path: string) => boolean): MiddlewareHandler {
  const { config } = deps;
  const own = [config.identity?.resource, config.approvals?.publicUrl].flatMap((u) => (u === undefined ? [] : [new URL(u).host.toLowerCase()]));
  for (const s of config.servers) if (s.host !== undefined) own.push(s.host);
  const base = hostRule(listenHost, config.allowedHosts);
  const rule = { ...base, allowed: [...base.allowed, ...own] };
  const withAddresses = { ...rule, ipLiterals: true };
  const refuse = (error: GatewayError): Response => {
    const mapped = mapError(error);
    deps.metrics?.recordRefusal(error.kind, mapped.status);
    return Response.json({ error: error.kind, message: mapped.error.message }, { status: mapped.status });
  };
  return async (c, next) => {
    const p = c.req.path;
    if (p === '/healthz' || p.startsWith('/.well-known/')) return next();
    const host = checkHost(c.req.header('host'), byAddress(p) ? withAddresses : rule);
    if (!host.ok) return refuse(host.error);
    if (!p.startsWith('/approvals')) {
      const origin = checkOrigin(c.req.header('origin'), config.allowedOrigins);
      if (!origin.ok) return refuse(origin.error);
    }
    return next();
  };
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
  const deadline = bodyDeadline(deps);
  const failed = (res: ServerResponse, e: unknown): void => {
    deps.logger.error('request failed', { error: (e as Error).message });
    if (res.headersSent) res.destroy();
    else writeReply(res, errorResponse({ kind: 'internal', message: 'internal error' }, { era: 'modern' }));
  };
  const drain = deps.drain;
  const routes = deps.routes;
  return (req: IncomingMessage, res: ServerResponse) => {
    if (drain !== undefined) {
      drain.track(res);
      if (drain.draining) res.setHeader('connection', 'close');
    }
    // Without virtual servers, one string comparison decides, as it always did.
    const mcp = routes === undefined ? (pathOf(req.url ?? '/') === path ? deps.mcp : undefined) : routes(pathOf(req.url ?? '/'), req.headers.host);
    if (mcp === undefined) {
      if (deps.connections?.isOver(req.socket) === true) res.setHeader('connection', 'close');
      watchBodyDeadline(req, res, deadline);
      void rest(req, res).catch((e: unknown) => failed(res, e));
      return;
    }
    const request = nodeRequest(req, res);
    mcp(request).then(
      (reply) => {
        request.answered(reply);
        writeReply(res, reply);
      },
      (e: unknown) => {
        request.answered(undefined);
        failed(res, e);
      },
    );
  };
}
