// Assembles a running gateway from a config: upstream clients, catalog, gateway pipeline,
// transport and HTTP server. Used by `gatehouse serve` and by tests, which build the whole
// thing in-process on port 0 (docs/architecture.md house style 5).
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { listen, listenAdmin } from '../http/bind-server.ts';
import { Catalog } from '../catalog/catalog.ts';
import { createApprovals } from './approvals-wiring.ts';
import { createObserver } from '../http/observer.ts';
import { createAuditBodies } from '../audit/audit-body.ts';
import type { EventAuditRecord } from '../audit/audit-record.ts';
import { openAuditTrail } from '../audit/audit-trail.ts';
import type { OpenAuditFile } from '../audit/audit-file-writer.ts';
import type { JsonObject, JsonRpcNotification } from '../protocol/message.ts';
import type { Principal } from '../identity/principal.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import { createTracing } from '../telemetry/tracing.ts';
import { GATEWAY_VERSION } from '../protocol/implementation.ts';
import { SchemaValidator } from '../validation/schema-validator.ts';
import type { Authenticate } from '../identity/authenticate.ts';
import type { ConfigIssue } from '../config/config-error.ts';
import type { GatewayConfig } from '../config/types.ts';
import { ResourceSubscriptions } from '../mcp/resource-subscriptions.ts';
import { createSuspendedCalls } from '../mcp/suspended-calls.ts';
import type { Logger } from '../telemetry/logger.ts';
import { DrainState } from '../http/drain-state.ts';
import { LegacySessions } from '../transport/legacy-sessions.ts';
import { createMcpEndpoint } from '../transport/mcp-endpoint.ts';
import { Notifier } from '../transport/notifier.ts';
import { AnswerBudget } from '../limits/answer-budget.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { startConfigReloader, type ConfigReloader } from './config-reloader.ts';
import { createConfigSwap } from './config-swap.ts';
import { buildGeneration, type Generation, type SharedParts } from './gateway-generation.ts';
import { liveEnforcer, liveGateway } from './live-parts.ts';
import { createGatewayMetrics } from './metrics-wiring.ts';
import { UpstreamPool } from './upstream-pool.ts';
import { createUpstream } from './upstream-clients.ts';
import { VirtualServers } from './server-endpoints.ts';
import { createUserAuth, perUserUpstream } from './user-auth-wiring.ts';
import { ConnectionCap } from '../http/connection-cap.ts';
import { InFlightRequests } from '../http/request-caps.ts';
import { createTaskRuntime } from '../tasks/task-runtime.ts';

/** A full stream cap frees up as clients leave: a short wait is worth a try. */
const STREAM_RETRY_AFTER_MS = 5_000;

