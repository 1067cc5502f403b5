// The client trace context and the one tools/call the tracing tests send through the
// telemetry API the way the pipeline does: request span, policy decision, one upstream call.
import { expect } from 'vitest';
import type { JsonObject } from '../../src/protocol/message.ts';
import type { Tracing } from '../../src/telemetry/tracing.ts';

export const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
export const CLIENT_SPAN = '00f067aa0ba902b7';
export const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
export const TRACESTATE = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';
export const META_SPAN = 'b7ad6b7169203331';
export const META_TRACEPARENT = `00-${CLIENT_TRACE}-${META_SPAN}-01`;

export function toolCall(t: Tracing, carriers: { headers?: Record<string, string>; meta?: JsonObject }) {
  const span = t.startRequestSpan({
    method: 'tools/call',
    era: 'modern',
    headers: new Headers(carriers.headers ?? {}),
    meta: carriers.meta,
    rpcId: 7,
    protocolVersion: '2026-07-28',
    requestId: 'req-1',
    httpVersion: '1.1',
    target: { tool: 'github__create_issue' },
  });
  span.setUpstream('github');
  span.setDecision({ effect: 'allow', ruleId: 'allow-github' });
  const upstream = span.startUpstreamSpan({
    upstream: 'github',
    method: 'tools/call',
    name: 'create_issue',
    protocolVersion: '2025-11-25',
    serverAddress: '127.0.0.1',
    serverPort: 9999,
    rpcId: 1,
  });
  const injected = upstream.inject();
  upstream.end({ outcome: 'ok' });
  span.end({ outcome: 'ok' });
  return { span, upstream, injected };
}

export function parseTraceparent(tp: string | undefined): { traceId: string; spanId: string; flags: string } {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(tp ?? '');
  expect(m, `traceparent ${tp}`).not.toBeNull();
  return { traceId: m![1]!, spanId: m![2]!, flags: m![3]! };
}
