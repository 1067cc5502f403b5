// Assembles a running gateway from a config: upstream clients, catalog, gateway pipeline,
// transport and HTTP server. Used by `gatehouse serve` and by tests, which build the whole
// thing in-process on port 0 (docs/architecture.md house style 5).
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { Catalog } from '../catalog/catalog.ts';
import { createApprovals } from './approvals-wiring.ts';
import { createObserver } from '../http/observer.ts';
import { createAuditBodies } from '../audit/audit-body.ts';
import type { EventAuditRecord } from '../audit/audit-record.ts';
import { openAuditTrail } from '../audit/audit-trail.ts';
import type { JsonObject } from '../protocol/message.ts';
import { createMetrics } from '../telemetry/metrics.ts';
import { createTracing } from '../telemetry/tracing.ts';
import { GATEWAY_VERSION } from '../protocol/implementation.ts';
import { createEnforcement } from './enforcement-wiring.ts';
import { allCatalogStats, createServerCatalogs, createServerEndpoints } from './server-endpoints.ts';
import { buildRouteTable } from '../servers/server-routes.ts';
import { SchemaValidator } from '../validation/schema-validator.ts';
import { createAuthenticator, type Authenticate } from '../identity/authenticate.ts';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import { ok } from '../protocol/result.ts';
import type { GatewayConfig } from '../config/types.ts';
import { ResourceSubscriptions } from '../mcp/resource-subscriptions.ts';
import { createGateway } from '../mcp/method-table.ts';
import type { Logger } from '../telemetry/logger.ts';
import { DrainState } from '../http/drain-state.ts';
import { buildAdminListener, buildListener } from '../http/listener.ts';
import { LegacySessions } from '../transport/legacy-sessions.ts';
import { createMcpEndpoint } from '../transport/mcp-endpoint.ts';
import { compose } from '../http/compose.ts';
import { guardLayer, observeLayer, withIdentity } from '../http/mcp-layers.ts';
import { Notifier } from '../transport/notifier.ts';
import { ConcurrencyGate } from '../limits/concurrency-gate.ts';
import { AnswerBudget } from '../limits/answer-budget.ts';
import { HttpUpstream } from '../upstream/http/http-upstream.ts';
import { RoutedUpstream } from '../upstream/routed/routed-upstream.ts';
import { StdioUpstream } from '../upstream/stdio/stdio-upstream.ts';
import type { Upstream } from '../upstream/upstream.ts';

/** A full stream cap frees up as clients leave: a short wait is worth a try. */
const STREAM_RETRY_AFTER_MS = 5_000;

export interface RunningGateway {
  url: string;
  port: number;
  /** Base URL of the admin listener, when `admin` is configured. */
  adminUrl?: string;
  /** The URL of each virtual server (`servers:`), by name. */
  servers: Readonly<Record<string, string>>;
  upstreams: readonly Upstream[];
  notifier: Notifier;
  /** Stops at once: connections cut, then everything closed. */
  close(): Promise<void>;
  /** Stops gracefully (SIGTERM): see drain() below and config `shutdown`. */
  drain(): Promise<void>;
  /** Synchronous last resort at process exit: kills stdio children. */
  killChildren(): void;
}

function decodeSecret(secret: string | undefined): Buffer | undefined {
  if (secret === undefined) return undefined;
  return /^[0-9a-fA-F]{64}$/.test(secret) ? Buffer.from(secret, 'hex') : Buffer.from(secret, 'base64');
}

/** `budget`: the memory budget of HTTP answers in flight (limits.maxInflightAnswerBytes). */
export function createUpstreams(config: GatewayConfig, logger: Logger, budget?: AnswerBudget): Upstream[] {
  return config.upstreams.map((u) => (u.kind === 'stdio' ? new StdioUpstream(u, logger) : u.route ? new RoutedUpstream(u, logger, budget) : new HttpUpstream(u, logger, budget)));
}

export interface GatewayOptions {
  /** Where OTEL_* settings come from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** The clock of kept results' expiry (tests inject one); Date.now by default. */
  now?: () => number;
}

