// The validated, fully defaulted, frozen configuration (design.md house style 4).
// Produced once at boot by load-config.ts; runtime code never checks for a missing optional.
import type { IdentityConfig } from '../identity/identity-config.ts';

export interface HttpUpstreamConfig {
  kind: 'http';
  name: string;
  /** Prefix for tool/prompt names; '' means none. Defaults to `name`. */
  prefix: string;
  /** The endpoint; for a routed upstream, the list source: `route.default`, else the first target. */
  url: string;
  /** Set when the upstream is a set of endpoints chosen per tools/call by an Mcp-Param-* value. */
  route?: HttpRoute;
  /** Static headers (after ${ENV} interpolation), sent to every target. Never override computed Mcp-* headers. */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** Cache lifetime for lists of upstreams that send no ttlMs (legacy era). */
  listTtlMs: number;
}

export interface HttpRoute {
  /** The x-mcp-header name whose `Mcp-Param-<by>` value picks the target (matched case-insensitively). */
  by: string;
  /** Glob pattern of the decoded value -> URL, in config order. */
  targets: readonly RouteTarget[];
  /** Where values no pattern matches go; unset means they are refused. */
  default?: string;
}

export interface RouteTarget {
  pattern: string;
  url: string;
}

export interface StdioUpstreamConfig {
  kind: 'stdio';
  name: string;
  prefix: string;
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  timeoutMs: number;
  listTtlMs: number;
  restart: { initialDelayMs: number; maxDelayMs: number };
}

export type UpstreamConfig = HttpUpstreamConfig | StdioUpstreamConfig;

export interface GatewayConfig {
  /** Absolute path of the file this came from, for messages. */
  file: string;
  listen: { host: string; port: number; path: string };
  separator: string;
  maxNameLength: number;
  /** Origins allowed besides same-host loopback ones; '*' allows any. */
  allowedOrigins: readonly string[];
  limits: {
    maxBodyBytes: number;
    maxHeaderBytes: number;
    maxHeaderCount: number;
    /** Page size of the gateway's own merged-list pagination. */
    pageSize: number;
  };
  /** How long a list fan-out waits for slow upstreams before answering without them. */
  listDeadlineMs: number;
  sessions: {
    /** 32-byte key (hex or base64) sealing legacy Mcp-Session-Id values; random per process when unset. */
    secret: string | undefined;
    idleTimeoutMs: number;
  };
  /** Unset: every caller is anonymous (local use); see README, Identity. */
  identity: IdentityConfig | undefined;
  /** Unset: no policy; every caller may see and call everything. */
  policy: { dir: string; defaultEffect: 'allow' | 'deny'; watch: boolean } | undefined;
  validation: { arguments: boolean; outputs: 'off' | 'warn' | 'block' };
  rateLimits: { store: 'memory' } | { store: 'redis'; redisUrl: string; prefix: string };
  upstreams: readonly UpstreamConfig[];
}
