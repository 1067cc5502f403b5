// JSON Schema (2020-12) of the user-facing gateway YAML. It is published as
// schema/gatehouse.schema.json for editors (`# yaml-language-server: $schema=...`); a test
// keeps that file equal to this const. Shape only: the checks a schema cannot say
// (unique names and prefixes, secret length, URL scheme after ${ENV} interpolation) are in
// check-config.ts.
//
// `errorMessage` is a non-standard annotation (VS Code's JSON service shows it, and
// schema-issues.ts uses it): when present, it replaces the generic message for every
// failing keyword of the schema object it sits in.

import { APPROVALS_CONFIG_SCHEMA } from '../approvals/approvals-config-schema.ts';
import { AUDIT_CONFIG_SCHEMA } from '../audit/audit-config-schema.ts';
import { IDENTITY_CONFIG_SCHEMA } from '../identity/identity-config.ts';
import { durationSchema, type RawDuration } from './duration.ts';
import { RESULT_SHAPING_CONFIG_SCHEMA, type RawResultShapingConfig } from '../result-shaping/shaping-config.ts';
import { TOOL_SEARCH_CONFIG_SCHEMA, type RawToolSearchConfig } from '../tool-search/tool-search-config.ts';
import { HTTP_URL_SCHEMA } from './http-url-schema.ts';
import { SERVERS_CONFIG_SCHEMA, type RawServer } from '../servers/servers-schema.ts';
import { OVERLAYS_CONFIG_SCHEMA, type RawOverlaysConfig } from '../overlays/overlay-config.ts';
import { USER_AUTH_CONFIG_SCHEMA, type RawUserAuthConfig } from '../user-auth/user-auth-schema.ts';
import { LIMITS_CONFIG_SCHEMA, positiveInt, UPSTREAM_CONCURRENCY_PROPERTIES, type RawLimitsConfig } from './limits-schema.ts';
import { ADMIN_LISTENER_SCHEMA, ALLOWED_HOSTS_SCHEMA, listenerAddressProperties, METRICS_CONFIG_SCHEMA, SHUTDOWN_CONFIG_SCHEMA } from './operations-schema.ts';
import { POLICY_CONFIG_SCHEMA, RATE_LIMITS_CONFIG_SCHEMA, VALIDATION_CONFIG_SCHEMA, type RawPolicyConfig, type RawRateLimitsConfig, type RawValidationConfig } from './enforcement-schema.ts';
import { HEADER_NAME_PATTERN, UPSTREAM_AUTH_SCHEMA, UPSTREAM_HEADERS_SCHEMA, type RawHeaderValue, type RawUpstreamAuth } from './upstream-auth-schema.ts';
import { UPSTREAM_SESSION_PROPERTIES, type RawUpstreamSession } from './upstream-session-config.ts';

export const UPSTREAM_KIND_MESSAGE =
  'upstream must have exactly one of `url` (HTTP), `route` (routed HTTP) or `command` (stdio)';

const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]*$';

/** What a process can be given: the OS takes command, arguments and environment as C strings. */
const NO_NUL = {
  allOf: [{ pattern: '^[^\\u0000]*$', errorMessage: 'expected text without NUL characters (a process cannot be given them)' }],
};

function duration(description: string, fallback: string): Record<string, unknown> {
  return { description: `${description} Default ${fallback}.`, default: fallback, $ref: '#/$defs/duration' };
}

// Keys of the other transport, rejected by name so the message says why.
function onlyFor(kind: string, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    keys.map((key) => [
      key,
      {
        description: `Not allowed here: applies only to ${kind} upstreams.`,
        not: {},
        errorMessage: `"${key}" applies only to ${kind} upstreams`,
      },
    ]),
  );
}

