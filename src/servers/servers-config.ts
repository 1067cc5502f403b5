// `servers:` from the schema-checked document to the frozen ServerConfig list, and the checks
// that need the rest of the config: every upstream a server names exists, no two endpoints
// answer the same host and path, names are unique, `prefix: none` has one upstream to name,
// a server's own overlays (normalized as the top-level ones are) name only its upstreams.
import { toPointer } from '../config/config-error.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import { normalizeOverlaysConfig, type OverlaysConfig } from '../overlays/overlay-config.ts';
import type { RawSelection, RawServer } from './servers-schema.ts';

export interface ItemSelection {
  /** Globs; an item is offered when one matches (default ["*"]) ... */
  include: readonly string[];
  /** ... and none of these does. */
  exclude: readonly string[];
}

export interface ServerConfig {
  name: string;
  /** URL path of the server's endpoint. */
  path: string;
  /** Lower-cased; undefined: any Host. */
  host: string | undefined;
  /** Upstream names, in the server's order. */
  upstreams: readonly string[];
  select: Readonly<Record<ListKind, ItemSelection>>;
  /** undefined: the server's upstreams' own instructions, as the default endpoint gives them. */
  instructions: string | undefined;
  prefix: 'upstream' | 'none';
  /** The server's own overlays: each replaces, on this server, the gateway-wide overlay of the
   * same item (servers/server-view.ts); the other gateway-wide ones apply here too. */
  overlays: OverlaysConfig;
}

export interface ServerIssue {
  path: string;
  message: string;
}

const ALL: readonly string[] = Object.freeze(['*']);
const NONE: readonly string[] = Object.freeze([]);

/** Routes the HTTP app answers itself: a server there would never be reached. */
const RESERVED_PATHS = ['/healthz', '/readyz', '/metrics'];
const RESERVED_PREFIXES = ['/.well-known/', '/approvals'];

function selection(raw: RawSelection | undefined): ItemSelection {
  return { include: raw?.include ?? ALL, exclude: raw?.exclude ?? NONE };
}

/** `file` and `issues`: where the servers' overlays were written, and what is wrong in them. */
export function normalizeServers(raw: readonly RawServer[] | undefined, listenPath: string, upstreams: readonly string[], file = '', issues: ServerIssue[] = []): ServerConfig[] {
  const base = listenPath.endsWith('/') ? listenPath.slice(0, -1) : listenPath;
  return (raw ?? []).map((s, i) => ({
    name: s.name,
    path: s.path ?? `${base}/${s.name}`,
    host: s.host?.toLowerCase(),
    upstreams: s.upstreams ?? upstreams,
    select: { tools: selection(s.tools), prompts: selection(s.prompts), resources: selection(s.resources), resourceTemplates: selection(s.resourceTemplates) },
    instructions: s.instructions,
    prefix: s.prefix ?? 'upstream',
    overlays: ownOverlays(s, i, file, issues),
  }));
}

function ownOverlays(s: RawServer, i: number, file: string, issues: ServerIssue[]): OverlaysConfig {
  const made = normalizeOverlaysConfig(s.overlays, file, `/servers/${i}/overlays`);
  issues.push(...made.issues);
  return made.config;
}

export function checkServers(servers: readonly ServerConfig[], upstreams: readonly string[], listenPath: string): ServerIssue[] {
  const issues: ServerIssue[] = [];
  const known = new Set(upstreams);
  const names = new Map<string, number>();
  // host NUL path -> the server that answers there ('' host: every host). The default endpoint
  // answers its path on every host not given a server of its own there.
  const routes = new Map<string, string>();
  const defaultEndpoint = `the default endpoint (listen.path ${listenPath})`;
  servers.forEach((s, i) => {
    const at = (...key: (string | number)[]): string => toPointer(['servers', i, ...key]);
    const earlier = names.get(s.name);
    if (earlier !== undefined) issues.push({ path: at('name'), message: `duplicate server name "${s.name}" (already used by /servers/${earlier})` });
    else names.set(s.name, i);
    s.upstreams.forEach((u, j) => {
      if (!known.has(u)) issues.push({ path: at('upstreams', j), message: `no upstream is named "${u}"${upstreams.length ? ` (upstreams: ${upstreams.join(', ')})` : ''}` });
    });
    for (const o of [...s.overlays.tools, ...s.overlays.prompts]) {
      if (o.upstream !== undefined && !s.upstreams.includes(o.upstream)) {
        issues.push({ path: `${o.source.path}/upstream`, message: `server "${s.name}" does not draw from upstream "${o.upstream}" (its upstreams: ${s.upstreams.join(', ')})` });
      }
    }
    if (s.prefix === 'none' && s.upstreams.length !== 1) {
      issues.push({ path: at('prefix'), message: `prefix none needs exactly one upstream, so that names cannot collide; this server draws from ${s.upstreams.length}` });
    }
    const pathAt = at('path');
    if (RESERVED_PATHS.includes(s.path) || RESERVED_PREFIXES.some((p) => s.path.startsWith(p))) {
      issues.push({ path: pathAt, message: `path ${s.path} is one of the gateway's own routes (/healthz, /readyz, /metrics, /.well-known/, /approvals)` });
      return;
    }
    // A server without a host answers on every host, so it clashes with any other at its path.
    const clash =
      s.host === undefined
        ? (s.path === listenPath ? defaultEndpoint : [...routes].find(([k]) => k.endsWith(`\u0000${s.path}`))?.[1])
        : (routes.get(`${s.host}\u0000${s.path}`) ?? routes.get(`\u0000${s.path}`));
    if (clash !== undefined) issues.push({ path: pathAt, message: `path ${s.path}${s.host ? ` on host ${s.host}` : ''} is already served by ${clash}; give the server another path or host` });
    else routes.set(`${s.host ?? ''}\u0000${s.path}`, `server "${s.name}"`);
  });
  return issues;
}
