// Turns a schema-checked, interpolated document into the fully defaulted GatewayConfig
// (docs/architecture.md house style 4). Every default lives here and in the schema's descriptions;
// runtime code never sees an optional. Checks between fields are in check-config.ts.

import path from 'node:path';
import type { RawConfig, RawUpstream } from './config-schema.ts';
import { toPointer } from './config-error.ts';
import { durationMs, durationTooLong, type RawDuration } from './duration.ts';
import { normalizeApprovalsConfig } from '../approvals/approvals-config.ts';
import { normalizeAuditConfig } from '../audit/audit-config.ts';
import { normalizeIdentityConfig } from '../identity/identity-config.ts';
import type { GatewayConfig, UpstreamConfig, UpstreamLimits } from './types.ts';
import { normalizeConcurrency, normalizeLimits, type LimitsConfig } from './limits-config.ts';
import { normalizeShapingConfig } from '../result-shaping/shaping-config.ts';
import { normalizeToolSearchConfig } from '../tool-search/tool-search-config.ts';
import { normalizeServers } from '../servers/servers-config.ts';
import { normalizeOverlaysConfig } from '../overlays/overlay-config.ts';
import { normalizeUserAuthConfig } from '../user-auth/user-auth-config.ts';
import { normalizeUpstreamSession } from './upstream-session-config.ts';
import { credentialPointer, normalizeUpstreamCredentials, type CredentialIssue } from './upstream-credentials-config.ts';

export interface ConfigOverrides {
  /** From the command line; wins over the file. */
  host?: string;
  port?: number;
}

export interface NormalizeIssue {
  path: string;
  message: string;
  /** The value came from the command line, so no place in the file is to blame. */
  fromCommandLine?: true;
}

const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  path: '/mcp',
  separator: '__',
  maxNameLength: 64,
  listDeadline: '5s',
  listRetryInitialDelay: '1s',
  listRetryMaxDelay: '60s',
  listRetryAfterErrors: 3,
  idleTimeout: '1h',
  timeout: '30s',
  listTtl: '60s',
  initialDelay: '500ms',
  maxDelay: '30s',
  drainDelay: '0s',
  shutdownDeadline: '10s',
} as const;

