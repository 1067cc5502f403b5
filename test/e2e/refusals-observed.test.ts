// Every request leaves an audit record, a span and a count in /metrics, the ones refused
// before they became calls included: foreign Origin, header and body limits, failed
// authentication and missing scope, wrong content type, unparseable JSON, an unknown session,
// an unsupported version in either era, and a second initialize. Each case sends its own
// traceparent, so its span (exported over real OTLP/HTTP) and its audit record are found by
// trace id; what they say is checked against what the client received.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, type TestGateway } from '../harness/gateway.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../telemetry/otlp-receiver.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';

const KEY = 'refusal-test-key-0123456789abcdefghij';
const NO_SCOPE_KEY = 'refusal-test-noscope-0123456789abcdef';
const sha = (k: string): string => createHash('sha256').update(k).digest('hex');

let upstream: ModernUpstream;
let receiver: OtlpReceiver;
let gw: TestGateway;
const auditDir = join(mkdtempSync(join(tmpdir(), 'gatehouse-refusals-')), 'trail');
let traceCounter = 0;

useGatewayBed({
  upstream: () => startAll({ upstream: startModernUpstream({ name: 'up' }), receiver: startOtlpReceiver() }),
  config: (up) => `
identity:
  resource: http://gatehouse.test/mcp
  requiredScopes: [mcp:tools]
  apiKeys:
    - { id: ok, sha256: "${sha(KEY)}", subject: ops-bot, scopes: [mcp:tools] }
    - { id: noscope, sha256: "${sha(NO_SCOPE_KEY)}", subject: scopeless-bot }
limits: { maxBodyBytes: 4096, maxHeaderCount: 40 }
audit: { dir: "${auditDir}" }
upstreams:
  - { name: up, url: "${up.upstream.url}" }
`,
  env: (up) => ({ ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: up.receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' }),
  ready: (bed) => ({ upstream: { upstream, receiver }, gw } = bed),
});

function records(): Record<string, any>[] {
  return readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

function newTrace(): { traceId: string; traceparent: string } {
  const traceId = (++traceCounter).toString(16).padStart(32, 'c');
  return { traceId, traceparent: `00-${traceId}-${'d'.repeat(16)}-01` };
}

async function send(init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(gw.url, { method: init.method ?? 'POST', headers: init.headers ?? {}, ...(init.body !== undefined ? { body: init.body } : {}) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

async function refusalsCounted(reason: string, status: number): Promise<number> {
  const text = await (await fetch(new URL('/metrics', gw.url))).text();
  const line = text.split('\n').find((l) => l.startsWith(`gatehouse_refusals_total{reason="${reason}",status="${status}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const withKey = (method: string, extra: Record<string, string> = {}) => modernHeaders(method, undefined, { 'x-api-key': KEY, ...extra });
const listBody = (id: number) => JSON.stringify(modernBody(id, 'tools/list'));

async function legacySession(): Promise<string> {
  const res = await fetch(gw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': KEY },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

const legacyHeaders = (session: string, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'x-api-key': KEY,
  'mcp-session-id': session,
  ...extra,
});

interface Case {
  name: string;
  reason: string;
  status: number;
  code: number;
  /** What the record names as the method: the JSON-RPC one once the body was read. */
  method: string;
  era: 'modern' | 'legacy';
  subject: string;
  request: (traceparent: string) => Promise<{ method?: string; headers: Record<string, string>; body?: string }>;
}

const manyHeaders = (): Record<string, string> => Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`x-filler-${i}`, 'x']));

const cases: Case[] = [
  { name: 'no credentials (401)', reason: 'auth_failed', status: 401, code: -31003, method: 'POST /mcp', era: 'modern', subject: '', request: async (tp) => ({ headers: modernHeaders('tools/list', undefined, { traceparent: tp }), body: listBody(2) }) },
  { name: 'a wrong API key (401)', reason: 'auth_failed', status: 401, code: -31003, method: 'POST /mcp', era: 'modern', subject: '', request: async (tp) => ({ headers: modernHeaders('tools/list', undefined, { traceparent: tp, 'x-api-key': 'wrong-key-0123456789abcdefghijklmn' }), body: listBody(3) }) },
  { name: 'a missing scope (403)', reason: 'auth_failed', status: 403, code: -31003, method: 'POST /mcp', era: 'modern', subject: '', request: async (tp) => ({ headers: modernHeaders('tools/list', undefined, { traceparent: tp, 'x-api-key': NO_SCOPE_KEY }), body: listBody(4) }) },
  { name: 'a foreign Origin (403)', reason: 'forbidden_origin', status: 403, code: -32600, method: 'POST /mcp', era: 'modern', subject: '', request: async (tp) => ({ headers: withKey('tools/list', { traceparent: tp, origin: 'https://evil.example' }), body: listBody(5) }) },
  { name: 'too many headers (431)', reason: 'headers_too_large', status: 431, code: -32600, method: 'POST /mcp', era: 'modern', subject: '', request: async (tp) => ({ headers: { ...withKey('tools/list', { traceparent: tp }), ...manyHeaders() }, body: listBody(6) }) },
  { name: 'a body over the limit (413)', reason: 'body_too_large', status: 413, code: -32600, method: 'POST /mcp', era: 'modern', subject: 'ops-bot', request: async (tp) => ({ headers: withKey('tools/list', { traceparent: tp }), body: JSON.stringify({ ...modernBody(7, 'tools/list'), pad: 'x'.repeat(5000) }) }) },
  { name: 'a wrong content type (415)', reason: 'unsupported_media_type', status: 415, code: -32600, method: 'POST /mcp', era: 'modern', subject: 'ops-bot', request: async (tp) => ({ headers: withKey('tools/list', { traceparent: tp, 'content-type': 'text/plain' }), body: listBody(8) }) },
  { name: 'unparseable JSON (parse error)', reason: 'parse_error', status: 400, code: -32700, method: 'POST /mcp', era: 'modern', subject: 'ops-bot', request: async (tp) => ({ headers: withKey('tools/list', { traceparent: tp }), body: '{"jsonrpc":"2.0",' }) },
  { name: 'an unknown session (404)', reason: 'session_not_found', status: 404, code: -32600, method: 'tools/list', era: 'legacy', subject: 'ops-bot', request: async (tp) => ({ headers: legacyHeaders('not-a-session', { traceparent: tp }), body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) }) },
  { name: 'an unsupported version in a 2025-11-25 session', reason: 'unsupported_version', status: 400, code: -32022, method: 'tools/list', era: 'legacy', subject: 'ops-bot', request: async (tp) => ({ headers: legacyHeaders(await legacySession(), { traceparent: tp, 'mcp-protocol-version': '1999-01-01' }), body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' }) }) },
  {
    name: 'an unsupported version in a 2026-07-28 request',
    reason: 'unsupported_version',
    status: 400,
    code: -32022,
    method: 'tools/list',
    era: 'modern',
    subject: 'ops-bot',
    request: async (tp) => {
      const body = modernBody(11, 'tools/list');
      body.params._meta['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
      return { headers: withKey('tools/list', { traceparent: tp, 'mcp-protocol-version': '2099-01-01' }), body: JSON.stringify(body) };
    },
  },
  { name: 'a second initialize in a session', reason: 'invalid_request', status: 400, code: -32600, method: 'initialize', era: 'legacy', subject: 'ops-bot', request: async (tp) => ({ headers: legacyHeaders(await legacySession(), { traceparent: tp }), body: JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) }) },
];

describe('requests refused before they become calls are observed', () => {
  it.each(cases)('$name: the audit record, the span and the metric say what the client received', async (c) => {
    const before = await refusalsCounted(c.reason, c.status);
    const { traceId, traceparent } = newTrace();
    const res = await send(await c.request(traceparent));
    expect(res.status).toBe(c.status);
    expect(res.json.error.code).toBe(c.code);

    await expect.poll(() => records().some((r) => r.type === 'request' && r.traceId === traceId), { timeout: 5000 }).toBe(true);
    const rec = records().find((r) => r.traceId === traceId)!;
    expect(rec).toMatchObject({ method: c.method, era: c.era, outcome: 'error', errorCode: c.code, principal: { subject: c.subject } });
    expect(rec.requestId).toMatch(/^[0-9a-f]{16}$/);

    await expect.poll(() => receiver.spans().filter((s) => s.traceId === traceId).length, { timeout: 5000 }).toBe(1);
    const span = receiver.spans().find((s) => s.traceId === traceId)!;
    expect(span.attributes).toMatchObject({ 'gatehouse.outcome': 'error', 'gatehouse.request.id': rec.requestId });
    expect(span.status.code).toBe(2);

    expect(await refusalsCounted(c.reason, c.status)).toBe(before + 1);
  });
});
