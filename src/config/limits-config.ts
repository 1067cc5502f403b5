// The `limits` section after normalization: every key with its default filled in (the shape
// and the descriptions are in limits-schema.ts), and the per-upstream concurrency that
// upstreams[] may override. README, Limits, says what happens when each is hit.
import type { RawDuration } from './duration.ts';
import type { RawLimitsConfig } from './limits-schema.ts';

export const LIMIT_DEFAULTS = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxHeaderBytes: 16_384,
  maxHeaderCount: 100,
  bodyTimeout: '30s',
  maxJsonDepth: 64,
  maxUpstreamAnswerBytes: 64 * 1024 * 1024,
  pageSize: 500,
  catalogCacheBytes: 256 * 1024 * 1024,
  maxSessions: 50_000,
  maxSessionsPerPrincipal: 10_000,
  maxStreams: 10_000,
  maxStreamsPerPrincipal: 1_000,
  streamMaxLifetime: '1h',
  streamIdleTimeout: '10m',
  maxConcurrent: 64,
  maxConcurrentPerPrincipal: 16,
  maxQueuedCalls: 256,
  queueTimeout: '10s',
  maxInflightAnswerBytes: 256 * 1024 * 1024,
  maxConnections: 20_000,
  maxConcurrentRequests: 2_048,
  maxConcurrentRequestsPerPrincipal: 256,
  inputTimeout: '2m',
  maxSuspendedCalls: 1_000,
  maxSuspendedCallsPerPrincipal: 20,
} as const;

export interface LimitsConfig {
  maxBodyBytes: number;
  maxHeaderBytes: number;
  maxHeaderCount: number;
  /** How long the rest of a request body may take to arrive once its headers have. */
  bodyTimeoutMs: number;
  /** Deepest nesting of objects and arrays in a request, an upstream answer or list item. */
  maxJsonDepth: number;
  maxUpstreamAnswerBytes: number;
  /** Page size of the gateway's own merged-list pagination. */
  pageSize: number;
  /** Byte budget of the catalog's per-caller caches. */
  catalogCacheBytes: number;
  maxSessions: number;
  maxSessionsPerPrincipal: number;
  maxStreams: number;
  maxStreamsPerPrincipal: number;
  streamMaxLifetimeMs: number;
  streamIdleTimeoutMs: number;
  maxConcurrentPerPrincipal: number;
  maxQueuedCalls: number;
  queueTimeoutMs: number;
  maxInflightAnswerBytes: number;
  /** Client connections held open at once (http/connection-cap.ts). */
  maxConnections: number;
  /** /mcp requests being answered at once, overall and per principal (limits/in-flight-requests.ts). */
  maxConcurrentRequests: number;
  maxConcurrentRequestsPerPrincipal: number;
  /** How long a suspended upstream call waits for the 2026-07-28 client's retry. */
  inputTimeoutMs: number;
  maxSuspendedCalls: number;
  maxSuspendedCallsPerPrincipal: number;
}

/** How many calls an upstream runs at once (concurrency-gate.ts). */
export interface UpstreamConcurrency {
  maxConcurrent: number;
  maxConcurrentPerPrincipal: number;
}

type Ms = (value: RawDuration | undefined, fallback: string, at: string[]) => number;
type DurationKey = { [K in keyof RawLimitsConfig]-?: (typeof LIMIT_DEFAULTS)[K] extends string ? K : never }[keyof RawLimitsConfig];
type CountKey = Exclude<keyof RawLimitsConfig, DurationKey>;

export function normalizeLimits(raw: RawLimitsConfig | undefined, ms: Ms): LimitsConfig {
  // Each limit is its default unless the section sets it; durations become milliseconds.
  const count = (key: CountKey): number => raw?.[key] ?? LIMIT_DEFAULTS[key];
  const duration = (key: DurationKey): number => ms(raw?.[key], LIMIT_DEFAULTS[key], ['limits', key]);
  return {
    maxBodyBytes: count('maxBodyBytes'),
    maxHeaderBytes: count('maxHeaderBytes'),
    maxHeaderCount: count('maxHeaderCount'),
    bodyTimeoutMs: duration('bodyTimeout'),
    maxJsonDepth: count('maxJsonDepth'),
    maxUpstreamAnswerBytes: count('maxUpstreamAnswerBytes'),
    pageSize: count('pageSize'),
    catalogCacheBytes: count('catalogCacheBytes'),
    maxSessions: count('maxSessions'),
    maxSessionsPerPrincipal: count('maxSessionsPerPrincipal'),
    maxStreams: count('maxStreams'),
    maxStreamsPerPrincipal: count('maxStreamsPerPrincipal'),
    streamMaxLifetimeMs: duration('streamMaxLifetime'),
    streamIdleTimeoutMs: duration('streamIdleTimeout'),
    maxConcurrentPerPrincipal: count('maxConcurrentPerPrincipal'),
    maxQueuedCalls: count('maxQueuedCalls'),
    queueTimeoutMs: duration('queueTimeout'),
    maxInflightAnswerBytes: count('maxInflightAnswerBytes'),
    maxConnections: count('maxConnections'),
    maxConcurrentRequests: count('maxConcurrentRequests'),
    maxConcurrentRequestsPerPrincipal: count('maxConcurrentRequestsPerPrincipal'),
    inputTimeoutMs: duration('inputTimeout'),
    maxSuspendedCalls: count('maxSuspendedCalls'),
    maxSuspendedCallsPerPrincipal: count('maxSuspendedCallsPerPrincipal'),
  };
}

export function normalizeConcurrency(raw: { maxConcurrent?: number; maxConcurrentPerPrincipal?: number }, limits: LimitsConfig): UpstreamConcurrency {
  return { maxConcurrent: raw.maxConcurrent ?? LIMIT_DEFAULTS.maxConcurrent, maxConcurrentPerPrincipal: raw.maxConcurrentPerPrincipal ?? limits.maxConcurrentPerPrincipal };
}
