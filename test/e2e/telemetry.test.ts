// One trace spans client -> gateway -> upstream, exported over real OTLP/HTTP; metrics read
// back from /metrics. The client sends its own traceparent; the upstream must receive the
// context of the gateway's upstream span, in headers and in _meta (spec MCP 2026-07-28, basic/index (request _meta)).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../telemetry/otlp-receiver.ts';
import { CLIENT_SPAN, CLIENT_TRACE, TRACEPARENT, parseTraceparent } from '../telemetry/tool-call.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let receiver: OtlpReceiver;
let gw: TestGateway;

useGatewayBed({
  upstream: () => startAll({ modern: startModernUpstream({ name: 'm' }), legacy: startLegacyUpstream({ name: 'l' }), receiver: startOtlpReceiver() }),
  config: (up) => `
upstreams:
  - { name: m, url: "${up.modern.url}" }
  - { name: l, url: "${up.legacy.url}" }
`,
  env: (up) => ({ ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: up.receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' }),
  ready: (bed) => ({ upstream: { modern, legacy, receiver }, gw } = bed),
});

async function spansOf(traceId: string, count: number) {
  const ofTrace = () => receiver.spans().filter((s) => s.traceId === traceId);
  await expect.poll(() => ofTrace().length, { message: `spans of trace ${traceId}`, timeout: 5000 }).toBeGreaterThanOrEqual(count);
  return ofTrace();
}

describe('traces through the gateway', () => {
  it('continues the client trace with a server span and an upstream client span, propagated in headers and _meta', async () => {
    const res = await postJson(
      gw.url,
      modernBody(7, 'tools/call', { name: 'm__echo', arguments: { message: 'traced' } }),
      modernHeaders('tools/call', 'm__echo', { traceparent: TRACEPARENT }),
    );
    expect(res.json.result.structuredContent).toEqual({ message: 'traced' });
    const spans = await spansOf(CLIENT_TRACE, 2);
    const server = spans.find((s) => s.kind === 2)!;
    const client = spans.find((s) => s.kind === 3)!;
    expect(server.parentSpanId).toBe(CLIENT_SPAN);
    expect(server.name).toBe('tools/call m__echo');
    expect(server.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'm__echo', 'gatehouse.upstream': 'm', 'gatehouse.outcome': 'ok' });
    expect(client.parentSpanId).toBe(server.spanId);
    const upstreamCall = modern.received.filter((r) => (r.body as { method?: string })?.method === 'tools/call').at(-1)!;
    const sent = parseTraceparent(upstreamCall.headers.traceparent);
    expect(sent.traceId).toBe(CLIENT_TRACE);
    expect(sent.spanId).toBe(client.spanId);
    const meta = (upstreamCall.body as { params: { _meta: Record<string, string> } }).params._meta;
    expect(parseTraceparent(meta.traceparent).spanId).toBe(client.spanId);
  });

  it('records an error outcome and code on a refused request', async () => {
    const tp = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const res = await postJson(gw.url, modernBody(8, 'tools/call', { name: 'm__nope' }), modernHeaders('tools/call', 'm__nope', { traceparent: tp }));
    expect(res.json.error.code).toBe(-32602);
    const [span] = await spansOf('a'.repeat(32), 1);
    expect(span!.status.code).toBe(2);
    expect(span!.attributes['error.type']).toBe('-32602');
  });

  it('exports no argument value of a refused call: the span status names the problem, not the values', async () => {
    const tp = `00-${'e'.repeat(32)}-${'f'.repeat(16)}-01`;
    const args = { region: 'body-region-s3cr3t', query: 'q', limit: 5 };
    const res = await postJson(
      gw.url,
      modernBody(10, 'tools/call', { name: 'm__query', arguments: args }),
      modernHeaders('tools/call', 'm__query', { traceparent: tp, 'mcp-param-region': 'header-region-s3cr3t', 'mcp-param-limit': '5' }),
    );
    // The client that sent them is told which values differ...
    expect(res.json.error.code).toBe(-32020);
    expect(res.json.error.message).toContain("'header-region-s3cr3t' does not match body value 'body-region-s3cr3t'");
    const [span] = await spansOf('e'.repeat(32), 1);
    // ...the trace backend only that they differ.
    expect(span!.status).toEqual({ code: 2, message: "Header mismatch: Mcp-Param-Region header value '…' does not match body value '…'" });
    expect(JSON.stringify(span)).not.toMatch(/s3cr3t/);
  });

  it('carries the trace to a legacy upstream in _meta too', async () => {
    const tp = `00-${'c'.repeat(32)}-${'d'.repeat(16)}-01`;
    const res = await postJson(gw.url, modernBody(9, 'tools/call', { name: 'l__echo', arguments: { message: 'x' } }), modernHeaders('tools/call', 'l__echo', { traceparent: tp }));
    expect(res.json.result.structuredContent).toEqual({ message: 'x' });
    const spans = await spansOf('c'.repeat(32), 2);
    const client = spans.find((s) => s.kind === 3)!;
    const call = legacy.received.filter((r) => (r.body as { method?: string })?.method === 'tools/call').at(-1)!;
    expect(parseTraceparent(call.headers.traceparent).spanId).toBe(client.spanId);
    expect(parseTraceparent((call.body as { params: { _meta: Record<string, string> } }).params._meta.traceparent).spanId).toBe(client.spanId);
  });
});

describe('metrics', () => {
  it('counts requests by method, upstream, tool and outcome, and reports upstream health', async () => {
    for (let i = 0; i < 3; i++) {
      await postJson(gw.url, modernBody(100 + i, 'tools/call', { name: 'm__add', arguments: { a: i, b: 1 } }), modernHeaders('tools/call', 'm__add'));
    }
    const text = await (await fetch(new URL('/metrics', gw.url))).text();
    expect(text).toMatch(/gatehouse_requests_total\{method="tools\/call",upstream="m",tool="m__add",outcome="ok"\} 3/);
    expect(text).toMatch(/gatehouse_upstream_up\{upstream="m"\} 1/);
    expect(text).toMatch(/gatehouse_upstream_request_duration_seconds_count\{upstream="m",method="tools\/call"\} \d+/);
    expect(text).toMatch(/gatehouse_request_overhead_seconds_count\{method="tools\/call"\} \d+/);
    expect(text).toMatch(/gatehouse_approvals_pending 0/);
    // Calls route by the cached list: each resolves without refetching (a cache hit).
    expect(Number(/gatehouse_cache_hits_total\{kind="tools"\} (\d+)/.exec(text)?.[1])).toBeGreaterThan(0);
  });
});

describe('with tracing off (no OTEL_* settings)', () => {
  let quiet: TestGateway;
  beforeAll(async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    quiet = await startTestGateway(`
upstreams:
  - { name: m, url: "${modern.url}" }
`, env);
    await quiet.waitUp();
  });
  afterAll(async () => {
    await quiet?.close();
  });

  const lastCall = () => modern.received.filter((r) => (r.body as { method?: string })?.method === 'tools/call').at(-1)!;

  it('passes the client trace through unchanged, in headers and _meta', async () => {
    const res = await postJson(quiet.url, modernBody(8, 'tools/call', { name: 'm__echo', arguments: { message: 'quiet' } }), modernHeaders('tools/call', 'm__echo', { traceparent: TRACEPARENT }));
    expect(res.json.result.structuredContent).toEqual({ message: 'quiet' });
    const sent = lastCall();
    expect(sent.headers.traceparent).toBe(TRACEPARENT);
    expect((sent.body as { params: { _meta: Record<string, string> } }).params._meta.traceparent).toBe(TRACEPARENT);
  });

  it('adds no trace fields when the client sent none', async () => {
    const res = await postJson(quiet.url, modernBody(9, 'tools/call', { name: 'm__echo', arguments: { message: 'untraced' } }), modernHeaders('tools/call', 'm__echo'));
    expect(res.json.result.structuredContent).toEqual({ message: 'untraced' });
    const sent = lastCall();
    expect(sent.headers.traceparent).toBeUndefined();
    expect((sent.body as { params: { _meta: Record<string, unknown> } }).params._meta).not.toHaveProperty('traceparent');
  });
});