export function normalizeConfig(
  raw: RawConfig,
  file: string,
  overrides: ConfigOverrides = {},
): { config: GatewayConfig; issues: NormalizeIssue[] } {
  const issues: NormalizeIssue[] = [];
  const ms = (value: RawDuration | undefined, fallback: string, at: (string | number)[]): number => {
    const result = durationMs(value ?? fallback);
    if (result !== undefined) return result;
    issues.push({ path: toPointer(at), message: durationTooLong(value ?? fallback) });
    return 0;
  };
  const absoluteFile = path.resolve(file);
  const baseDir = path.dirname(absoluteFile);
  const port = overrides.port ?? raw.listen?.port ?? DEFAULTS.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    issues.push({
      path: '/listen/port',
      message: `expected a port from 0 to 65535 on the command line, got ${port}`,
      fromCommandLine: true,
    });
  }
  const limits = normalizeLimits(raw.limits, ms);
  const upstreamLimits: UpstreamLimits = { maxAnswerBytes: limits.maxUpstreamAnswerBytes, maxJsonDepth: limits.maxJsonDepth };
  const upstreams = raw.upstreams.map((u, i) => {
    const credentialIssues: CredentialIssue[] = [];
    const upstream = normalizeUpstream(u, baseDir, (v, d, key) => ms(v, d, ['upstreams', i, ...key]), credentialIssues, upstreamLimits, limits);
    for (const c of credentialIssues) issues.push({ path: credentialPointer(i, c), message: c.message });
    return upstream;
  });
  const secret = raw.sessions?.secret;
  const shaping = normalizeShapingConfig(raw.resultShaping);
  const listenPath = raw.listen?.path ?? DEFAULTS.path;
  const overlays = normalizeOverlaysConfig(raw.overlays, absoluteFile);
  issues.push(...overlays.issues);
  const config: GatewayConfig = {
    file: absoluteFile,
    listen: {
      host: overrides.host ?? raw.listen?.host ?? DEFAULTS.host,
      port,
      path: listenPath,
    },
    separator: raw.separator ?? DEFAULTS.separator,
    maxNameLength: raw.maxNameLength ?? DEFAULTS.maxNameLength,
    allowedOrigins: raw.allowedOrigins ?? [],
    allowedHosts: (raw.allowedHosts ?? []).map((h) => h.toLowerCase()),
    ...(raw.admin === undefined ? {} : { admin: { host: raw.admin.host ?? '127.0.0.1', port: raw.admin.port ?? 9090 } }),
    limits,
    listDeadlineMs: ms(raw.listDeadline, DEFAULTS.listDeadline, ['listDeadline']),
    listRetry: {
      initialDelayMs: ms(raw.listRetry?.initialDelay, DEFAULTS.listRetryInitialDelay, ['listRetry', 'initialDelay']),
      maxDelayMs: ms(raw.listRetry?.maxDelay, DEFAULTS.listRetryMaxDelay, ['listRetry', 'maxDelay']),
      afterErrors: raw.listRetry?.afterErrors ?? DEFAULTS.listRetryAfterErrors,
    },
    sessions: {
      // Empty counts as unset, so `${GATEHOUSE_SESSION_SECRET:-}` makes the secret optional.
      secret: secret === undefined || secret === '' ? undefined : secret,
      idleTimeoutMs: ms(raw.sessions?.idleTimeout, DEFAULTS.idleTimeout, ['sessions', 'idleTimeout']),
    },
    identity: undefined,
    approvals: undefined,
    userAuth: undefined,
    // Filled just below; a failure there is an issue, and issues stop the boot.
    audit: undefined as unknown as GatewayConfig['audit'],
    policy: raw.policy === undefined
      ? undefined
      : { dir: path.resolve(baseDir, raw.policy.dir ?? 'policies'), defaultEffect: raw.policy.defaultEffect ?? 'deny', watch: raw.policy.watch ?? true },
    validation: { arguments: raw.validation?.arguments ?? true, outputs: raw.validation?.outputs ?? 'warn' },
    rateLimits: normalizeRateLimits(raw, issues),
    shutdown: {
      drainDelayMs: ms(raw.shutdown?.drainDelay, DEFAULTS.drainDelay, ['shutdown', 'drainDelay']),
      deadlineMs: ms(raw.shutdown?.deadline, DEFAULTS.shutdownDeadline, ['shutdown', 'deadline']),
    },
    metrics: { processMetrics: raw.metrics?.processMetrics ?? false },
    toolSearch: normalizeToolSearchConfig(raw.toolSearch),
    resultShaping: shaping.config,
    servers: normalizeServers(raw.servers, listenPath, upstreams.map((u) => u.name), absoluteFile, issues),
    overlays: overlays.config,
    upstreams,
  };
  for (const i of shaping.issues) issues.push({ path: `/resultShaping${i.path}`, message: i.message });
  const audit = normalizeAuditConfig(raw.audit, baseDir);
  if (audit.ok) config.audit = audit.value;
  else for (const i of audit.error) issues.push({ path: `/audit${i.path}`, message: i.message });
  if (raw.approvals !== undefined) {
    const approvals = normalizeApprovalsConfig(raw.approvals, baseDir);
    if (approvals.ok) config.approvals = approvals.value;
    else for (const i of approvals.error) issues.push({ path: `/approvals${i.path}`, message: i.message });
  }
  if (raw.userAuth !== undefined) config.userAuth = normalizeUserAuthConfig(raw.userAuth, issues);
  upstreams.forEach((u, i) => {
    if (u.kind === 'http' && u.userAuth !== undefined && raw.userAuth === undefined) {
      issues.push({ path: `/upstreams/${i}/auth`, message: `upstream "${u.name}" has auth type user, which needs the top-level \`userAuth\` section (publicUrl, keys)` });
    }
    if (u.kind === 'http' && u.userAuth !== undefined && raw.identity === undefined) {
      issues.push({ path: `/upstreams/${i}/auth`, message: `upstream "${u.name}" has auth type user, which needs \`identity\`: without it every caller is anonymous and all would share one token` });
    }
    if (u.kind === 'http' && (u.userAuth !== undefined || u.tokenExchange !== undefined) && u.route !== undefined) {
      issues.push({ path: `/upstreams/${i}/auth`, message: `upstream "${u.name}": auth types user and token_exchange are not supported on a routed upstream` });
    }
    if (u.kind === 'http' && u.tokenExchange !== undefined && !isJwtIdentity(raw.identity)) {
      issues.push({ path: `/upstreams/${i}/auth`, message: `upstream "${u.name}" has auth type token_exchange, which needs \`identity.jwt\`: only a caller's OAuth access token can be exchanged` });
    }
  });
  if (raw.identity !== undefined) {
    const identity = normalizeIdentityConfig(raw.identity, baseDir);
    if (identity.ok) config.identity = identity.value;
    else for (const i of identity.error) issues.push({ path: `/identity${i.path}`, message: i.message });
  }
  return { config, issues };
}

