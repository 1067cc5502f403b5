// Prometheus metrics for `GET /metrics`. prom-client rather than the OpenTelemetry metrics SDK
// plus its Prometheus exporter: one small package that writes the Prometheus text format
// itself, with synchronous per-request recording and pull-time callbacks for gauges, where
// the OpenTelemetry route needs the metrics SDK, a reader and an exporter that pins its own
// copy of the core packages. Each `createMetrics` has its own registry (never prom-client's
// global one), so gateways built in one process do not mix their numbers.
// Naming follows Prometheus conventions: `gatehouse_` prefix, base units in the name
// (`_seconds`), `_total` on counters. Every label is bounded (label-guard.ts).
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from './logger.ts';
import { OTHER_LABEL, createLabelGuard, type LabelGuard } from './label-guard.ts';
import type { RequestOutcome } from './request-outcome.ts';
import { registerCapacityMetrics, type CapacitySources } from './capacity-metrics.ts';
import { cumulative } from './cumulative-counter.ts';
import { LIMIT_NAMES, type LimitName } from './limit-names.ts';
import { SeriesCounter, SeriesHistogram, type CounterSeries, type HistogramSeries } from './labelled-series.ts';

/** Methods of both protocol eras (MCP 2026-07-28, basic/index) keep their own `method` label value;
 * anything else a client sends is counted as "other". */
export const MCP_METHODS: readonly string[] = [
  'initialize', 'ping', 'server/discover', 'subscriptions/listen',
  'tools/list', 'tools/call', 'prompts/list', 'prompts/get',
  'resources/list', 'resources/read', 'resources/templates/list', 'resources/subscribe', 'resources/unsubscribe',
  'completion/complete', 'logging/setLevel',
  'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'tasks/update',
  'notifications/initialized', 'notifications/cancelled', 'notifications/progress',
  'notifications/roots/list_changed',
];

/** Whole request as the client sees it: from sub-millisecond local answers to long tool calls. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** The gateway's own share of a request: expected well under a millisecond. */
export const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export const DEFAULT_MAX_LABEL_VALUES = 200;

export interface AuditSinkStats {
  /** Age of the oldest record not yet durable, in seconds; 0 when caught up. */
  lagSeconds: number;
  /** Records dropped since start (fail-open mode), cumulative. */
  droppedTotal: number;
  /** Records made durable since start, cumulative. */
  writtenTotal?: number;
  /** Durability barriers (fdatasyncs) since start, cumulative: writtenTotal ÷ syncsTotal is
   * how many records share one (group commit). */
  syncsTotal?: number;
  /** Writes that waited for records of requests under way (audit.groupCommitWait), cumulative. */
  commitWaitsTotal?: number;
  /** Audit file rotations, and rotated files deleted by the rotation budget, cumulative. */
  rotationsTotal?: number;
  filesDeletedTotal?: number;
  /** Age of the oldest record still on disk, in seconds: how much history the budget keeps. */
  retainedSeconds?: number;
  /** Records with a string cut to audit.maxStringBytes, cumulative. */
  cutTotal?: number;
  /** Records refused (fail-closed mode), and failed writes and fsyncs, cumulative. */
  rejectedTotal?: number;
  writeErrorsTotal?: number;
}

export interface MetricsOptions {
  /** Upstream name -> currently reachable. Read at scrape time. */
  upstreamStatus?: () => Readonly<Record<string, boolean>>;
  /** Approvals waiting for a human. Read at scrape time. */
  pendingApprovals?: () => number;
  /** Audit sink state. Read at scrape time. */
  auditStats?: () => AuditSinkStats;
  /** Distinct values admitted per label (tool, upstream, rule, cache kind) before "other". */
  maxLabelValues?: number;
  /** When given, a tool not exposed right now is labelled "other" whatever the guard says. */
  isExposedTool?: (name: string) => boolean;
  /** Node.js process metrics (`process_*`, `nodejs_*`) in the same registry. */
  processMetrics?: boolean;
  /** What the gateway holds that grows with its callers (catalog caches, ...). Read at scrape time. */
  capacity?: CapacitySources;
  /** Where a failing scrape-time callback is reported. */
  logger?: Logger;
}

