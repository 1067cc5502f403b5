// Prometheus metrics: recorded values read back from the text exposition (served over real
// HTTP on 127.0.0.1 in one test), with exact counter values and histogram buckets.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';
import { createMetrics, type Metrics } from '../../src/telemetry/metrics.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (version 0.0.4) into samples; comments are skipped. */
function parseExposition(body: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

async function scrape(metrics: Metrics): Promise<(name: string, labels?: Record<string, string>) => number | undefined> {
  const samples = parseExposition((await metrics.render()).body);
  return (name, labels = {}) => {
    const found = samples.filter((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels));
    if (found.length > 1) throw new Error(`ambiguous ${name}`);
    return found[0]?.value;
  };
}

async function series(metrics: Metrics, name: string): Promise<Record<string, string>[]> {
  return parseExposition((await metrics.render()).body)
    .filter((s) => s.name === name)
    .map((s) => s.labels);
}

describe('metrics', () => {
  it('counts requests by method, upstream, tool and outcome', async () => {
    const m = createMetrics();
    m.recordRequest({ method: 'tools/call', upstream: 'github', tool: 'github__create_issue', outcome: 'ok', durationMs: 12, upstreamMs: 10 });
    m.recordRequest({ method: 'tools/call', upstream: 'github', tool: 'github__create_issue', outcome: 'ok', durationMs: 14, upstreamMs: 10 });
    m.recordRequest({ method: 'tools/call', upstream: 'github', tool: 'github__create_issue', outcome: 'tool_error', durationMs: 9, upstreamMs: 8 });
    m.recordRequest({ method: 'tools/list', outcome: 'ok', durationMs: 2 });
    const get = await scrape(m);
    expect(get('gatehouse_requests_total', { method: 'tools/call', upstream: 'github', tool: 'github__create_issue', outcome: 'ok' })).toBe(2);
    expect(get('gatehouse_requests_total', { method: 'tools/call', upstream: 'github', tool: 'github__create_issue', outcome: 'tool_error' })).toBe(1);
    expect(get('gatehouse_requests_total', { method: 'tools/list', upstream: '', tool: '', outcome: 'ok' })).toBe(1);
    expect(await series(m, 'gatehouse_requests_total')).toHaveLength(3);
  });

  it('records whole-request time, gateway overhead (total minus upstream time) and upstream time in histograms', async () => {
    const m = createMetrics();
    // Overheads: 0.2 ms, 3 ms (no upstream), 40 ms.
    m.recordRequest({ method: 'tools/call', upstream: 'a', tool: 'a__t', outcome: 'ok', durationMs: 30, upstreamMs: 29.8 });
    m.recordRequest({ method: 'tools/call', upstream: 'a', tool: 'a__t', outcome: 'ok', durationMs: 3 });
    m.recordRequest({ method: 'tools/call', upstream: 'a', tool: 'a__t', outcome: 'ok', durationMs: 1240, upstreamMs: 1200 });
    m.recordUpstreamCall({ upstream: 'a', method: 'tools/call', durationMs: 29.8 });
    m.recordUpstreamCall({ upstream: 'a', method: 'tools/call', durationMs: 1200 });
    const get = await scrape(m);

    const total = (le: string) => get('gatehouse_request_duration_seconds_bucket', { le, method: 'tools/call' });
    expect([total('0.001'), total('0.0025'), total('0.005'), total('0.025'), total('0.05'), total('1'), total('2.5'), total('+Inf')]).toEqual([
      0, 0, 1, 1, 2, 2, 3, 3,
    ]);
    expect(get('gatehouse_request_duration_seconds_count', { method: 'tools/call' })).toBe(3);
    expect(get('gatehouse_request_duration_seconds_sum', { method: 'tools/call' })).toBeCloseTo(1.273, 9);

    const overhead = (le: string) => get('gatehouse_request_overhead_seconds_bucket', { le, method: 'tools/call' });
    expect([overhead('0.0001'), overhead('0.00025'), overhead('0.0025'), overhead('0.005'), overhead('0.025'), overhead('0.05'), overhead('+Inf')]).toEqual([
      0, 1, 1, 2, 2, 3, 3,
    ]);
    expect(get('gatehouse_request_overhead_seconds_count', { method: 'tools/call' })).toBe(3);
    expect(get('gatehouse_request_overhead_seconds_sum', { method: 'tools/call' })).toBeCloseTo(0.0432, 9);

    const upstream = (le: string) => get('gatehouse_upstream_request_duration_seconds_bucket', { le, upstream: 'a', method: 'tools/call' });
    expect([upstream('0.025'), upstream('0.05'), upstream('1'), upstream('2.5'), upstream('+Inf')]).toEqual([0, 1, 1, 2, 2]);
    expect(get('gatehouse_upstream_request_duration_seconds_sum', { upstream: 'a', method: 'tools/call' })).toBeCloseTo(1.2298, 9);
  });

  it('never reports negative overhead when upstream time is over the total (clock granularity)', async () => {
    const m = createMetrics();
    m.recordRequest({ method: 'ping', outcome: 'ok', durationMs: 1, upstreamMs: 1.5 });
    const get = await scrape(m);
    expect(get('gatehouse_request_overhead_seconds_sum', { method: 'ping' })).toBe(0);
    expect(get('gatehouse_request_overhead_seconds_bucket', { le: '0.0001', method: 'ping' })).toBe(1);
  });

  it('counts cache hits and misses by kind, policy denials and rate-limited calls by rule', async () => {
    const m = createMetrics();
    m.recordCacheLookup('tools', true);
    m.recordCacheLookup('tools', true);
    m.recordCacheLookup('tools', false);
    m.recordCacheLookup('resources', false);
    m.recordPolicyDenial('deny-shell');
    m.recordPolicyDenial('deny-shell');
    m.recordRateLimited('per-user-calls');
    const get = await scrape(m);
    expect(get('gatehouse_cache_hits_total', { kind: 'tools' })).toBe(2);
    expect(get('gatehouse_cache_misses_total', { kind: 'tools' })).toBe(1);
    expect(get('gatehouse_cache_misses_total', { kind: 'resources' })).toBe(1);
    expect(get('gatehouse_cache_hits_total', { kind: 'resources' })).toBeUndefined();
    expect(get('gatehouse_policy_denials_total', { rule: 'deny-shell' })).toBe(2);
    expect(get('gatehouse_rate_limited_total', { rule: 'per-user-calls' })).toBe(1);
  });

  it('bounds label cardinality: unknown methods, tools past the limit and tools not exposed become "other"', async () => {
    const m = createMetrics({ maxLabelValues: 2, isExposedTool: (name) => name !== 'hidden__tool' });
    for (const tool of ['a__1', 'a__2', 'a__3', 'a__4', 'a__1', 'hidden__tool']) {
      m.recordRequest({ method: 'tools/call', upstream: 'a', tool, outcome: 'ok', durationMs: 1 });
    }
    m.recordRequest({ method: 'evil/method-1', outcome: 'error', durationMs: 1 });
    m.recordRequest({ method: 'evil/method-2', outcome: 'error', durationMs: 1 });
    for (const rule of ['r1', 'r2', 'r3']) m.recordPolicyDenial(rule);
    const get = await scrape(m);
    const calls = (tool: string) => get('gatehouse_requests_total', { method: 'tools/call', upstream: 'a', tool, outcome: 'ok' });
    expect([calls('a__1'), calls('a__2'), calls('other')]).toEqual([2, 1, 3]);
    expect(calls('a__3')).toBeUndefined();
    expect(calls('hidden__tool')).toBeUndefined();
    expect(get('gatehouse_requests_total', { method: 'other', upstream: '', tool: '', outcome: 'error' })).toBe(2);
    expect(get('gatehouse_request_duration_seconds_count', { method: 'other' })).toBe(2);
    expect([get('gatehouse_policy_denials_total', { rule: 'r1' }), get('gatehouse_policy_denials_total', { rule: 'r2' }), get('gatehouse_policy_denials_total', { rule: 'other' })]).toEqual([1, 1, 1]);
  });

  it('reads upstream health, pending approvals and audit sink state from callbacks at scrape time', async () => {
    let status: Record<string, boolean> = { github: true, jira: false };
    let pending = 3;
    let audit = { lagSeconds: 0.25, droppedTotal: 0, writtenTotal: 12, syncsTotal: 4, commitWaitsTotal: 3 };
    const m = createMetrics({ upstreamStatus: () => status, pendingApprovals: () => pending, auditStats: () => audit });
    let get = await scrape(m);
    expect(get('gatehouse_upstream_up', { upstream: 'github' })).toBe(1);
    expect(get('gatehouse_upstream_up', { upstream: 'jira' })).toBe(0);
    expect(get('gatehouse_approvals_pending')).toBe(3);
    expect(get('gatehouse_audit_sink_lag_seconds')).toBe(0.25);
    expect(get('gatehouse_audit_dropped_total')).toBe(0);
    expect(get('gatehouse_audit_records_written_total')).toBe(12);
    expect(get('gatehouse_audit_syncs_total')).toBe(4);
    expect(get('gatehouse_audit_commit_waits_total')).toBe(3);

    status = { github: false };
    pending = 0;
    audit = { lagSeconds: 0, droppedTotal: 7, writtenTotal: 30, syncsTotal: 5, commitWaitsTotal: 4 };
    get = await scrape(m);
    expect(get('gatehouse_upstream_up', { upstream: 'github' })).toBe(0);
    expect(get('gatehouse_upstream_up', { upstream: 'jira' })).toBeUndefined();
    expect(get('gatehouse_approvals_pending')).toBe(0);
    expect(get('gatehouse_audit_sink_lag_seconds')).toBe(0);
    expect(get('gatehouse_audit_dropped_total')).toBe(7);
    expect(get('gatehouse_audit_records_written_total')).toBe(30);
    expect(get('gatehouse_audit_syncs_total')).toBe(5);
    expect(get('gatehouse_audit_commit_waits_total')).toBe(4);
  });

  it('keeps serving the scrape when a callback throws: the gauge reads NaN, the counter keeps its value, a warning is logged', async () => {
    const { logger, lines } = createMemoryLogger();
    let broken = false;
    const m = createMetrics({
      logger,
      upstreamStatus: () => {
        if (broken) throw new Error('status unavailable');
        return { github: true };
      },
      pendingApprovals: () => {
        if (broken) throw new Error('redis down');
        return 1;
      },
      auditStats: () => {
        if (broken) throw new Error('sink gone');
        return { lagSeconds: 1, droppedTotal: 5, writtenTotal: 9, syncsTotal: 3, commitWaitsTotal: 2 };
      },
    });
    await scrape(m);
    broken = true;
    const get = await scrape(m);
    expect(get('gatehouse_upstream_up', { upstream: 'github' })).toBeUndefined();
    expect(get('gatehouse_approvals_pending')).toBeNaN();
    expect(get('gatehouse_audit_sink_lag_seconds')).toBeNaN();
    expect(get('gatehouse_audit_dropped_total')).toBe(5);
    expect(get('gatehouse_audit_records_written_total')).toBe(9);
    expect(get('gatehouse_audit_syncs_total')).toBe(3);
    expect(get('gatehouse_audit_commit_waits_total')).toBe(2);
    expect(lines.filter((l) => l.msg === 'metrics source failed').map((l) => l.metric)).toEqual([
      'upstream_up',
      'approvals_pending',
      'audit_sink_lag_seconds',
      'audit_dropped_total',
      'audit_records_written_total',
      'audit_rotations_total',
      'audit_strings_cut_total',
      'audit_files_deleted_total',
      'audit_retained_seconds',
      'audit_rejected_total',
      'audit_write_errors_total',
      'audit_syncs_total',
      'audit_commit_waits_total',
    ]);
    expect(get('gatehouse_audit_retained_seconds')).toBeNaN();
  });

  it('omits the callback metrics whose source was not given, and keeps registries apart', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.recordPolicyDenial('x');
    const body = (await b.render()).body;
    expect(body).not.toContain('gatehouse_policy_denials_total{');
    expect(body).not.toContain('gatehouse_upstream_up');
    expect(body).not.toContain('gatehouse_approvals_pending');
    expect(body).not.toContain('gatehouse_audit_');
    expect((await a.render()).body).toContain('gatehouse_policy_denials_total{rule="x"} 1');
  });

  it('adds Node.js process metrics when asked', async () => {
    const body = (await createMetrics({ processMetrics: true }).render()).body;
    expect(body).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(body).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('serves the Prometheus text format over HTTP', async () => {
    const m = createMetrics();
    m.recordRequest({ method: 'tools/call', upstream: 'a', tool: 'a__t', outcome: 'denied', durationMs: 1 });
    const server = createServer((req, res) => {
      void m.render().then(({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const body = await res.text();
      expect(body).toContain('# TYPE gatehouse_requests_total counter');
      expect(body).toContain('# TYPE gatehouse_request_duration_seconds histogram');
      expect(parseExposition(body).find((s) => s.name === 'gatehouse_requests_total')).toEqual({
        name: 'gatehouse_requests_total',
        labels: { method: 'tools/call', upstream: 'a', tool: 'a__t', outcome: 'denied' },
        value: 1,
      });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
