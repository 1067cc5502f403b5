// The virtual servers of a running gateway (`servers:`), across config reloads. What a server
// holds for its clients lives as long as its name is configured and is made once: its catalog
// over the shared upstream parts, its resource subscriptions, its observer (the server's name on
// every span, metric and audit record) and its endpoint (sessions bound to it, streams, pending
// client requests). What one config makes is built with each generation (gateway-generation.ts):
// the server's upstream connections, naming and selection, method table, policy view, identity
// and route. A reload takes servers added, changed and removed live: a removed server's routes
// go with its generation and its streams are ended. Composition only; what a server is lives in
// src/servers/.
import type { AuditBodies } from '../audit/audit-body.ts';
import type { AuditTrail } from '../audit/audit-record.ts';
import type { Catalog, CatalogStats } from '../catalog/catalog.ts';
import { sameValue } from '../config/live-changes.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { LimitsConfig } from '../config/limits-config.ts';
import type { Endpoint } from '../http/compose.ts';
import type { HttpReply, HttpRequest } from '../http/http-io.ts';
import { createObserver, type Observer } from '../http/observer.ts';
import { createAuthenticator, type Authenticate } from '../identity/authenticate.ts';
import type { IdentityConfig } from '../identity/identity-config.ts';
import type { Principal } from '../identity/principal.ts';
import type { JsonObject, JsonRpcNotification } from '../protocol/message.ts';
import { metadataPaths, protectedResourceMetadata, type ProtectedResourceMetadata } from '../identity/resource-metadata.ts';
import type { ContextBudget, Gateway } from '../mcp/method-table.ts';
import { ResourceSubscriptions } from '../mcp/resource-subscriptions.ts';
import { serverEnforcer, type Enforcer } from '../policy/enforcer.ts';
import type { RouteEntry } from '../servers/server-routes.ts';
import type { ServerConfig } from '../servers/servers-config.ts';
import { serverScope, type ServerScope } from '../servers/server-view.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import type { Tracing } from '../telemetry/tracing.ts';
import type { LegacySessions } from '../transport/legacy-sessions.ts';
import { createMcpEndpoint } from '../transport/mcp-endpoint.ts';
import type { TaskListen } from '../transport/listen-streams.ts';
import type { Notifier } from '../transport/notifier.ts';
import type { Upstream } from '../upstream/upstream.ts';
import { liveGateway } from './live-parts.ts';

export interface VirtualServerDeps {
  /** The default endpoint's catalog, whose upstream parts every server's catalog draws from. */
  catalog: Catalog;
  /** The config at start: what the endpoints read that a reload cannot change (limits come live). */
  config: GatewayConfig;
  liveLimits: () => LimitsConfig;
  /** The enforcer of the generation serving now (live-parts.ts). */
  enforcer: Enforcer;
  sessions: LegacySessions;
  notifier: Notifier;
  logger: Logger;
  tracing: Tracing;
  metrics: Metrics;
  audit: AuditTrail;
  bodies: AuditBodies | undefined;
  /** An audit event (a server's overlay held back or applied again). */
  event: (name: 'overlay_changed', detail: JsonObject) => void;
  /** A listen's taskIds (tasks/task-runtime.ts): task ids are the same on every endpoint. */
  listenTasks?: TaskListen['listen'];
}

/** An MCP endpoint behind its HTTP ring: it gets the principal identity found. */
export type McpEndpoint = (req: HttpRequest, principal: Principal) => Promise<HttpReply>;

/** What one server keeps across reloads. */
interface ServerHome {
  catalog: Catalog;
  subscriptions: ResourceSubscriptions;
  observer: Observer;
  endpoint: McpEndpoint;
  /** Its part of the generation serving now; after a removal, the last one, for requests still in it. */
  serving: ServerGeneration | undefined;
}

/** What one config makes of one server. */
export interface ServerGeneration {
  config: ServerConfig;
  upstreams: readonly Upstream[];
  scope: ServerScope;
  catalog: Catalog;
  gateway: Gateway;
  contextBudget: ContextBudget;
  identity: IdentityConfig | undefined;
  authenticate: Authenticate;
  route: RouteEntry<Endpoint>;
  metadata: RouteEntry<ProtectedResourceMetadata> | undefined;
}

