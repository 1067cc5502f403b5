// One generation of a running gateway: every part made from one config that a reload can
// replace — the upstream list and concurrency gates, the enforcement (policy), who is calling
// (identity), the method table with tool search and result shaping, each virtual server's part
// (server-endpoints.ts), and the HTTP ring of /mcp, of the servers' paths and of the other routes.
// The parts that outlive a reload (listeners, sessions, streams, the catalogs, the endpoints,
// the audit trail, metrics, approvals) are made once by start-gateway.ts and shared.
// A part whose settings did not change is carried over from the previous generation, so that
// its state (rate counters, JWKS keys, a tool search index, kept results, queued calls) stays.
import type { RequestListener } from 'node:http';
import type { Hono } from 'hono';
import type { Call } from '../protocol/call.ts';
import type { ApprovalsRuntime } from './approvals-wiring.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { EventAuditRecord } from '../audit/audit-record.ts';
import { sameValue } from '../config/live-changes.ts';
import type { GatewayConfig } from '../config/types.ts';
import { compose, type Endpoint } from '../http/compose.ts';
import type { DrainState } from '../http/drain-state.ts';
import type { HttpReply, HttpRequest } from '../http/http-io.ts';
import { buildAdminListener, buildListener } from '../http/listener.ts';
import { guardLayer, observeLayer, withIdentity } from '../http/mcp-layers.ts';
import type { ConnectionCap } from '../http/connection-cap.ts';
import { connectionCapLayer, type InFlightRequests } from '../http/request-caps.ts';
import type { Observer } from '../http/observer.ts';
import { createAuthenticator, type Authenticate } from '../identity/authenticate.ts';
import type { Principal } from '../identity/principal.ts';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import { ConcurrencyGate, type GateLimits } from '../limits/concurrency-gate.ts';
import { createContextBudget, createGateway, type ContextBudget, type Gateway, type GatewayDeps } from '../mcp/method-table.ts';
import type { ResourceSubscriptions } from '../mcp/resource-subscriptions.ts';
import type { SuspendedCalls } from '../mcp/suspended-calls.ts';
import type { TaskRuntime } from '../tasks/task-runtime.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ok } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import type { Notifier } from '../transport/notifier.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { SchemaValidator } from '../validation/schema-validator.ts';
import { createEnforcement, type Enforcement } from './enforcement-wiring.ts';
import type { McpEndpoint, ServerGeneration, VirtualServers } from './server-endpoints.ts';
import { serverEnforcer } from '../policy/enforcer.ts';
import { buildRouteTable } from '../servers/server-routes.ts';

/** What every generation shares (made once at start). */
export interface SharedParts {
  logger: Logger;
  catalog: Catalog;
  notifier: Notifier;
  observer: Observer;
  metrics: Metrics;
  validator: SchemaValidator;
  approvals: ApprovalsRuntime;
  subscriptions: ResourceSubscriptions;
  /** Upstream calls waiting for a 2026-07-28 client's input; they outlive a generation. */
  suspended: SuspendedCalls;
  /** Tasks created through this replica and their ids' key; they outlive a generation. */
  tasks: TaskRuntime;
  /** The /mcp endpoint (sessions, streams, pending client requests live in it). */
  endpoint: (req: HttpRequest, principal: Principal) => Promise<HttpReply>;
  /** The virtual servers' endpoints and catalogs. */
  servers: VirtualServers;
  drain: DrainState;
  /** Connections open and requests being answered: counted across reloads (README, Limits). */
  connections: ConnectionCap;
  inFlight: InFlightRequests;
  event: (name: EventAuditRecord['event'], detail: JsonObject) => void;
  /** Whether the policy runtime handles SIGHUP itself (false when the config reload does). */
  policySignal: boolean;
  now?: () => number;
  /** The /oauth routes of per-user upstream authorization (404 while no upstream has auth type user). */
  userAuthRoutes?: Hono;
  /** Per-user upstream authorization, told of each config as it goes into service. */
  userAuth?: { reconfigure(config: GatewayConfig): void };
  /** Told of every call (token-exchange upstreams keep the caller's subject token). */
  noteCaller?: (call: Call) => void;
}

export interface Generation {
  config: GatewayConfig;
  upstreams: readonly Upstream[];
  gates: ReadonlyMap<string, ConcurrencyGate>;
  enforcement: Enforcement;
  authenticate: Authenticate;
  gateway: Gateway;
  contextBudget: ContextBudget;
  /** Each virtual server's part, by name (empty without `servers:`). */
  servers: ReadonlyMap<string, ServerGeneration>;
  /** The main listener's request handler (/mcp and the other routes). */
  listener: RequestListener;
  /** The admin listener's, when `admin` is configured. */
  adminListener: RequestListener | undefined;
}

const ANONYMOUS: Authenticate = async () => ok(ANONYMOUS_PRINCIPAL);

