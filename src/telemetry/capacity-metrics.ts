// Gauges of what the gateway holds that grows with its callers, read at scrape time: the
// catalog's per-caller caches against their byte budget. What is refused when a budget or cap
// is hit is counted by `gatehouse_limit_hits_total` (metrics.ts).
import { Gauge, type Registry } from 'prom-client';
import { cumulative } from './cumulative-counter.ts';

export interface CapacitySources {
  /** Client connections open (limits.maxConnections). */
  connections?: () => number;
  /** Requests to the MCP endpoint being answered (limits.maxConcurrentRequests). */
  requests?: () => number;
  /** Bytes charged per catalog cache, and merges done since start. */
  catalog?: () => { merges: number; bytes: Readonly<Record<string, number>> };
  /** Upstream lists left out of merged lists until a retry answers. */
  failingLists?: () => readonly { upstream: string; kind: string }[];
  /** Legacy sessions held (limits.maxSessions). */
  sessions?: () => number;
  /** Notification streams open (limits.maxStreams). */
  streams?: () => number;
  /** Bytes of upstream answers held while they are read (limits.maxInflightAnswerBytes). */
  answerBytes?: () => number;
  /** Calls running and waiting per upstream (upstreams[].maxConcurrent, limits.maxQueuedCalls). */
  upstreamCalls?: () => readonly { upstream: string; running: number; queued: number }[];
}

type Report = <T>(metric: string, read: () => T) => T | undefined;

export function registerCapacityMetrics(registers: Registry[], sources: CapacitySources, report: Report): void {
  const { connections, requests, catalog, failingLists, sessions, streams, answerBytes, upstreamCalls } = sources;
  if (upstreamCalls) {
    const perUpstream = (name: string, help: string, pick: (u: { running: number; queued: number }) => number): void => {
      const g: Gauge<'upstream'> = new Gauge({
        name,
        help,
        labelNames: ['upstream'] as const,
        registers,
        collect: () => {
          for (const u of report(name, upstreamCalls) ?? []) g.set({ upstream: u.upstream }, pick(u));
        },
      });
    };
    perUpstream('gatehouse_upstream_calls_running', 'Calls running at each upstream, within upstreams[].maxConcurrent.', (u) => u.running);
    perUpstream('gatehouse_upstream_calls_queued', 'Calls waiting for a place at each upstream, within limits.maxQueuedCalls.', (u) => u.queued);
  }
  const gauge = (name: string, help: string, read: () => number): void => {
    const g: Gauge = new Gauge({ name, help, registers, collect: () => g.set(report(name, read) ?? Number.NaN) });
  };
  if (connections) gauge('gatehouse_connections', 'Client connections open, within limits.maxConnections.', connections);
  if (requests) gauge('gatehouse_requests_in_flight', 'Requests to the MCP endpoint being answered (notification streams apart), within limits.maxConcurrentRequests.', requests);
  if (sessions) gauge('gatehouse_sessions', 'Legacy (2025-11-25) sessions held, within limits.maxSessions.', sessions);
  if (answerBytes) gauge('gatehouse_upstream_answer_bytes', 'Bytes of upstream answers (HTTP and stdio) held while they are read, across every call in flight, within limits.maxInflightAnswerBytes.', answerBytes);
  if (streams) gauge('gatehouse_streams', 'Notification streams open (subscriptions/listen and legacy GET), within limits.maxStreams.', streams);
  if (failingLists) {
    const failing: Gauge<'upstream' | 'kind'> = new Gauge({
      name: 'gatehouse_upstream_list_failing',
      help: '1 for each upstream list that missed listDeadline and is left out of merged lists until a background retry answers.',
      labelNames: ['upstream', 'kind'] as const,
      registers,
      collect: () => {
        failing.reset();
        for (const f of report('upstream_list_failing', failingLists) ?? []) failing.set({ upstream: f.upstream, kind: f.kind }, 1);
      },
    });
  }
  if (catalog) {
    const bytes: Gauge<'cache'> = new Gauge({
      name: 'gatehouse_catalog_cache_bytes',
      help: 'Bytes (as JSON text) held in each per-caller catalog cache, within limits.catalogCacheBytes; lists shared by every caller are not counted.',
      labelNames: ['cache'] as const,
      registers,
      collect: () => {
        const stats = report('catalog_cache_bytes', catalog);
        for (const [cache, n] of Object.entries(stats?.bytes ?? {})) bytes.set({ cache }, n);
      },
    });
    cumulative(registers, 'gatehouse_catalog_merges_total', 'Merged lists built: one per change of the upstream lists a set of callers is served, not one per caller.', () => report('catalog_merges_total', catalog)?.merges);
  }
}