function normalizeRateLimits(raw: RawConfig, issues: NormalizeIssue[]): GatewayConfig['rateLimits'] {
  const r = raw.rateLimits;
  if (r?.store !== 'redis') return { store: 'memory' };
  if (!r.redisUrl) {
    issues.push({ path: '/rateLimits/redisUrl', message: 'expected a redis:// URL when store is redis' });
    return { store: 'memory' };
  }
  return { store: 'redis', redisUrl: r.redisUrl, prefix: r.prefix ?? 'gatehouse:rl:' };
}

function normalizeUpstream(
  u: RawUpstream,
  baseDir: string,
  ms: (value: RawDuration | undefined, fallback: string, key: string[]) => number,
  credentialIssues: CredentialIssue[],
  limits: UpstreamLimits,
  gatewayLimits: LimitsConfig,
): UpstreamConfig {
  const common = {
    name: u.name,
    prefix: u.prefix ?? u.name,
    timeoutMs: ms(u.timeout, DEFAULTS.timeout, ['timeout']),
    listTtlMs: ms(u.listTtl, DEFAULTS.listTtl, ['listTtl']),
    limits,
    concurrency: normalizeConcurrency(u, gatewayLimits),
  };
  // The schema guarantees exactly one of url, route and command.
  if (u.url !== undefined) {
    return { kind: 'http', ...common, url: u.url, session: normalizeUpstreamSession(u), ...normalizeUpstreamCredentials(u, baseDir, credentialIssues) };
  }
  if (u.route !== undefined) {
    // Object order is config order, except that integer-like keys ("10") come first (ECMA-262
    // OrdinaryOwnPropertyKeys); only an overlap with a wildcard pattern could notice.
    const targets = Object.entries(u.route.targets).map(([pattern, url]) => ({ pattern, url }));
    const fallback = u.route.default;
    return {
      kind: 'http',
      ...common,
      // One list source, so lists never depend on which target a call went to.
      url: fallback ?? targets[0]?.url ?? '',
      route: { by: u.route.by, targets, ...(fallback !== undefined ? { default: fallback } : {}) },
      session: normalizeUpstreamSession({}),
      ...normalizeUpstreamCredentials(u, baseDir, credentialIssues),
    };
  }
  return {
    kind: 'stdio',
    ...common,
    command: u.command ?? '',
    args: u.args ?? [],
    env: u.env ?? {},
    cwd: path.resolve(baseDir, u.cwd ?? '.'),
    restart: {
      initialDelayMs: ms(u.restart?.initialDelay, DEFAULTS.initialDelay, ['restart', 'initialDelay']),
      maxDelayMs: ms(u.restart?.maxDelay, DEFAULTS.maxDelay, ['restart', 'maxDelay']),
    },
  };
}

function isJwtIdentity(identity: unknown): boolean {
  return identity !== null && typeof identity === 'object' && 'jwt' in identity;
}