export const CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Gatehouse gateway config',
  description:
    'Gatehouse: one MCP endpoint in front of many upstream MCP servers. String values may use ${VAR}, ${VAR:-default}; $${ writes a literal ${.',
  type: 'object',
  additionalProperties: false,
  required: ['upstreams'],
  properties: {
    listen: {
      description: 'Where the gateway serves its MCP endpoint.',
      type: 'object',
      additionalProperties: false,
      properties: {
        ...listenerAddressProperties(8080),
        path: {
          description: 'URL path of the MCP endpoint. Default /mcp.',
          default: '/mcp',
          type: 'string',
          pattern: '^/',
          errorMessage: 'expected a path starting with "/"',
        },
      },
    },
    separator: {
      description:
        'Between an upstream prefix and a tool or prompt name (`weather__forecast`). Characters MCP allows in tool names. Default "__".',
      default: '__',
      type: 'string',
      minLength: 1,
      pattern: '^[A-Za-z0-9_.-]+$',
      errorMessage: 'expected a non-empty string of letters, digits, "_", "-" or "."',
    },
    maxNameLength: positiveInt('Longest prefixed name the gateway exposes.', 64),
    allowedHosts: ALLOWED_HOSTS_SCHEMA,
    admin: ADMIN_LISTENER_SCHEMA,
    allowedOrigins: {
      description:
        'Origins (scheme://host[:port]) allowed besides same-host loopback ones; "*" allows any. Default [].',
      default: [],
      type: 'array',
      uniqueItems: true,
      items: {
        description: 'An origin such as https://app.example.com, or "*".',
        type: 'string',
        pattern: '^(\\*|[A-Za-z][A-Za-z0-9+.-]*://[^/\\s]+)$',
        errorMessage: 'expected an origin like "https://app.example.com" (no path) or "*"',
      },
    },
    limits: LIMITS_CONFIG_SCHEMA,
    listDeadline: duration('How long a list fan-out waits for slow upstreams before answering without them.', '5s'),
    listRetry: {
      description: 'An upstream list that missed listDeadline, or failed afterErrors times in a row, is left out of merged lists, without waiting, until a background retry answers.',
      type: 'object',
      additionalProperties: false,
      properties: {
        initialDelay: duration('Delay before the first retry; doubles per failed retry.', '1s'),
        maxDelay: duration('Longest delay between retries.', '60s'),
        afterErrors: { ...positiveInt('Quick failures in a row (errors, not missed deadlines) after which a list is left out and retried in the background.', 3), maximum: 1000 },
      },
    },
    sessions: {
      description: 'Legacy-era (2025-11-25) sessions, sealed inside Mcp-Session-Id.',
      type: 'object',
      additionalProperties: false,
      properties: {
        secret: {
          description:
            'A 32-byte key as 64 hex characters or base64 (`openssl rand -hex 32`). Unset or empty: random per process, so sessions do not survive restarts or span replicas.',
          type: 'string',
        },
        idleTimeout: duration('A session unused this long expires.', '1h'),
      },
    },
    identity: IDENTITY_CONFIG_SCHEMA,
    policy: POLICY_CONFIG_SCHEMA,
    validation: VALIDATION_CONFIG_SCHEMA,
    rateLimits: RATE_LIMITS_CONFIG_SCHEMA,
    approvals: APPROVALS_CONFIG_SCHEMA,
    userAuth: USER_AUTH_CONFIG_SCHEMA,
    audit: AUDIT_CONFIG_SCHEMA,
    shutdown: SHUTDOWN_CONFIG_SCHEMA,
    metrics: METRICS_CONFIG_SCHEMA,
    toolSearch: TOOL_SEARCH_CONFIG_SCHEMA,
    resultShaping: RESULT_SHAPING_CONFIG_SCHEMA,
    servers: SERVERS_CONFIG_SCHEMA,
    overlays: OVERLAYS_CONFIG_SCHEMA,
    upstreams: {
      description: 'The MCP servers behind the gateway.',
      type: 'array',
      items: { $ref: '#/$defs/upstream' },
    },
  },
  $defs: {
    duration: {
      description: 'A duration: "500ms", "30s", "5m", "1h", or an integer of milliseconds.',
      ...durationSchema('30s'),
    },
    upstream: {
      description: 'One upstream MCP server: Streamable HTTP (`url`), a routed set of them (`route`) or stdio (`command`).',
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: {
          description: 'Unique name; also the default prefix.',
          type: 'string',
          pattern: NAME_PATTERN,
          errorMessage: 'expected a name of letters, digits, "_" and "-" that starts with a letter or digit',
        },
        prefix: {
          description: 'Prefix for this upstream\'s names instead of `name`; "" for none.',
          type: 'string',
          pattern: '^([A-Za-z0-9][A-Za-z0-9_-]*)?$',
          errorMessage: 'expected "" or a prefix of letters, digits, "_" and "-" that starts with a letter or digit',
        },
        url: { description: 'Streamable HTTP endpoint of the upstream (http or https).', ...HTTP_URL_SCHEMA },
        route: {
          description:
            'Instead of `url`: a set of Streamable HTTP endpoints, one chosen per tools/call by the value of an Mcp-Param-* header. Lists and every other method go to `default`, or to the first target when there is none.',
          type: 'object',
          additionalProperties: false,
          required: ['by', 'targets'],
          properties: {
            by: {
              description: 'The x-mcp-header name whose Mcp-Param-<by> value picks the target (e.g. Region); matched case-insensitively.',
              type: 'string',
              pattern: HEADER_NAME_PATTERN,
              errorMessage: 'expected an x-mcp-header name (RFC 9110 token, e.g. "Region")',
            },
            targets: {
              description:
                'Glob pattern of the decoded value -> endpoint URL, tried in order. `*` matches any run of characters, `?` one character; the rest is literal and case-sensitive.',
              type: 'object',
              minProperties: 1,
              propertyNames: { minLength: 1, errorMessage: 'expected a non-empty glob pattern' },
              additionalProperties: { description: 'Streamable HTTP endpoint for values matching the pattern (http or https).', ...HTTP_URL_SCHEMA },
            },
            default: {
              description: 'Endpoint for values no pattern matches, and for calls without the header. Unset: such values are refused.',
              ...HTTP_URL_SCHEMA,
            },
          },
        },
        headers: UPSTREAM_HEADERS_SCHEMA,
        auth: UPSTREAM_AUTH_SCHEMA,
        timeout: duration('Longest wait for one upstream request.', '30s'),
        listTtl: duration('Cache lifetime of lists from upstreams that send no ttlMs.', '60s'),
        ...UPSTREAM_CONCURRENCY_PROPERTIES,
        ...UPSTREAM_SESSION_PROPERTIES,
        command: { description: 'Program to run as a stdio upstream.', type: 'string', minLength: 1, ...NO_NUL },
        args: {
          description: 'Arguments of `command`. Default []. stdio only.',
          type: 'array',
          items: { description: 'One argument.', type: 'string', ...NO_NUL },
        },
        env: {
          description: 'Environment variables for `command`. Default {}. stdio only.',
          type: 'object',
          propertyNames: {
            pattern: '^[^=\\u0000]+$',
            errorMessage: 'expected an environment variable name (no "=")',
          },
          additionalProperties: { description: 'Variable value.', type: 'string', ...NO_NUL },
        },
        cwd: {
          description: "Working directory of `command`, relative to the config file's directory. Default: that directory. stdio only.",
          type: 'string',
          minLength: 1,
        },
        restart: {
          description: 'Backoff between restarts of a stdio upstream that exits.',
          type: 'object',
          additionalProperties: false,
          properties: {
            initialDelay: duration('First delay; doubles per consecutive failure.', '500ms'),
            maxDelay: duration('Longest delay.', '30s'),
          },
        },
      },
      allOf: [
        {
          description: 'Exactly one transport.',
          oneOf: [{ required: ['url'] }, { required: ['route'] }, { required: ['command'] }],
          errorMessage: UPSTREAM_KIND_MESSAGE,
        },
      ],
      dependentSchemas: {
        url: { properties: onlyFor('stdio', ['args', 'env', 'cwd', 'restart']) },
        route: { properties: { ...onlyFor('stdio', ['args', 'env', 'cwd', 'restart']), ...onlyFor('single-URL HTTP', ['session', 'maxClientSessions']) } },
        command: { properties: onlyFor('HTTP', ['headers', 'auth', 'session', 'maxClientSessions']) },
      },
    },
  },
};

