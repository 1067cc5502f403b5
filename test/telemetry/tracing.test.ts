// Tracing against a real OTLP/HTTP receiver on 127.0.0.1: what the exporter sends is decoded
// (JSON and protobuf) and checked field by field, including the parent chain
// client -> gateway request span -> upstream span -> what the upstream receives.
// tracing-off.test.ts covers the default, unconfigured case.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';
import type { HeaderSource } from '../../src/telemetry/trace-context.ts';
import type { OtlpReceiver, ReceivedSpan } from './otlp-receiver.ts';
import { useTracingBed } from './tracing-bed.ts';
import { CLIENT_SPAN, CLIENT_TRACE, META_SPAN, META_TRACEPARENT, TRACEPARENT, TRACESTATE, parseTraceparent, toolCall } from './tool-call.ts';

const SERVER = 2;
const CLIENT = 3;
const STATUS_ERROR = 2;

const headersOf = (h: Record<string, string>): HeaderSource => new Headers(h);

let receiver: OtlpReceiver;
const tracingWith = useTracingBed((r) => (receiver = r), { serviceVersion: '0.1.0' });

function byKind(spans: ReceivedSpan[], kind: number): ReceivedSpan {
  const found = spans.filter((s) => s.kind === kind);
  expect(found).toHaveLength(1);
  return found[0]!;
}

function checkToolCallSpans(spans: ReceivedSpan[], injected: { headers: { traceparent?: string } }, parent: string): void {
  expect(spans).toHaveLength(2);
  const request = byKind(spans, SERVER);
  expect(request.name).toBe('tools/call github__create_issue');
  expect(request.traceId).toBe(CLIENT_TRACE);
  expect(request.parentSpanId).toBe(parent);
  expect(request.status).toEqual({ code: 0, message: '' });
  expect(request.attributes).toEqual({
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'github__create_issue',
    'jsonrpc.request.id': '7',
    'mcp.protocol.version': '2026-07-28',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'network.protocol.version': '1.1',
    'gatehouse.era': 'modern',
    'gatehouse.request.id': 'req-1',
    'gatehouse.upstream': 'github',
    'gatehouse.policy.decision': 'allow',
    'gatehouse.policy.rule_id': 'allow-github',
    'gatehouse.outcome': 'ok',
  });

  const upstream = byKind(spans, CLIENT);
  const sent = parseTraceparent(injected.headers.traceparent);
  expect(upstream.name).toBe('tools/call create_issue');
  expect(upstream.traceId).toBe(CLIENT_TRACE);
  expect(upstream.parentSpanId).toBe(request.spanId);
  expect(upstream.spanId).toBe(sent.spanId);
  expect(sent).toEqual({ traceId: CLIENT_TRACE, spanId: upstream.spanId, flags: '01' });
  expect(upstream.attributes).toEqual({
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'create_issue',
    'jsonrpc.request.id': '1',
    'mcp.protocol.version': '2025-11-25',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'server.address': '127.0.0.1',
    'server.port': 9999,
    'gatehouse.upstream': 'github',
    'gatehouse.outcome': 'ok',
  });
}