export interface RunningGateway {
  url: string;
  port: number;
  /** Base URL of the admin listener, when `admin` is configured. */
  adminUrl?: string;
  /** The URL of each virtual server in service (`servers:`; a config reload changes them), by name. */
  readonly servers: Readonly<Record<string, string>>;
  /** The upstreams serving now (a config reload changes them). */
  readonly upstreams: readonly Upstream[];
  notifier: Notifier;
  /** The config running now (a config reload changes it). */
  currentConfig(): GatewayConfig;
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

export interface GatewayOptions {
  /** Where OTEL_* settings come from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** The clock of kept results' expiry (tests inject one); Date.now by default. */
  now?: () => number;
  /** Reload the whole config on SIGHUP and when its file changes (`gatehouse serve`); unset:
   * only the policy reloads, on its own. `load` reads the file as at boot. */
  reload?: { load(): { config: GatewayConfig | undefined; issues: readonly ConfigIssue[] }; watch: boolean };
  /** Opens the audit file (tests count or fail its syncs); node:fs/promises by default. */
  openAuditFile?: OpenAuditFile;
}

export async function startGateway(config: GatewayConfig, logger: Logger, opts: GatewayOptions = {}): Promise<RunningGateway> {
  const secret = decodeSecret(config.sessions.secret);
  // Cursors must verify on every replica that shares the session secret.
  const cursorSecret = secret ? createHmac('sha256', secret).update('gatehouse cursor v1').digest() : randomBytes(32);
  const answerBudget = new AnswerBudget(config.limits.maxInflightAnswerBytes);
  const inFlight = new InFlightRequests(() => live().config.limits);
  const audit = await openAuditTrail(config.audit, { logger, activeRequests: () => inFlight.size(), ...(opts.openAuditFile ? { openFile: opts.openAuditFile } : {}) });
  // Notable events go to the trail too; a refused event write is logged, never thrown.
  const event = (name: EventAuditRecord['event'], detail: JsonObject): void => {
    void audit.record({ type: 'event', time: new Date().toISOString(), event: name, detail }).catch((e: unknown) => logger.error('audit event not written', { event: name, error: (e as Error).message }));
  };
  const { limits } = config;
  const notifier = new Notifier({ maxStreams: limits.maxStreams, maxStreamsPerPrincipal: limits.maxStreamsPerPrincipal, retryAfterMs: STREAM_RETRY_AFTER_MS });
  const tasks = createTaskRuntime({ secret, now: opts.now ?? Date.now, deliver: (id, n) => notifier.sendToSession(id, n), ended: (detail) => event('task_ended', detail) });
  // The generation serving now; set once the first is built, below.
  let current: Generation | undefined;
  const live = (): Generation => current!;
  let subscriptions: ResourceSubscriptions | undefined;
  let servers: VirtualServers | undefined;
  let metrics: Metrics | undefined;
  // Per-user upstream authorization; a config reload reconfigures it (config-swap.ts).
  const userAuth = createUserAuth(config, logger);
  const pool = new UpstreamPool({
    make: (u) => perUserUpstream(u, userAuth, answerBudget) ?? createUpstream(u, logger, answerBudget),
    logger,
    onMade: (u) => {
      u.onEvent((ev) => {
        if (ev.type === 'state' && ev.state !== 'starting') event(ev.state === 'up' ? 'upstream_up' : 'upstream_down', { upstream: u.name, ...(ev.error ? { error: ev.error } : {}) });
        if (ev.type === 'limit_hit') metrics?.recordLimitHit(ev.limit);
      });
      for (const watcher of [subscriptions, servers, tasks]) watcher?.watch(u);
    },
  });
  const catalog = new Catalog(config, pool.open(config.upstreams), logger, cursorSecret);
  catalog.onChange((kind) => notifier.publish(kind === 'resourceTemplates' ? 'resources' : kind));
  catalog.overlays.onChange((change) => event('overlay_changed', { ...change }));
  const tracing = createTracing({ env: opts.env ?? process.env, serviceName: 'gatehouse', serviceVersion: GATEWAY_VERSION, logger });
  let pendingApprovals = 0;
  const sessions = new LegacySessions(secret, config.sessions.idleTimeoutMs, Date.now, limits);
  // Counted across reloads; each reads its cap from the config serving now (as does inFlight, made before the audit trail: group commit waits only for its requests' records).
  const connections = new ConnectionCap(() => live().config.limits.maxConnections);
  metrics = createGatewayMetrics(config, { catalog, serverCatalogs: () => servers?.catalogs() ?? [], pendingApprovals: () => pendingApprovals, sessions, notifier, answerBudget, audit, logger, live, connections, inFlight });
  // With audit off nothing is recorded, so no record (digests of arguments and results) is built.
  const bodies = config.audit.enabled ? createAuditBodies(config.audit) : undefined;
  const observer = createObserver({ tracing, metrics, audit, ...(bodies ? { bodies } : {}), logger });
  const approvalEvent = (name: 'approval_requested' | 'approval_decided', detail: JsonObject): void => {
    // A calling user's MRTR question may never be answered; only webhook and console
    // approvals are held open here.
    if (detail.channel !== 'user') pendingApprovals = Math.max(0, pendingApprovals + (name === 'approval_requested' ? 1 : -1));
    event(name, detail);
  };
  // The console signs users in with the identity of the generation serving now.
  const authenticate: Authenticate = (req) => live().authenticate(req);
  const approvals = createApprovals(config.approvals, {
    logger,
    authenticate,
    audit: (name, detail) => approvalEvent(name, detail as unknown as JsonObject),
    connections: () => userAuth.hasConsent(),
  });
  approvals.deps.event = approvalEvent;
  catalog.measure({
    lookup: (kind, hit) => metrics.recordCacheLookup(kind, hit),
    evicted: () => metrics.recordLimitHit('catalogCacheBytes'),
    deepItems: (count) => {
      for (let i = 0; i < count; i++) metrics.recordLimitHit('maxJsonDepth');
    },
  });
  notifier.onStream(({ event: name, detail }) => {
    event(name, detail);
    if (detail.reason === 'lifetime') metrics.recordLimitHit('streamMaxLifetime');
    else if (detail.reason === 'idle') metrics.recordLimitHit('streamIdleTimeout');
  });
  subscriptions = new ResourceSubscriptions({ catalog, enforcer: liveEnforcer(() => live().enforcement.enforcer), upstreams: () => pool.current(), deliver: (id, n) => notifier.sendToSession(id, n) });
  sessions.onRemoved((id) => subscriptions.dropSession(id));
  const liveLimits = (): GatewayConfig['limits'] => live().config.limits;
  const listenResources = (principal: Principal, uris: readonly string[], sink: (n: JsonRpcNotification) => void) => subscriptions.listen({ principal, authContext: principal.authContext }, uris, sink);
  const endpoint = createMcpEndpoint({ config, gateway: liveGateway(() => live().gateway), sessions, notifier, logger, observer, liveLimits, listenResources, listenTasks: tasks.listen });
  servers = new VirtualServers({ catalog, config, liveLimits, enforcer: liveEnforcer(() => live().enforcement.enforcer), sessions, notifier, logger, tracing, metrics, audit, bodies, event, listenTasks: tasks.listen });
  // Shared by every config generation: a reload leaves calls waiting for input where they are.
  const suspended = createSuspendedCalls(() => live().config.limits, approvals.deps.sealer, (l) => metrics.recordLimitHit(l), (b, reason, rounds) =>
    event('suspended_call_cancelled', { upstream: b.upstream, method: b.method, name: b.name, principal: b.owner, reason, rounds }),
  );
  const drainState = new DrainState();
  const userParts = userAuth.sharedParts(authenticate, (name, detail) => event(name, detail));
  const shared: SharedParts = { logger, catalog, notifier, observer, metrics, validator: new SchemaValidator(), approvals, subscriptions, suspended, tasks, endpoint, servers, drain: drainState, connections, inFlight, event, userAuth, policySignal: opts.reload === undefined, ...(opts.now ? { now: opts.now } : {}), ...userParts };

  // Everything but the listener and the upstreams, closed in the order the parts depend on.
  const closeParts = async (): Promise<void> => {
    for (const held of [suspended, tasks]) held.closeAll();
    sessions.close();
    reloader?.close();
    current?.enforcement.policy?.close();
    await current?.enforcement.limiter.close();
    await approvals.close();
    await userAuth.close();
    await audit.close();
    await tracing.shutdown().catch(() => undefined);
  };
  let reloader: ConfigReloader | undefined;
  try {
    current = buildGeneration(config, pool.current(), shared);
  } catch (e) {
    await closeParts();
    throw e;
  }
  servers.install(config, current.servers);
  event('config_loaded', { file: config.file, upstreams: config.upstreams.map((u) => u.name), ...(config.servers.length > 0 ? { servers: config.servers.map((s) => s.name) } : {}), policy: current.enforcement.policy?.current().version ?? null });
  // Node refuses a header block over maxHeaderSize on its own (431, no body); leave room
  // above the configured limit so the gateway's check, which says which limit, answers first.
  // Listening comes before the upstreams start: an address that is taken (EADDRINUSE) or
  // not allowed (EACCES) must fail the start with no child spawned and nothing left open,
  // so that `serve` exits at once instead of running headless.
  let server: Server;
  try {
    server = await listen(config.listen, { maxHeaderSize: Math.max(16_384, config.limits.maxHeaderBytes + 8_192) }, (req, res) => live().listener(req, res));
    connections.watch(server);
  } catch (e) {
    await closeParts();
    throw e;
  }
  // The admin listener (/metrics, /readyz), when configured: failing to bind it fails the start too.
  let admin: { server: Server; url: string } | undefined;
  try {
    admin = config.admin === undefined ? undefined : await listenAdmin(config.admin, (req, res) => live().adminListener!(req, res));
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
      await pool.closeAll();
    })());
  // Upstreams start in the background: the gateway serves while they come up.
  // start() never rejects by contract (failures show in status()); a rejection is a bug, logged.
  for (const u of pool.current()) void u.start().catch((e: unknown) => logger.error('upstream start failed', { upstream: u.name, error: (e as Error).message }));
  // After the boot upstreams have started, so that a reload only ever starts the connections it made.
  if (opts.reload !== undefined) {
    const swap = createConfigSwap({ current: live, install: (g) => (current = g), pool, shared, sessions, answerBudget, streamRetryAfterMs: STREAM_RETRY_AFTER_MS });
    reloader = startConfigReloader({
      file: config.file,
      load: opts.reload.load,
      apply: swap,
      record: (result, detail) => {
        metrics.recordConfigReload(result);
        event('config_reload', detail);
      },
      logger,
      watch: opts.reload.watch,
    });
  }

  const port = (server.address() as AddressInfo).port;
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  logger.info('gatehouse listening', { url: `http://${host}:${port}${config.listen.path}`, upstreams: pool.current().length });
  if (admin !== undefined) logger.info('gatehouse admin listener (/metrics, /readyz, /healthz)', { url: admin.url });
  for (const s of config.servers) logger.info('virtual server', { server: s.name, url: `http://${s.host ?? host}:${port}${s.path}`, upstreams: s.upstreams });
  const running = servers;
  return {
    url: `http://${host}:${port}${config.listen.path}`,
    port,
    get upstreams() {
      return pool.current().map((u) => u.inner);
    },
    get servers() {
      return Object.fromEntries(running.configs().map((s) => [s.name, `http://${host}:${port}${s.path}`]));
    },
    notifier,
    currentConfig: () => live().config,
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
      const { drainDelayMs, deadlineMs } = live().config.shutdown;
      reloader?.stop();
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
      pool.killChildren();
    },
  };
}