export async function startGateway(config: GatewayConfig, logger: Logger, opts: GatewayOptions = {}): Promise<RunningGateway> {
  const secret = decodeSecret(config.sessions.secret);
  // Cursors must verify on every replica that shares the session secret.
  const cursorSecret = secret ? createHmac('sha256', secret).update('gatehouse cursor v1').digest() : randomBytes(32);
  const answerBudget = new AnswerBudget(config.limits.maxInflightAnswerBytes);
  const upstreams = createUpstreams(config, logger, answerBudget);
  const catalog = new Catalog(config, upstreams, logger, cursorSecret);
  const serverCatalogs = createServerCatalogs(config, catalog, upstreams);
  const { limits } = config;
  const gates = new Map(
    config.upstreams.map((u) => [u.name, new ConcurrencyGate(u.name, { ...u.concurrency, maxQueued: limits.maxQueuedCalls, queueTimeoutMs: limits.queueTimeoutMs })]),
  );
  const notifier = new Notifier({ maxStreams: limits.maxStreams, maxStreamsPerPrincipal: limits.maxStreamsPerPrincipal, retryAfterMs: STREAM_RETRY_AFTER_MS });
  catalog.onChange((kind) => notifier.publish(kind === 'resourceTemplates' ? 'resources' : kind));
  const audit = await openAuditTrail(config.audit, { logger });
  // Notable events go to the trail too; a refused event write is logged, never thrown.
  const event = (name: EventAuditRecord['event'], detail: JsonObject): void => {
    void audit.record({ type: 'event', time: new Date().toISOString(), event: name, detail }).catch((e: unknown) => logger.error('audit event not written', { event: name, error: (e as Error).message }));
  };
  let enforcement: ReturnType<typeof createEnforcement>;
  try {
    enforcement = createEnforcement(config, { catalog, servers: serverCatalogs, notifier, logger, event });
  } catch (e) {
    await audit.close();
    throw e;
  }
  event('config_loaded', { file: config.file, upstreams: config.upstreams.map((u) => u.name), ...(config.servers.length > 0 ? { servers: config.servers.map((s) => s.name) } : {}), policy: enforcement.policy?.current().version ?? null });
  for (const u of upstreams) {
    u.onEvent((ev) => {
      if (ev.type === 'state' && ev.state !== 'starting') event(ev.state === 'up' ? 'upstream_up' : 'upstream_down', { upstream: u.name, ...(ev.error ? { error: ev.error } : {}) });
    });
  }
  const tracing = createTracing({ env: opts.env ?? process.env, serviceName: 'gatehouse', serviceVersion: GATEWAY_VERSION, logger });
  let pendingApprovals = 0;
  const metrics = createMetrics({
    processMetrics: config.metrics.processMetrics,
    pendingApprovals: () => pendingApprovals,
    isExposedTool: (name) => catalog.exposes('tools', name) || [...serverCatalogs.values()].some((c) => c.exposes('tools', name)),
    capacity: { catalog: () => (serverCatalogs.size === 0 ? catalog.stats() : allCatalogStats([catalog, ...serverCatalogs.values()])), failingLists: () => catalog.failingLists(), sessions: () => sessions.size(), streams: () => notifier.size(), answerBytes: () => answerBudget.bytes(), upstreamCalls: () => [...gates].map(([upstream, g]) => ({ upstream, ...g.load() })) },
    upstreamStatus: () => Object.fromEntries(upstreams.map((u) => [u.name, u.status().state === 'up'])),
    auditStats: () => {
      const st = audit.stats();
      const since = st.retainedSince === undefined ? Number.NaN : Date.parse(st.retainedSince);
      return {
        lagSeconds: st.lagMs / 1000,
        droppedTotal: st.dropped,
        writtenTotal: st.written,
        syncsTotal: st.syncs,
        rotationsTotal: st.rotations,
        filesDeletedTotal: st.filesDeleted,
        cutTotal: st.cut,
        retainedSeconds: Number.isNaN(since) ? Number.NaN : Math.max(0, (Date.now() - since) / 1000),
      };
    },
    logger,
  });
  for (const u of upstreams) {
    u.onEvent((ev) => {
      if (ev.type === 'limit_hit') metrics.recordLimitHit(ev.limit);
    });
  }
  // With audit off nothing is recorded, so no record (digests of arguments and results) is built.
  const bodies = config.audit.enabled ? createAuditBodies(config.audit) : undefined;
  const observer = createObserver({ tracing, metrics, audit, ...(bodies ? { bodies } : {}), logger });
  const sessions = new LegacySessions(secret, config.sessions.idleTimeoutMs, Date.now, limits);
  const authenticate: Authenticate = config.identity
    ? createAuthenticator(config.identity)
    : async () => ok(ANONYMOUS_PRINCIPAL);
  if (!config.identity) logger.warn('no identity configured: every caller is anonymous; configure `identity` before exposing the gateway');
  const approvalEvent = (name: 'approval_requested' | 'approval_decided', detail: JsonObject): void => {
    // A calling user's MRTR question may never be answered; only webhook and console
    // approvals are held open here.
    if (detail.channel !== 'user') pendingApprovals = Math.max(0, pendingApprovals + (name === 'approval_requested' ? 1 : -1));
    event(name, detail);
  };
  const approvals = createApprovals(config.approvals, { logger, authenticate, audit: (name, detail) => approvalEvent(name, detail as unknown as JsonObject) });
  approvals.deps.event = approvalEvent;
  catalog.onCacheLookup((kind, hit) => metrics.recordCacheLookup(kind, hit));
  catalog.onDeepItems((count) => {
    for (let i = 0; i < count; i++) metrics.recordLimitHit('maxJsonDepth');
  });
  catalog.onCacheEvict(() => metrics.recordLimitHit('catalogCacheBytes'));
  notifier.onStream(({ event: name, detail }) => {
    event(name, detail);
    if (detail.reason === 'lifetime') metrics.recordLimitHit('streamMaxLifetime');
  });
  const subscriptions = new ResourceSubscriptions({ catalog, enforcer: enforcement.enforcer, upstreams, deliver: (id, n) => notifier.sendToSession(id, n) });
  sessions.onRemoved((id) => subscriptions.dropSession(id));
  const validator = new SchemaValidator();
  const gateway = createGateway({ config, catalog, upstreams, logger, enforcer: enforcement.enforcer, validator, metrics, approvals: approvals.deps, subscriptions, gates, ...(opts.now ? { now: opts.now } : {}) });
  // The HTTP ring of /mcp, composed once: observe outermost, then the guards, then identity.
  const endpoint = createMcpEndpoint({ config, gateway, sessions, notifier, logger, observer });
  const mcp = compose([observeLayer(observer, logger, config.listen.path), guardLayer(config)], withIdentity(authenticate, endpoint));
  const drainState = new DrainState();
  // Virtual servers: more endpoints, found by path and Host; without them the listener is as before.
  const servers = config.servers.length === 0 ? undefined : createServerEndpoints({ config, catalogs: serverCatalogs, upstreams, logger, enforcer: enforcement.enforcer, validator, metrics, tracing, audit, bodies, approvals: approvals.deps, gates, sessions, notifier, authenticate, ...(opts.now ? { now: opts.now } : {}) });
  const routing = servers && { routes: buildRouteTable([{ path: config.listen.path, host: undefined, target: mcp }, ...servers.routes]), serverMetadata: buildRouteTable(servers.metadata) };
  const listener = buildListener({ config, upstreams, mcp, metrics, logger, failingLists: () => catalog.failingLists(), extraRoutes: [approvals.routes], drain: drainState, ...routing });

  // Everything but the listener and the upstreams, closed in the order the parts depend on.
  const closeParts = async (): Promise<void> => {
    sessions.close();
    await enforcement.close();
    await approvals.close();
    await audit.close();
    await tracing.shutdown().catch(() => undefined);
  };

  // Node refuses a header block over maxHeaderSize on its own (431, no body); leave room
  // above the configured limit so the gateway's check, which says which limit, answers first.
  // Listening comes before the upstreams start: an address that is taken (EADDRINUSE) or
  // not allowed (EACCES) must fail the start with no child spawned and nothing left open,
  // so that `serve` exits at once instead of running headless.
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const s = createServer({ maxHeaderSize: Math.max(16_384, config.limits.maxHeaderBytes + 8_192) }, listener);
      s.once('error', reject);
      s.listen(config.listen.port, config.listen.host, () => resolve(s));
    });
  } catch (e) {
    await closeParts();
    throw e;
  }
  // The admin listener (/metrics, /readyz), when configured: failing to bind it fails the start too.
  let admin: { server: Server; url: string } | undefined;
  try {
    admin = config.admin === undefined ? undefined : await listenAdmin(config.admin, buildAdminListener({ config, upstreams, mcp, metrics, logger, drain: drainState }, config.admin.host));
  } catch (e) {
    await new Promise<void>((r) => server.close(() => r()));
    await closeParts();
    throw e;
  }
  const closeAdmin = (): Promise<void> =>
    admin === undefined
      ? Promise.resolve()
      : new Promise<void>((r) => {
          admin.server.close(() => r());
          admin.server.closeAllConnections();
        });
  // Once, whether close() or drain() (or both: a second signal) got there first.
  let finished: Promise<void> | undefined;
  const finish = (): Promise<void> =>
    (finished ??= (async () => {
      await closeParts();
      await Promise.all(upstreams.map((u) => u.close()));
    })());
  // Upstreams start in the background: the gateway serves while they come up.
  // start() never rejects by contract (failures show in status()); a rejection is a bug, logged.
  for (const u of upstreams) void u.start().catch((e: unknown) => logger.error('upstream start failed', { upstream: u.name, error: (e as Error).message }));
  const port = (server.address() as AddressInfo).port;
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  logger.info('gatehouse listening', { url: `http://${host}:${port}${config.listen.path}`, upstreams: upstreams.length });
  if (admin !== undefined) logger.info('gatehouse admin listener (/metrics, /readyz, /healthz)', { url: admin.url });
  for (const s of config.servers) logger.info('virtual server', { server: s.name, url: `http://${s.host ?? host}:${port}${s.path}`, upstreams: s.upstreams });
  return {
    url: `http://${host}:${port}${config.listen.path}`,
    port,
    servers: Object.fromEntries(config.servers.map((s) => [s.name, `http://${host}:${port}${s.path}`])),
    upstreams,
    notifier,
    ...(admin === undefined ? {} : { adminUrl: admin.url }),
    async close() {
      // Streams first, so that their ends are recorded before the audit trail closes.
      notifier.closeAll();
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await Promise.all([closed, closeAdmin()]);
      await finish();
    },
    // Readiness goes first, so load balancers stop sending traffic while it is still served;
    // then no new connections, listen and GET streams ended (clients reconnect elsewhere),
    // and the requests in flight finish before the audit trail is flushed and children stop.
    async drain() {
      const { drainDelayMs, deadlineMs } = config.shutdown;
      drainState.begin();
      logger.info('draining: /readyz answers 503, still serving', { drainDelayMs, deadlineMs });
      if (drainDelayMs > 0) await new Promise((r) => setTimeout(r, drainDelayMs));
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      notifier.closeAll();
      if (!(await drainState.settled(deadlineMs))) {
        logger.warn('drain deadline passed: closing the connections of requests still in flight', { inFlight: drainState.inFlight, deadlineMs });
      }
      server.closeAllConnections();
      await closed;
      // Readiness stayed on the admin listener (503, draining) until the requests were done.
      await closeAdmin();
      await finish();
      logger.info('drained');
    },
    killChildren() {
      for (const u of upstreams) if (u instanceof StdioUpstream) u.killNow();
    },
  };
}

/** The admin listener, bound; rejects when the address cannot be had. */
async function listenAdmin(admin: { host: string; port: number }, listener: ReturnType<typeof buildAdminListener>): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(listener);
    s.once('error', reject);
    s.listen(admin.port, admin.host, () => resolve(s));
  });
  const host = admin.host.includes(':') ? `[${admin.host}]` : admin.host;
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}
