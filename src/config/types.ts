// The validated, fully defaulted, frozen configuration (docs/architecture.md house style 4).
// Produced once at boot by load-config.ts; runtime code never checks for a missing optional.
import type { ApprovalsConfig } from '../approvals/approvals-config.ts';
import type { AuditConfig } from '../audit/audit-config.ts';
import type { IdentityConfig } from '../identity/identity-config.ts';
import type { LimitsConfig, UpstreamConcurrency } from './limits-config.ts';
import type { UpstreamSessionConfig } from './upstream-session-config.ts';
import type { ResultShapingConfig } from '../result-shaping/shaping-config.ts';
import type { ToolSearchConfig } from '../tool-search/tool-search-config.ts';
import type { ServerConfig } from '../servers/servers-config.ts';
import type { OverlaysConfig } from '../overlays/overlay-config.ts';
import type { TokenExchangeAuth, UserAuthConfig, UserUpstreamAuth } from '../user-auth/user-auth-config.ts';

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
  /** Headers whose value is read from a file, and read again when the file changes (secret rotation). */
  headerFiles: readonly HeaderFileConfig[];
  /** The gateway's own OAuth client for this upstream (client-credentials grant); unset: none. */
  auth: ClientCredentialsConfig | undefined;
  /** Per-user OAuth (`auth: { type: user }`): each caller's own token; unset: none. */
  userAuth?: UserUpstreamAuth;
  /** Token exchange (`auth: { type: token_exchange }`, RFC 8693) for the caller's token; unset: none. */
  tokenExchange?: TokenExchangeAuth;
  timeoutMs: number;
  /** Cache lifetime for lists of upstreams that send no ttlMs (legacy era). */
  listTtlMs: number;
  limits: UpstreamLimits;
  concurrency: UpstreamConcurrency;
  /** One upstream session for every client, or one per 2025-11-25 client session. */
  session: UpstreamSessionConfig;
}

/** What one upstream answer may weigh and nest, from the gateway's `limits`. */
export interface UpstreamLimits {
  /** One stdio line, one HTTP JSON body or one SSE event (characters of an event). */
  maxAnswerBytes: number;
  maxJsonDepth: number;
}

export interface HeaderFileConfig {
  /** Header name as configured. */
  header: string;
  /** Absolute path. */
  file: string;
  /** Written before the file's (trimmed) content, e.g. "Bearer ". */
  prefix: string;
}

/** OAuth 2.0 client-credentials grant (RFC 6749 section 4.4) against `tokenUrl`. */
export interface ClientCredentialsConfig {
  type: 'client_credentials';
  tokenUrl: string;
  clientId: string;
  /** The secret itself (from ${ENV}), or an absolute path to a file re-read when it changes. */
  clientSecret: { value: string } | { file: string };
  /** RFC 6749 section 2.3.1: HTTP Basic (the default) or form parameters. */
  clientAuth: 'client_secret_basic' | 'client_secret_post';
  /** Space-separated scopes (RFC 6749 section 3.3); undefined: none sent. */
  scope: string | undefined;
  /** RFC 8707 `resource`: the upstream's (or route target's) own URL, a fixed URI, or none. */
  resource: { kind: 'upstream-url' } | { kind: 'uri'; uri: string } | { kind: 'none' };
  /** Vendor `audience` parameter; undefined: none sent. */
  audience: string | undefined;
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
  limits: UpstreamLimits;
  concurrency: UpstreamConcurrency;
  /** Backoff between starts; the delay goes back to initialDelayMs once a child has stayed up for maxDelayMs. */
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
  /** Host header values (name or name:port) allowed besides loopback names; '*' allows any (http-guards.ts). */
  allowedHosts: readonly string[];
  /** The listener that alone serves /metrics, /readyz and /healthz, when set. */
  admin?: { host: string; port: number };
  limits: LimitsConfig;
  /** How long a list fan-out waits for slow upstreams before answering without them. */
  listDeadlineMs: number;
  /** Backoff of the background retries of an upstream list that missed listDeadline. */
  listRetry: { initialDelayMs: number; maxDelayMs: number; afterErrors: number };
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
  /** Unset: only the calling-user channel, on one replica (see docs/approvals.md). */
  approvals: ApprovalsConfig | undefined;
  /** Needed by upstreams with `auth: { type: user }`; unset when none has one. */
  userAuth: UserAuthConfig | undefined;
  /** On by default: JSON Lines beside the config file (see docs/audit.md). */
  audit: AuditConfig;
  /** SIGTERM: keep serving (readyz 503) for drainDelayMs, then give requests deadlineMs to finish. */
  shutdown: { drainDelayMs: number; deadlineMs: number };
  /** GET /metrics: whether the Node.js process metrics are served too. */
  metrics: { processMetrics: boolean };
  /** Off by default: tools/list answers with search tools (README, Context budget). */
  toolSearch: ToolSearchConfig;
  /** Off (enabled false) unless the section is present (README, Context budget). */
  resultShaping: ResultShapingConfig;
  /** Virtual servers besides the default endpoint; empty: only the default one. */
  servers: readonly ServerConfig[];
  /** Gateway-wide tool and prompt overlays; none unless the section is present (README, Virtual servers and overlays). */
  overlays: OverlaysConfig;
  upstreams: readonly UpstreamConfig[];
}