export interface RequestSample {
  method: string;
  /** The upstream that served it; omit for local or fanned-out methods. */
  upstream?: string;
  /** Exposed (prefixed) tool name, for tools/call. */
  tool?: string;
  /** The virtual server it came to; omitted on the default endpoint (no `server` label). */
  server?: string;
  outcome: RequestOutcome;
  /** Whole request, arrival to response. */
  durationMs: number;
  /** Wall time spent waiting on upstreams (for a fan-out, the slowest); 0 or omitted if none. */
  upstreamMs?: number;
}

export interface UpstreamSample {
  upstream: string;
  method: string;
  durationMs: number;
}

/** How a config reload ended (README, Reloading the configuration). */
export const CONFIG_RELOAD_RESULTS = ['applied', 'unchanged', 'invalid', 'refused', 'failed'] as const;
export type ConfigReloadResult = (typeof CONFIG_RELOAD_RESULTS)[number];

export interface Metrics {
  recordRequest(sample: RequestSample): void;
  recordUpstreamCall(sample: UpstreamSample): void;
  recordCacheLookup(kind: string, hit: boolean): void;
  recordPolicyDenial(ruleId: string): void;
  recordRateLimited(ruleId: string): void;
  /** A request refused before it became a call, by error kind and HTTP status. */
  recordRefusal(reason: string, status: number): void;
  /** A request, answer or list item refused (or cut) by one of the configured limits. */
  recordLimitHit(limit: LimitName): void;
  /** A config reload (SIGHUP or the file changed), by how it ended. */
  recordConfigReload(result: ConfigReloadResult): void;
  /** The Prometheus text exposition, for `GET /metrics`. */
  render(): Promise<{ contentType: string; body: string }>;
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const max = opts.maxLabelValues ?? DEFAULT_MAX_LABEL_VALUES;
  const methodLabel = createLabelGuard({ max: 0, allowed: MCP_METHODS });
  const upstreamLabel = createLabelGuard({ max });
  const ruleLabel = createLabelGuard({ max });
  const kindLabel = createLabelGuard({ max });
  const toolGuard = createLabelGuard({ max });
  const isExposed = opts.isExposedTool;
  const toolLabel: LabelGuard = isExposed ? (name) => (name === '' || isExposed(name) ? toolGuard(name) : OTHER_LABEL) : toolGuard;