/** What the generation hands in to build the servers' parts. */
export interface ServerBuild {
  config: GatewayConfig;
  upstreams: readonly Upstream[];
  /** The default endpoint's authenticator, for servers when no identity is configured. */
  authenticate: Authenticate;
  /** The HTTP ring every endpoint of the generation sits behind (observer, load shedding, guards, identity). */
  ring(observer: Observer, path: string, authenticate: Authenticate, endpoint: McpEndpoint): Endpoint;
  /** A server's method table over its catalog, upstreams and subscriptions. */
  gateway(server: ServerConfig, parts: { catalog: Catalog; upstreams: readonly Upstream[]; subscriptions: ResourceSubscriptions }, previous: ServerGeneration | undefined): { gateway: Gateway; contextBudget: ContextBudget };
}

export class VirtualServers {
  /** By server name; a name once configured keeps its home (bounded by the names ever configured). */
  private readonly homes = new Map<string, ServerHome>();
  private serving: ReadonlyMap<string, ServerGeneration> = new Map();

  constructor(private readonly deps: VirtualServerDeps) {}

  /** Each configured server's part of a generation, built beside the one serving: nothing
   * changes for a server's clients until `install`. */
  build(b: ServerBuild, previous: ReadonlyMap<string, ServerGeneration> | undefined): Map<string, ServerGeneration> {
    const byName = new Map(b.upstreams.map((u) => [u.name, u]));
    const naming = { separator: b.config.separator, maxNameLength: b.config.maxNameLength, prefixOf: (u: string) => byName.get(u)?.config.prefix ?? u };
    const out = new Map<string, ServerGeneration>();
    for (const server of b.config.servers) {
      const upstreams = server.upstreams.map((n) => byName.get(n)!);
      const scope = serverScope(server, naming);
      const home = this.homes.get(server.name) ?? this.makeHome(server.name, upstreams, scope, b.upstreams);
      const before = previous?.get(server.name);
      const { gateway, contextBudget } = b.gateway(server, { catalog: home.catalog, upstreams, subscriptions: home.subscriptions }, before);
      const identity = b.config.identity && serverIdentity(b.config.identity, server);
      // The same identity at the same URI keeps its authenticator (and the JWKS keys it holds).
      const kept = identity !== undefined && before?.identity !== undefined && sameValue(before.identity, identity) ? before.authenticate : undefined;
      const authenticate = kept ?? (identity ? createAuthenticator(identity) : b.authenticate);
      const target = b.ring(home.observer, server.path, authenticate, home.endpoint);
      const prm = identity && protectedResourceMetadata(identity, server.path);
      out.set(server.name, {
        config: server,
        upstreams,
        scope,
        catalog: home.catalog,
        gateway,
        contextBudget,
        identity,
        authenticate,
        route: { path: server.path, host: server.host, target },
        metadata: prm ? { path: metadataPaths(server.path)[0]!, host: server.host, target: prm.document } : undefined,
      });
    }
    return out;
  }

  /** Puts a generation's servers in service, in the same turn as the rest of it (after the
   * default catalog's reconfigure): each catalog takes its upstreams and scope, and the
   * streams of the servers no longer configured end. */
  install(config: GatewayConfig, servers: ReadonlyMap<string, ServerGeneration>): void {
    for (const [name, s] of servers) {
      s.catalog.reconfigure(config, s.upstreams, s.scope);
      this.homes.get(name)!.serving = s;
    }
    for (const name of this.serving.keys()) if (!servers.has(name)) this.deps.notifier.closeServer(name);
    this.serving = servers;
    this.deps.catalog.serve([...servers.values()].map((s) => s.catalog));
  }

  /** Each connection the pool makes: every server's subscriptions relay its updates while that
   * server names it. */
  watch(u: Upstream): void {
    for (const home of this.homes.values()) home.subscriptions.watch(u);
  }

  /** The catalog of a server in service now. */
  catalog(name: string): Catalog | undefined {
    return this.serving.get(name)?.catalog;
  }

