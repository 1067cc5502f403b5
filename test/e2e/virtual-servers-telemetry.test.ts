// The span of a request to a virtual server names the server (gatehouse.server); a request
// to /mcp carries no such attribute. Exported over real OTLP/HTTP.
import { expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../telemetry/otlp-receiver.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';

let receiver: OtlpReceiver;
let gw: TestGateway;

useGatewayBed({
  upstream: () => startAll({ modern: startModernUpstream({ name: 'm' }), receiver: startOtlpReceiver() }),
  config: (up: { modern: ModernUpstream; receiver: OtlpReceiver }) => `
upstreams:
  - { name: m, url: "${up.modern.url}" }
servers:
  - { name: solo, prefix: none }
`,
  env: (up) => ({ ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: up.receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' }),
  ready: (bed) => ({ upstream: { receiver }, gw } = bed),
});

async function serverSpanOf(traceId: string) {
  const find = () => receiver.spans().find((s) => s.traceId === traceId && s.kind === 2);
  await expect.poll(() => find() !== undefined, { timeout: 5000 }).toBe(true);
  return find()!;
}

it('names the virtual server on the request span, and only there', async () => {
  const onSolo = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
  const onRoot = `00-${'3'.repeat(32)}-${'4'.repeat(16)}-01`;
  await postJson(gw.servers.solo!, modernBody(1, 'tools/call', { name: 'echo', arguments: { message: 'a' } }), modernHeaders('tools/call', 'echo', { traceparent: onSolo }));
  await postJson(gw.url, modernBody(2, 'tools/call', { name: 'm__echo', arguments: { message: 'b' } }), modernHeaders('tools/call', 'm__echo', { traceparent: onRoot }));
  const solo = await serverSpanOf('1'.repeat(32));
  expect(solo.attributes).toMatchObject({ 'gatehouse.server': 'solo', 'gatehouse.upstream': 'm', 'gatehouse.outcome': 'ok' });
  const root = await serverSpanOf('3'.repeat(32));
  expect(root.attributes['gatehouse.server']).toBeUndefined();
});
