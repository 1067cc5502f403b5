// The virtual servers of a config (`servers:`), each assembled as a complete MCP endpoint of
// its own: a catalog over the shared upstream parts with the server's naming and selection,
// its own method table, resource subscriptions, observer (the server's name on every span,
// metric and audit record), sessions bound to it, and the same HTTP layers as the default
// endpoint. Composition only; what a server is lives in src/servers/.
import type { ApprovalDeps } from '../approvals/approval-flow.ts';
import type { AuditBodies } from '../audit/audit-body.ts';
import type { AuditTrail } from '../audit/audit-record.ts';
import type { Catalog, CatalogStats } from '../catalog/catalog.ts';
import type { GatewayConfig } from '../config/types.ts';
import { compose, type Endpoint } from '../http/compose.ts';
import { guardLayer, observeLayer, withIdentity } from '../http/mcp-layers.ts';
import { createObserver } from '../http/observer.ts';
import { createAuthenticator, type Authenticate } from '../identity/authenticate.ts';
import type { IdentityConfig } from '../identity/identity-config.ts';
import { metadataPaths, protectedResourceMetadata, type ProtectedResourceMetadata } from '../identity/resource-metadata.ts';
import type { ConcurrencyGate } from '../limits/concurrency-gate.ts';
import { createGateway } from '../mcp/method-table.ts';
import { ResourceSubscriptions } from '../mcp/resource-subscriptions.ts';
import { serverEnforcer, type Enforcer } from '../policy/enforcer.ts';
import type { RouteEntry } from '../servers/server-routes.ts';
import type { ServerConfig } from '../servers/servers-config.ts';
import { serverScope } from '../servers/server-view.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import type { Tracing } from '../telemetry/tracing.ts';
import type { LegacySessions } from '../transport/legacy-sessions.ts';
import { createMcpEndpoint } from '../transport/mcp-endpoint.ts';
import type { Notifier } from '../transport/notifier.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { SchemaValidator } from '../validation/schema-validator.ts';

/** Each server's catalog, drawn from the default catalog's parts; built before enforcement,
 * which judges a policy swap on the lists each listener is served. */
export function createServerCatalogs(config: GatewayConfig, catalog: Catalog, upstreams: readonly Upstream[]): Map<string, Catalog> {
  const byName = new Map(upstreams.map((u) => [u.name, u]));
  const naming = { separator: config.separator, maxNameLength: config.maxNameLength, prefixOf: (u: string) => byName.get(u)?.config.prefix ?? u };
  return new Map(config.servers.map((s) => [s.name, catalog.forServer(s.upstreams.map((n) => byName.get(n)!), serverScope(s, naming))]));
}

export interface ServerEndpointDeps {
  config: GatewayConfig;
  catalogs: ReadonlyMap<string, Catalog>;
  upstreams: readonly Upstream[];
  logger: Logger;
  enforcer: Enforcer;
  validator: SchemaValidator;
  metrics: Metrics;
  tracing: Tracing;
  audit: AuditTrail;
  bodies: AuditBodies | undefined;
  approvals: ApprovalDeps;
  gates: ReadonlyMap<string, ConcurrencyGate>;
  sessions: LegacySessions;
  notifier: Notifier;
  /** The default endpoint's authenticator, for servers when no identity is configured. */
  authenticate: Authenticate;
  now?: () => number;
}

export interface ServerEndpoints {
  routes: RouteEntry<Endpoint>[];
  metadata: RouteEntry<ProtectedResourceMetadata>[];
}

export function createServerEndpoints(deps: ServerEndpointDeps): ServerEndpoints {
  const { config, logger, notifier, sessions } = deps;
  const byName = new Map(deps.upstreams.map((u) => [u.name, u]));
  const routes: RouteEntry<Endpoint>[] = [];
  const metadata: RouteEntry<ProtectedResourceMetadata>[] = [];
  for (const server of config.servers) {
    const catalog = deps.catalogs.get(server.name)!;
    const upstreams = server.upstreams.map((n) => byName.get(n)!);
    // Only this server's listeners hear of its changes (notifier.ts).
    catalog.onChange((kind) => notifier.publish(kind === 'resourceTemplates' ? 'resources' : kind, server.name));
    const enforcer = serverEnforcer(deps.enforcer, server.name);
    const subscriptions = new ResourceSubscriptions({ catalog, enforcer, upstreams, deliver: (id, n) => notifier.sendToSession(id, n) });
    sessions.onRemoved((id) => subscriptions.dropSession(id));
    const gateway = createGateway({
      config, catalog, upstreams, logger, enforcer, validator: deps.validator, metrics: deps.metrics, approvals: deps.approvals, subscriptions, gates: deps.gates,
      ...(deps.now ? { now: deps.now } : {}),
      ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
    });
    const observer = createObserver({ tracing: deps.tracing, metrics: deps.metrics, audit: deps.audit, ...(deps.bodies ? { bodies: deps.bodies } : {}), logger, server: server.name });
    const endpoint = createMcpEndpoint({ config, gateway, sessions, notifier, logger, observer, server: server.name });
    const identity = config.identity && serverIdentity(config.identity, server);
    const authenticate = identity ? createAuthenticator(identity) : deps.authenticate;
    routes.push({ path: server.path, host: server.host, target: compose([observeLayer(observer, logger, server.path), guardLayer(config)], withIdentity(authenticate, endpoint)) });
    const prm = identity && protectedResourceMetadata(identity, server.path);
    if (prm) metadata.push({ path: metadataPaths(server.path)[0]!, host: server.host, target: prm.document });
  }
  return { routes, metadata };
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
