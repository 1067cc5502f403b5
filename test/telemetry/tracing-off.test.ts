// Tracing with no OTLP configuration: a real OTLP/HTTP receiver on 127.0.0.1 listens, the
// environment points at it only through variables that must not enable trace export, and
// the test checks that nothing arrives, no span of the gateway's own exists, and the
// client's trace context still reaches the upstream unchanged.
import { describe, expect, it } from 'vitest';
import type { OtlpReceiver } from './otlp-receiver.ts';
import { useTracingBed } from './tracing-bed.ts';
import { CLIENT_SPAN, CLIENT_TRACE, META_TRACEPARENT, TRACEPARENT, TRACESTATE, toolCall } from './tool-call.ts';

let receiver: OtlpReceiver;
const tracingWith = useTracingBed((r) => (receiver = r));

describe('tracing without OTLP configuration', () => {
  it('is a no-op without OTEL variables: nothing sent, no span ids of its own, the client trace passed through', async () => {
    // Variables that look related but do not enable trace export, all pointing at the receiver.
    const t = tracingWith({
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=1',
      OTEL_SERVICE_NAME: 'gatehouse-test',
    });
    expect(t.exporting).toBe(false);
    const { span, upstream, injected } = toolCall(t, { headers: { traceparent: TRACEPARENT, tracestate: TRACESTATE } });
    expect(span.recording).toBe(false);
    expect(upstream.recording).toBe(false);
    expect(span.traceId).toBe(CLIENT_TRACE);
    expect(span.spanId).toBe(CLIENT_SPAN);
    expect(injected).toEqual({
      headers: { traceparent: TRACEPARENT, tracestate: TRACESTATE },
      meta: { traceparent: TRACEPARENT, tracestate: TRACESTATE },
    });

    const alone = toolCall(t, {});
    expect(alone.span.traceId).toBeUndefined();
    expect(alone.injected).toEqual({ headers: {}, meta: {} });

    // forceFlush returns once an export is answered (tracing.test.ts reads the receiver right
    // after it), so an export would be in by now.
    await t.forceFlush();
    await t.shutdown();
    expect(receiver.exports).toHaveLength(0);
  });

  it('sends nothing when OTEL_TRACES_EXPORTER=none, even with an endpoint set', async () => {
    const t = tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: 'none' });
    expect(t.exporting).toBe(false);
    toolCall(t, { headers: { traceparent: TRACEPARENT } });
    await t.forceFlush();
    expect(receiver.exports).toHaveLength(0);
  });

  it('is a no-op with an empty environment', () => {
    const t = tracingWith({});
    expect(t.exporting).toBe(false);
    expect(toolCall(t, { meta: { traceparent: META_TRACEPARENT } }).injected.meta).toEqual({ traceparent: META_TRACEPARENT });
  });
});