describe('tracing with OTLP export', () => {
  it('exports the request span and its upstream child as OTLP/JSON, continuing the client trace from the traceparent header', async () => {
    const t = tracingWith({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'gatehouse-test',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s3cret%20value',
    });
    expect(t.exporting).toBe(true);
    const { span, injected } = toolCall(t, { headers: { traceparent: TRACEPARENT, tracestate: TRACESTATE } });
    await t.forceFlush();

    expect(receiver.exports).toHaveLength(1);
    const sent = receiver.exports[0]!;
    expect(sent.path).toBe('/v1/traces');
    expect(sent.contentType).toBe('application/json');
    expect(sent.headers['x-api-key']).toBe('s3cret value');
    expect(sent.resource['service.name']).toBe('gatehouse-test');
    expect(sent.resource['service.version']).toBe('0.1.0');
    expect(sent.scopes).toEqual(['gatehouse']);
    checkToolCallSpans(sent.spans, injected, CLIENT_SPAN);
    expect(span.traceId).toBe(CLIENT_TRACE);
    // The vendor tracestate travels with the trace, to the upstream in both carriers.
    expect(sent.spans.every((s) => s.traceState === TRACESTATE)).toBe(true);
    expect(injected.headers).toEqual({ traceparent: injected.headers.traceparent, tracestate: TRACESTATE });
    expect(injected.meta).toEqual(injected.headers);
  });

  it('exports OTLP/protobuf by default, to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces` });
    const { injected } = toolCall(t, { headers: { traceparent: TRACEPARENT } });
    await t.forceFlush();

    expect(receiver.exports).toHaveLength(1);
    expect(receiver.exports[0]!.path).toBe('/custom/traces');
    expect(receiver.exports[0]!.contentType).toBe('application/x-protobuf');
    expect(receiver.exports[0]!.resource['service.name']).toBe('gatehouse');
    checkToolCallSpans(receiver.spans(), injected, CLIENT_SPAN);
    expect(injected.headers.tracestate).toBeUndefined();
  });

  it('takes the parent from params._meta when no traceparent header came', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const { injected } = toolCall(t, { meta: { traceparent: META_TRACEPARENT, tracestate: 'meta=1' } });
    await t.forceFlush();
    checkToolCallSpans(receiver.spans(), injected, META_SPAN);
    expect(byKind(receiver.spans(), SERVER).traceState).toBe('meta=1');
  });

  it('prefers the _meta context as parent and links the HTTP one when both came and differ', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const { injected } = toolCall(t, { headers: { traceparent: TRACEPARENT }, meta: { traceparent: META_TRACEPARENT } });
    await t.forceFlush();
    checkToolCallSpans(receiver.spans(), injected, META_SPAN);
    expect(byKind(receiver.spans(), SERVER).links).toEqual([{ traceId: CLIENT_TRACE, spanId: CLIENT_SPAN }]);
  });

  it('starts a new trace when no valid context came in', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const { span, injected } = toolCall(t, { headers: { traceparent: 'garbage' }, meta: { traceparent: 42 } });
    await t.forceFlush();
    const request = byKind(receiver.spans(), SERVER);
    expect(request.parentSpanId).toBe('');
    expect(request.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(request.traceId).toBe(span.traceId);
    expect(parseTraceparent(injected.meta.traceparent).traceId).toBe(request.traceId);
  });

  it('marks JSON-RPC errors, tool errors and internal errors per the MCP conventions', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const denied = t.startRequestSpan({ method: 'tools/call', era: 'legacy', headers: headersOf({}), target: { tool: 'x__y' } });
    denied.end({ outcome: 'denied', errorCode: -32602, errorMessage: 'Unknown tool: x__y' });
    denied.end({ outcome: 'ok' });
    const failed = t.startRequestSpan({ method: 'resources/read', era: 'modern', headers: headersOf({}), target: { resourceUri: 'doc://a/b' } });
    const up = failed.startUpstreamSpan({ upstream: 'a', method: 'resources/read', resourceUri: 'doc://b', transport: 'stdio' });
    up.end({ outcome: 'tool_error' });
    failed.recordError(new TypeError('boom'));
    failed.end({ outcome: 'error' });
    await t.forceFlush();

    const spans = receiver.spans();
    expect(spans).toHaveLength(3);
    const d = spans.find((s) => s.name === 'tools/call x__y')!;
    expect(d.status).toEqual({ code: STATUS_ERROR, message: 'Unknown tool: x__y' });
    expect(d.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602', 'gatehouse.outcome': 'denied', 'gatehouse.era': 'legacy' });

    const u = byKind(spans, CLIENT);
    expect(u.name).toBe('resources/read');
    expect(u.attributes).toMatchObject({ 'error.type': 'tool_error', 'network.transport': 'pipe', 'mcp.resource.uri': 'doc://b' });
    expect(u.attributes['network.protocol.name']).toBeUndefined();
    expect(u.status.code).toBe(STATUS_ERROR);

    const f = spans.find((s) => s.name === 'resources/read' && s.kind === SERVER)!;
    expect(f.attributes).toMatchObject({ 'error.type': 'TypeError', 'mcp.resource.uri': 'doc://a/b', 'gatehouse.outcome': 'error' });
    expect(f.attributes['rpc.response.status_code']).toBeUndefined();
    expect(f.events).toEqual([{ name: 'exception', attributes: expect.objectContaining({ 'exception.type': 'TypeError', 'exception.message': 'boom' }) }]);
  });

  it('masks the values an error message quotes before the status is exported, keeping its words', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const span = t.startRequestSpan({ method: 'tools/call', era: 'modern', headers: headersOf({}), target: { tool: 'a__login' } });
    const up = span.startUpstreamSpan({ upstream: 'a', method: 'tools/call', name: 'login' });
    up.end({ outcome: 'error', errorCode: -32602, errorMessage: "1 validation error: password too short [input_value='hunter2', input_type=str]" });
    span.end({ outcome: 'error', errorCode: -32602, errorMessage: 'Invalid params: Mcp-Param-Pin must be an integer within ±(2^53-1), got 123456' });
    await t.forceFlush();
    const spans = receiver.spans();
    expect(byKind(spans, CLIENT).status).toEqual({ code: STATUS_ERROR, message: "1 validation error: password too short [input_value='…', input_type=str]" });
    expect(byKind(spans, SERVER).status).toEqual({ code: STATUS_ERROR, message: 'Invalid params: Mcp-Param-Pin must be an integer within ±(2^53-1), got …' });
    expect(JSON.stringify(spans)).not.toMatch(/hunter2|123456/);
  });

  it('renames the span when the target becomes known, and records a session id only as a digest', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const span = t.startRequestSpan({ method: 'prompts/get', era: 'legacy', headers: headersOf({}), sessionId: 'sealed-session-token', rpcId: null });
    span.setTarget({ prompt: 'github__summarize' });
    span.end({ outcome: 'ok' });
    await t.forceFlush();
    const [s] = receiver.spans();
    expect(s!.name).toBe('prompts/get github__summarize');
    expect(s!.attributes['gen_ai.prompt.name']).toBe('github__summarize');
    expect(s!.attributes['gen_ai.operation.name']).toBeUndefined();
    expect(s!.attributes['jsonrpc.request.id']).toBeUndefined();
    expect(s!.attributes['mcp.session.id']).toBe(createHash('sha256').update('sealed-session-token').digest('hex').slice(0, 32));
  });

  it('honours OTEL_TRACES_SAMPLER=always_off: nothing exported, the trace still propagated', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'always_off' });
    const { span, injected } = toolCall(t, { headers: { traceparent: TRACEPARENT } });
    await t.forceFlush();
    expect(span.recording).toBe(false);
    const sent = parseTraceparent(injected.meta.traceparent);
    expect(sent.traceId).toBe(CLIENT_TRACE);
    expect(sent.flags).toBe('00');
    expect(receiver.exports).toHaveLength(0);
  });

  it('logs a failing export once, with the endpoint but not its credentials', async () => {
    const { logger, lines } = createMemoryLogger();
    const closed = `${receiver.url}/v1/traces`;
    await receiver.close();
    const tracing = tracingWith({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: closed.replace('http://', 'http://user:pw@'), OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '500' }, logger);
    toolCall(tracing, {});
    await tracing.forceFlush().catch(() => undefined);
    const failures = lines.filter((l) => l.msg === 'trace export failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.endpoint).toBe(closed);
    expect(JSON.stringify(lines)).not.toContain('pw');
  });
});
