// The `limits` section of the gateway config: what one request, one upstream answer, one caller
// and the whole gateway may hold, each bounded with a default (README, Limits, says what each
// one refuses; every one but pageSize is counted in gatehouse_limit_hits_total under its key).
// Shape only; limits-config.ts fills the defaults (LIMIT_DEFAULTS, stated here too).
import { defaultedDurationSchema, type RawDuration } from './duration.ts';
import { LIMIT_DEFAULTS } from './limits-config.ts';

export function positiveInt(description: string, fallback: number): Record<string, unknown> {
  return { description: `${description} Default ${fallback}.`, default: fallback, type: 'integer', minimum: 1 };
}

export const LIMITS_CONFIG_SCHEMA = {
  description: 'What one request or one upstream answer may cost, and list pagination. README, Limits, lists each limit and what happens when it is hit.',
  type: 'object',
  additionalProperties: false,
  properties: {
    maxBodyBytes: positiveInt('Largest request body accepted, in bytes.', 4_194_304),
    maxHeaderBytes: positiveInt('Largest total request header size, in bytes.', 16_384),
    maxHeaderCount: positiveInt('Most request headers accepted.', 100),
    bodyTimeout: defaultedDurationSchema('Longest wait for the rest of a request body once the gateway has begun to read it (408 after).', '30s', '30s'),
    maxJsonDepth: {
      description:
        'Deepest nesting of objects and arrays accepted in a request, an upstream answer or an upstream list item. At most 256, so that every accepted value can be recorded in the audit trail. Default 64.',
      default: 64,
      type: 'integer',
      minimum: 8,
      maximum: 256,
    },
    maxUpstreamAnswerBytes: positiveInt(
      'Largest answer accepted from an upstream: one line of a stdio upstream, one JSON body or SSE event of an HTTP one, in bytes.',
      67_108_864,
    ),
    pageSize: positiveInt("Items per page of the gateway's merged lists.", 500),
    catalogCacheBytes: positiveInt(
      'Budget for what the catalog keeps per caller (lists an upstream marked private, merged and filtered views, counted as JSON text); lists shared by every caller are not charged. Least recently used entries go first.',
      LIMIT_DEFAULTS.catalogCacheBytes,
    ),
    maxSessions: positiveInt('Most legacy (2025-11-25) sessions held at once; past it initialize and first use of a new session get 503.', LIMIT_DEFAULTS.maxSessions),
    maxSessionsPerPrincipal: positiveInt('Most legacy sessions one principal holds at once.', LIMIT_DEFAULTS.maxSessionsPerPrincipal),
    maxStreams: positiveInt('Most notification streams (subscriptions/listen and legacy GET) open at once; past it a new one gets 503.', LIMIT_DEFAULTS.maxStreams),
    maxStreamsPerPrincipal: positiveInt('Most notification streams one principal holds open at once.', LIMIT_DEFAULTS.maxStreamsPerPrincipal),
    streamMaxLifetime: defaultedDurationSchema(
      'Longest a notification stream stays open (and never past the expiry of the token that opened it); then it ends cleanly and the client opens a new one.',
      LIMIT_DEFAULTS.streamMaxLifetime,
      '1h',
    ),
    streamIdleTimeout: defaultedDurationSchema(
      'Longest a notification stream stays open with no message sent on it (keep-alive comments do not count); then it ends as at streamMaxLifetime.',
      LIMIT_DEFAULTS.streamIdleTimeout,
      '10m',
    ),
    maxConcurrentPerPrincipal: positiveInt(
      'Most calls one principal runs at once against one upstream (upstreams[].maxConcurrentPerPrincipal overrides it per upstream); more wait in the queue, up to as many again.',
      LIMIT_DEFAULTS.maxConcurrentPerPrincipal,
    ),
    maxQueuedCalls: positiveInt('Most calls waiting for a place at one upstream (see upstreams[].maxConcurrent); past it a call gets 503 at once.', LIMIT_DEFAULTS.maxQueuedCalls),
    queueTimeout: defaultedDurationSchema('Longest a call waits for a place at its upstream before it gets 503.', LIMIT_DEFAULTS.queueTimeout, '10s'),
    maxInflightAnswerBytes: positiveInt(
      'Memory budget, in bytes, for the upstream answers being read at once (HTTP bodies and events, stdio lines), across every call in flight; an answer that does not fit fails its call with 503.',
      LIMIT_DEFAULTS.maxInflightAnswerBytes,
    ),
    maxConnections: positiveInt(
      'Most client connections held open at once; a request on a connection past it gets 503 with Retry-After and the connection is closed. Past twice this, new connections are closed unanswered.',
      LIMIT_DEFAULTS.maxConnections,
    ),
    maxConcurrentRequests: positiveInt(
      'Most requests to the MCP endpoint being answered at once, whoever sends them (notification streams count under maxStreams instead); past it a request gets 503 with Retry-After at once, before identity is checked.',
      LIMIT_DEFAULTS.maxConcurrentRequests,
    ),
    maxConcurrentRequestsPerPrincipal: positiveInt('Most requests to the MCP endpoint one principal has being answered at once; past it its requests get 503 with Retry-After at once.', LIMIT_DEFAULTS.maxConcurrentRequestsPerPrincipal),
    inputTimeout: defaultedDurationSchema(
      "Longest a 2025-11-25 upstream's call waits for a 2026-07-28 client's retry after the gateway answered it input_required (the upstream asked for sampling, elicitation or roots); then the call is cancelled upstream and its requestState no longer opens. The upstream's own timeout still bounds the whole call.",
      LIMIT_DEFAULTS.inputTimeout,
      '2m',
    ),
    maxSuspendedCalls: positiveInt('Most upstream calls waiting for a 2026-07-28 client\'s input at once; past it the upstream\'s request is answered with an error at once.', LIMIT_DEFAULTS.maxSuspendedCalls),
    maxSuspendedCallsPerPrincipal: positiveInt('Most upstream calls of one principal waiting for its input at once.', LIMIT_DEFAULTS.maxSuspendedCallsPerPrincipal),
  },
};