  /** The catalogs of the servers in service now. */
  catalogs(): Catalog[] {
    return [...this.serving.values()].map((s) => s.catalog);
  }

  /** The servers in service now (RunningGateway.servers). */
  configs(): ServerConfig[] {
    return [...this.serving.values()].map((s) => s.config);
  }

  /** `all`: every connection of the generation being built; later ones come through `watch`. */
  private makeHome(name: string, upstreams: readonly Upstream[], scope: ServerScope, all: readonly Upstream[]): ServerHome {
    const { deps } = this;
    const catalog = deps.catalog.forServer(upstreams, scope);
    // Only this server's listeners hear of its changes (notifier.ts).
    catalog.onChange((kind) => deps.notifier.publish(kind === 'resourceTemplates' ? 'resources' : kind, name));
    // The change names the server: its own overlays, and the gateway-wide ones as its view has them.
    catalog.overlays.onChange((change) => deps.event('overlay_changed', { ...change }));
    let home: ServerHome | undefined;
    const subscriptions = new ResourceSubscriptions({
      catalog,
      enforcer: serverEnforcer(deps.enforcer, name),
      upstreams: () => home?.serving?.upstreams ?? [],
      deliver: (id, n) => deps.notifier.sendToSession(id, n),
    });
    for (const u of all) subscriptions.watch(u);
    deps.sessions.onRemoved((id) => subscriptions.dropSession(id));
    const observer = createObserver({ tracing: deps.tracing, metrics: deps.metrics, audit: deps.audit, ...(deps.bodies ? { bodies: deps.bodies } : {}), logger: deps.logger, server: name });
    // Routed only once installed, so `serving` is set whenever a request reaches the endpoint.
    const gateway = liveGateway(() => home!.serving!.gateway);
    const listenResources = (principal: Principal, uris: readonly string[], sink: (n: JsonRpcNotification) => void): ReturnType<ResourceSubscriptions['listen']> =>
      subscriptions.listen({ principal, authContext: principal.authContext }, uris, sink);
    const endpoint = createMcpEndpoint({ config: deps.config, gateway, sessions: deps.sessions, notifier: deps.notifier, logger: deps.logger, observer, server: name, liveLimits: deps.liveLimits, listenResources, ...(deps.listenTasks ? { listenTasks: deps.listenTasks } : {}) });
    home = { catalog, subscriptions, observer, endpoint, serving: undefined };
    this.homes.set(name, home);
    return home;
  }
}

/** The identity of a server's endpoint: its own resource URI (RFC 9728 section 2; MCP
 * 2026-07-28, basic/authorization: the canonical URI of the server a client talks to), which
 * its challenges point to and, unless audiences are configured, the audience its tokens must
 * carry (RFC 8707: a token asked for one server is not for another). */
export function serverIdentity(identity: IdentityConfig, server: ServerConfig): IdentityConfig {
  const base = new URL(identity.resource);
  const resource = new URL(server.path, `${base.protocol}//${server.host ?? base.hostname}${base.port ? `:${base.port}` : ''}`).href;
  const jwt = identity.jwt;
  const defaulted = jwt !== undefined && jwt.audiences.length === 1 && jwt.audiences[0] === identity.resource;
  return { ...identity, resource, jwt: jwt && defaulted ? { ...jwt, audiences: [resource] } : jwt };
}

/** What the catalog caches hold over every endpoint (metrics): the upstream lists once (they
 * are shared), the merged and filtered views and pointers of each endpoint's catalog summed. */
export function allCatalogStats(catalogs: readonly Catalog[]): CatalogStats {
  const all = catalogs.map((c) => c.stats());
  const sum = (pick: (s: CatalogStats) => number): number => all.reduce((n, s) => n + pick(s), 0);
  return {
    merges: sum((s) => s.merges),
    filterPasses: sum((s) => s.filterPasses),
    bytes: { lists: all[0]?.bytes.lists ?? 0, merged: sum((s) => s.bytes.merged), filtered: sum((s) => s.bytes.filtered), callers: sum((s) => s.bytes.callers) },
  };
}