/** The document after schema validation: what CONFIG_SCHEMA guarantees, in TypeScript. */
export interface RawConfig {
  listen?: { host?: string; port?: number; path?: string };
  separator?: string;
  maxNameLength?: number;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  admin?: { host?: string; port?: number };
  limits?: RawLimitsConfig;
  listDeadline?: RawDuration;
  listRetry?: { initialDelay?: RawDuration; maxDelay?: RawDuration; afterErrors?: number };
  sessions?: { secret?: string; idleTimeout?: RawDuration };
  identity?: unknown;
  policy?: RawPolicyConfig;
  validation?: RawValidationConfig;
  rateLimits?: RawRateLimitsConfig;
  approvals?: unknown;
  userAuth?: RawUserAuthConfig;
  audit?: unknown;
  shutdown?: { drainDelay?: RawDuration; deadline?: RawDuration };
  metrics?: { processMetrics?: boolean };
  toolSearch?: RawToolSearchConfig;
  resultShaping?: RawResultShapingConfig;
  servers?: RawServer[];
  overlays?: RawOverlaysConfig;
  upstreams: RawUpstream[];
}

export interface RawUpstream extends RawUpstreamSession {
  name: string;
  prefix?: string;
  url?: string;
  route?: { by: string; targets: Record<string, string>; default?: string };
  headers?: Record<string, RawHeaderValue>;
  auth?: RawUpstreamAuth;
  timeout?: RawDuration;
  listTtl?: RawDuration;
  maxConcurrent?: number;
  maxConcurrentPerPrincipal?: number;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  restart?: { initialDelay?: RawDuration; maxDelay?: RawDuration };
}