  // Labels: method, upstream, tool, outcome and (on a virtual server) server.
  const requests = new SeriesCounter({
    name: 'gatehouse_requests_total',
    help: 'MCP requests handled, by method, upstream, exposed tool name, outcome and (on a virtual server) server.',
    registers,
  });
  const duration = new SeriesHistogram({ name: 'gatehouse_request_duration_seconds', help: 'Whole request time, from arrival to response, by method.', buckets: DURATION_BUCKETS, registers });
  const overhead = new SeriesHistogram({
    name: 'gatehouse_request_overhead_seconds',
    help: 'Gateway overhead per request: whole request time minus time spent waiting on upstreams.',
    buckets: OVERHEAD_BUCKETS,
    registers,
  });
  // Labels: upstream, method.
  const upstreamDuration = new SeriesHistogram({
    name: 'gatehouse_upstream_request_duration_seconds',
    help: 'Time from sending a request upstream to its response, by upstream and method.',
    buckets: DURATION_BUCKETS,
    registers,
  });
  const cacheHits = new Counter({ name: 'gatehouse_cache_hits_total', help: 'Cache lookups answered from the cache, by cache kind.', labelNames: ['kind'] as const, registers });
  const cacheMisses = new Counter({ name: 'gatehouse_cache_misses_total', help: 'Cache lookups that went upstream, by cache kind.', labelNames: ['kind'] as const, registers });
  const denials = new Counter({ name: 'gatehouse_policy_denials_total', help: 'Requests denied by policy, by rule id.', labelNames: ['rule'] as const, registers });
  const rateLimited = new Counter({ name: 'gatehouse_rate_limited_total', help: 'Requests refused by a rate limit, by rule id.', labelNames: ['rule'] as const, registers });
  // The reason is a GatewayError kind and the status one the error map gives: both bounded sets.
  const refusals = new SeriesCounter({ name: 'gatehouse_refusals_total', help: 'Requests refused before they became calls (Origin, limits, identity, parse, session, version, method), by reason and HTTP status.', registers });
  const limitHits = new SeriesCounter({
    name: 'gatehouse_limit_hits_total',
    help: 'Requests, upstream answers and list items refused or cut by a configured limit, by limit (its key under `limits`).',
    registers,
  });
  // The series of the per-request metrics, by their label values (labelled-series.ts says
  // why they are not prom-client's). The label guards bound the values, so these maps hold
  // no more series than prom-client itself would.
  const requestChildren = new Map<string, CounterSeries>();
  const methodChildren = new Map<string, { duration: HistogramSeries; overhead: HistogramSeries }>();
  const upstreamChildren = new Map<string, HistogramSeries>();
  // Refusals and limit hits count shed load, so they too are series looked up once: a refusal
  // under overload must cost as little as possible. Every limit reads 0 from the start, so a
  // rate() over it needs no first hit.
  const refusalChildren = new Map<string, CounterSeries>();
  const limitChildren = new Map<string, CounterSeries>(LIMIT_NAMES.map((limit) => [limit, limitHits.series({ limit })]));
  const reloads = new Counter({ name: 'gatehouse_config_reloads_total', help: 'Config reloads (SIGHUP or the config file changed), by result: applied, unchanged, invalid, refused (a restart-only field changed), failed.', labelNames: ['result'] as const, registers });
  for (const result of CONFIG_RELOAD_RESULTS) reloads.inc({ result }, 0);