/** The per-upstream keys of the same limits, for the upstream schema. */
export const UPSTREAM_CONCURRENCY_PROPERTIES = {
  maxConcurrent: positiveInt('Most calls this upstream runs at once, whoever calls; more wait in the queue (limits.maxQueuedCalls, limits.queueTimeout).', LIMIT_DEFAULTS.maxConcurrent),
  maxConcurrentPerPrincipal: {
    description: 'Most calls one principal runs at once against this upstream. Default: limits.maxConcurrentPerPrincipal.',
    type: 'integer',
    minimum: 1,
  },
};

/** The section after schema validation. */
export interface RawLimitsConfig {
  maxBodyBytes?: number;
  maxHeaderBytes?: number;
  maxHeaderCount?: number;
  bodyTimeout?: RawDuration;
  maxJsonDepth?: number;
  maxUpstreamAnswerBytes?: number;
  pageSize?: number;
  catalogCacheBytes?: number;
  maxSessions?: number;
  maxSessionsPerPrincipal?: number;
  maxStreams?: number;
  maxStreamsPerPrincipal?: number;
  streamMaxLifetime?: RawDuration;
  streamIdleTimeout?: RawDuration;
  maxConcurrentPerPrincipal?: number;
  maxQueuedCalls?: number;
  queueTimeout?: RawDuration;
  maxInflightAnswerBytes?: number;
  maxConnections?: number;
  maxConcurrentRequests?: number;
  maxConcurrentRequestsPerPrincipal?: number;
  inputTimeout?: RawDuration;
  maxSuspendedCalls?: number;
  maxSuspendedCallsPerPrincipal?: number;
}