/** Throws what createEnforcement throws (a policy directory that does not load). */
export function buildGeneration(config: GatewayConfig, upstreams: readonly Upstream[], shared: SharedParts, previous?: Generation): Generation {
  const { logger, catalog, notifier, event } = shared;
  const enforcement =
    previous !== undefined && sameValue(previous.config.policy, config.policy)
      ? previous.enforcement
      : createEnforcement(config, { catalog, servers: shared.servers, notifier, logger, event, signal: shared.policySignal, ...(previous ? { limiter: previous.enforcement.limiter } : {}) });
  const authenticate = previous !== undefined && sameValue(previous.config.identity, config.identity) ? previous.authenticate : authenticatorFor(config, logger);
  const gates = gatesFor(config, upstreams, previous, () => shared.metrics.recordLimitHit('maxConcurrent'));
  const deps: Omit<GatewayDeps, 'contextBudget'> = {
    config,
    catalog,
    upstreams,
    logger,
    enforcer: enforcement.enforcer,
    validator: shared.validator,
    metrics: shared.metrics,
    approvals: shared.approvals.deps,
    subscriptions: shared.subscriptions,
    suspended: shared.suspended,
    tasks: shared.tasks,
    gates,
    ...(shared.now ? { now: shared.now } : {}),
    ...(shared.noteCaller ? { noteCaller: shared.noteCaller } : {}),
  };
  const contextBudget = contextBudgetFor(deps, previous, enforcement);
  const gateway = createGateway({ ...deps, contextBudget });
  // The HTTP ring of an endpoint: observe outermost, then load shedding (README, Limits), the
  // guards, identity, and the principal's own share of the requests in flight (docs/architecture.md §4).
  const { connections, inFlight } = shared;
  const ring = (observer: Observer, path: string, who: Authenticate, endpoint: McpEndpoint): Endpoint =>
    compose([observeLayer(observer, logger, path), connectionCapLayer(connections), inFlight.overall(), guardLayer(config)], withIdentity(who, inFlight.perPrincipal(endpoint)));
  const mcp = ring(shared.observer, config.listen.path, authenticate, shared.endpoint);
  // Each server: the same method table over its own catalog, upstreams and policy view, behind the same ring.
  const servers = shared.servers.build(
    {
      config,
      upstreams,
      authenticate,
      ring,
      gateway: (server, parts, before) => {
        const own = { ...deps, ...parts, enforcer: serverEnforcer(enforcement.enforcer, server.name), ...(server.instructions === undefined ? {} : { instructions: server.instructions }) };
        const budget = contextBudgetFor(own, previous && before && { config: previous.config, enforcement: previous.enforcement, contextBudget: before.contextBudget }, enforcement);
        return { gateway: createGateway({ ...own, contextBudget: budget }), contextBudget: budget };
      },
    },
    previous?.servers,
  );
  // Virtual servers: more endpoints, found by path and Host; without them the listener is as before.
  const own = [...servers.values()];
  const routing =
    own.length === 0
      ? {}
      : {
          routes: buildRouteTable([{ path: config.listen.path, host: undefined, target: mcp }, ...own.map((s) => s.route)]),
          serverMetadata: buildRouteTable(own.flatMap((s) => (s.metadata ? [s.metadata] : []))),
        };
  const app = { config, upstreams, mcp, metrics: shared.metrics, logger, drain: shared.drain, connections: shared.connections };
  return {
    config,
    upstreams,
    gates,
    enforcement,
    authenticate,
    gateway,
    contextBudget,
    servers,
    listener: buildListener({ ...app, failingLists: () => catalog.failingLists(), extraRoutes: [shared.approvals.routes, ...(shared.userAuthRoutes ? [shared.userAuthRoutes] : [])], ...routing }),
    adminListener: config.admin === undefined ? undefined : buildAdminListener(app, config.admin.host),
  };
}

function authenticatorFor(config: GatewayConfig, logger: Logger): Authenticate {
  if (config.identity) return createAuthenticator(config.identity);
  logger.warn('no identity configured: every caller is anonymous; configure `identity` before exposing the gateway');
  return ANONYMOUS;
}

/** A kept upstream keeps its gate: its running and queued calls stay counted, so a reload
 * never lets more than maxConcurrent calls run on it (the gate takes the new queue limits at
 * the swap, applyGateLimits). `onFull`: a call waits because its upstream runs maxConcurrent
 * calls (limit hits). */
function gatesFor(config: GatewayConfig, upstreams: readonly Upstream[], previous: Generation | undefined, onFull: () => void): Map<string, ConcurrencyGate> {
  return new Map(
    upstreams.map((u) => {
      const kept = previous !== undefined && previous.upstreams.includes(u) ? previous.gates.get(u.name) : undefined;
      return [u.name, kept ?? new ConcurrencyGate(u.name, gateLimitsOf(config, u), onFull)];
    }),
  );
}

function gateLimitsOf(config: GatewayConfig, u: Upstream): GateLimits {
  return { ...u.config.concurrency, maxQueued: config.limits.maxQueuedCalls, queueTimeoutMs: config.limits.queueTimeoutMs };
}

/** At a reload's swap, once its generation is built: every gate takes this config's limits
 * (a gate kept from the generation before included). */
export function applyGateLimits(gen: Generation): void {
  for (const u of gen.upstreams) gen.gates.get(u.name)?.resize(gateLimitsOf(gen.config, u));
}

/** Tool search keeps its index while the enforcement and its settings stay; shaping keeps its
 * kept results while its settings stay. */
function contextBudgetFor(deps: Omit<GatewayDeps, 'contextBudget'>, previous: Pick<Generation, 'config' | 'enforcement' | 'contextBudget'> | undefined, enforcement: Enforcement): ContextBudget {
  const { config } = deps;
  const keepSearch = previous !== undefined && previous.enforcement === enforcement && sameValue(previous.config.toolSearch, config.toolSearch);
  const keepShaper = previous !== undefined && sameValue(previous.config.resultShaping, config.resultShaping);
  const made = keepSearch && keepShaper ? {} : createContextBudget(deps);
  const toolSearch = keepSearch ? previous.contextBudget.toolSearch : made.toolSearch;
  const shaper = keepShaper ? previous.contextBudget.shaper : made.shaper;
  return { ...(toolSearch ? { toolSearch } : {}), ...(shaper ? { shaper } : {}) };
}