  const report = failureReporter(opts.logger);
  const { upstreamStatus, pendingApprovals, auditStats } = opts;
  if (upstreamStatus) {
    const up: Gauge<'upstream'> = new Gauge({
      name: 'gatehouse_upstream_up',
      help: '1 if the upstream answered its last probe or request, else 0.',
      labelNames: ['upstream'] as const,
      registers,
      collect: () => {
        up.reset();
        const status = report('upstream_up', upstreamStatus);
        for (const [name, isUp] of Object.entries(status ?? {})) up.set({ upstream: upstreamLabel(name) }, isUp ? 1 : 0);
      },
    });
  }
  // A failing source reads as NaN ("unknown"), not as a reassuring 0.
  if (pendingApprovals) {
    const pending: Gauge = new Gauge({
      name: 'gatehouse_approvals_pending',
      help: 'Approval requests waiting for a decision.',
      registers,
      collect: () => pending.set(report('approvals_pending', pendingApprovals) ?? Number.NaN),
    });
  }
  if (auditStats) {
    const lag: Gauge = new Gauge({
      name: 'gatehouse_audit_sink_lag_seconds',
      help: 'Age of the oldest audit record not yet durable; 0 when the sink is caught up.',
      registers,
      collect: () => lag.set(report('audit_sink_lag_seconds', auditStats)?.lagSeconds ?? Number.NaN),
    });
    cumulative(registers, 'gatehouse_audit_dropped_total', 'Audit records dropped because the sink could not keep up (fail-open mode).', () => report('audit_dropped_total', auditStats)?.droppedTotal);
    cumulative(registers, 'gatehouse_audit_records_written_total', 'Audit records written and made durable.', () => report('audit_records_written_total', auditStats)?.writtenTotal);
    cumulative(registers, 'gatehouse_audit_rotations_total', 'Audit file rotations (each new file opens with an audit_rotated event).', () => report('audit_rotations_total', auditStats)?.rotationsTotal);
    cumulative(registers, 'gatehouse_audit_strings_cut_total', 'Audit records in which a string over audit.maxStringBytes was cut (a huge id, name or header value).', () => report('audit_strings_cut_total', auditStats)?.cutTotal);
    cumulative(registers, 'gatehouse_audit_files_deleted_total', 'Rotated audit files deleted by the rotation budget (audit.rotate.maxFiles).', () => report('audit_files_deleted_total', auditStats)?.filesDeletedTotal);
    const retained: Gauge = new Gauge({
      name: 'gatehouse_audit_retained_seconds',
      help: 'Age of the oldest audit record still on disk: how far back the kept history reaches. A sudden fall means rotation is deleting recent history (a flood of records).',
      registers,
      collect: () => retained.set(report('audit_retained_seconds', auditStats)?.retainedSeconds ?? Number.NaN),
    });
    cumulative(registers, 'gatehouse_audit_rejected_total', 'Audit records refused because the sink could not write them (fail-closed mode; their calls got an error).', () => report('audit_rejected_total', auditStats)?.rejectedTotal);
    cumulative(registers, 'gatehouse_audit_write_errors_total', 'Failed audit writes and fsyncs (and failed retries while the disk stays broken).', () => report('audit_write_errors_total', auditStats)?.writeErrorsTotal);
    cumulative(registers, 'gatehouse_audit_syncs_total', 'Durability barriers (fdatasync) spent on audit records; records written ÷ this = records per sync (group commit).', () => report('audit_syncs_total', auditStats)?.syncsTotal);
    cumulative(registers, 'gatehouse_audit_commit_waits_total', 'Audit writes that waited (up to audit.groupCommitWait) for the records of requests under way; ÷ gatehouse_audit_syncs_total is the share of syncs that waited.', () => report('audit_commit_waits_total', auditStats)?.commitWaitsTotal);
  }
  if (opts.capacity) registerCapacityMetrics(registers, opts.capacity, report);
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });

  return {
    recordRequest(s) {
      const method = methodLabel(s.method);
      const upstream = upstreamLabel(s.upstream ?? '');
      const tool = toolLabel(s.tool ?? '');
      // Server names come from the config, so they are bounded without a guard; the default
      // endpoint's series have no `server` label at all.
      const server = s.server;
      const key = `${method}\u0000${upstream}\u0000${tool}\u0000${s.outcome}${server === undefined ? '' : `\u0000${server}`}`;
      let count = requestChildren.get(key);
      if (count === undefined) requestChildren.set(key, (count = requests.series(server === undefined ? { method, upstream, tool, outcome: s.outcome } : { method, upstream, tool, outcome: s.outcome, server })));
      count.inc();
      let times = methodChildren.get(method);
      if (times === undefined) methodChildren.set(method, (times = { duration: duration.series({ method }), overhead: overhead.series({ method }) }));
      const total = s.durationMs / 1000;
      times.duration.observe(total);
      times.overhead.observe(Math.max(0, total - (s.upstreamMs ?? 0) / 1000));
    },
    recordUpstreamCall(s) {
      const upstream = upstreamLabel(s.upstream);
      const method = methodLabel(s.method);
      const key = `${upstream}\u0000${method}`;
      let child = upstreamChildren.get(key);
      if (child === undefined) upstreamChildren.set(key, (child = upstreamDuration.series({ upstream, method })));
      child.observe(s.durationMs / 1000);
    },
    recordCacheLookup(kind, hit) {
      (hit ? cacheHits : cacheMisses).inc({ kind: kindLabel(kind) });
    },
    recordPolicyDenial(ruleId) {
      denials.inc({ rule: ruleLabel(ruleId) });
    },
    recordRateLimited(ruleId) {
      rateLimited.inc({ rule: ruleLabel(ruleId) });
    },
    recordRefusal(reason, status) {
      const key = `${reason}\u0000${status}`;
      let count = refusalChildren.get(key);
      if (count === undefined) refusalChildren.set(key, (count = refusals.series({ reason, status: String(status) })));
      count.inc();
    },
    recordLimitHit(limit) {
      limitChildren.get(limit)!.inc();
    },
    recordConfigReload(result) {
      reloads.inc({ result });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** Runs a scrape-time callback; a throwing one is logged and its metric left empty, so one
 * broken source does not fail the whole scrape. */
function failureReporter(logger: Logger | undefined) {
  return <T>(metric: string, read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      logger?.warn('metrics source failed', { metric, error });
      return undefined;
    }
  };
}
