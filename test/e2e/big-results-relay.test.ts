// Big results relayed as the upstream's bytes (README, Big results relayed as they come): real SDK servers of both
// eras on 127.0.0.1, the real gateway, raw HTTP clients that read the bytes they get. A relayed
// reply is chunked (no Content-Length: the gateway does not know the length before the last
// byte) and its audit record says `relayed`; the buffered path answers with a Content-Length.
import { describe, expect, it } from 'vitest';
import { auditRequests, modernBody, modernHeaders, type TestGateway } from '../harness/gateway.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';
import { bigImageData, bigText, startBigResultUpstream, type BigResultUpstream } from '../fixtures/big-result-upstream.ts';
import { GATEWAY_SERVER_INFO } from '../../src/protocol/implementation.ts';

const MB = 1_000_000;
let gw: TestGateway;
let up: { modern: BigResultUpstream; legacy: BigResultUpstream; legacySse: BigResultUpstream };

useGatewayBed({
  upstream: () => startAll({ modern: startBigResultUpstream('modern'), legacy: startBigResultUpstream('legacy'), legacySse: startBigResultUpstream('legacy', { json: false }) }),
  config: (u) => `
upstreams:
  - { name: modern, url: "${u.modern.url}" }
  - { name: legacy, url: "${u.legacy.url}" }
  - { name: sse, url: "${u.legacySse.url}" }
validation: { outputs: block }
audit:
  record: { results: none }
  rules:
    - { tool: "legacy__progressed", results: digest }
`,
  ready: (bed) => ({ gw, upstream: up } = bed),
});

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function legacySession(): Promise<Record<string, string>> {
  const init = await fetch(gw.url, { method: 'POST', headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
  await init.text();
  const headers = { ...LEGACY_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  await (await fetch(gw.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  return headers;
}

interface Got {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function call(era: 'modern' | 'legacy', id: string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Got> {
  const params = { name, arguments: args, ...(meta ? { _meta: meta } : {}) };
  const body = era === 'modern' ? modernBody(id, 'tools/call', params) : { jsonrpc: '2.0', id, method: 'tools/call', params };
  const headers = era === 'modern' ? modernHeaders('tools/call', name) : await legacySession();
  const res = await fetch(gw.url, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** The bytes of the result value in an upstream's raw answer (SDK 1.x writes `{"result":…,"jsonrpc":"2.0","id":N}`). */
function resultBytes(answer: Buffer): Buffer {
  const text = answer.toString('latin1');
  const start = text.indexOf('"result":') + '"result":'.length;
  const end = text.lastIndexOf(',"jsonrpc"');
  return answer.subarray(start, end);
}

function recordOf(id: string): Record<string, any> | undefined {
  return auditRequests(gw).find((r) => r.rpcId === id);
}

describe('a big result nothing in the gateway reads', () => {
  it('goes from a 2025-11-25 upstream to a 2025-11-25 client byte for byte, only the id rewritten', async () => {
    for (const [tool, bytes] of [['text', MB], ['image', MB], ['text', 20 * MB], ['image', 20 * MB]] as const) {
      const id = `legacy-${tool}-${bytes}`;
      const got = await call('legacy', id, `legacy__${tool}`, { bytes });
      expect(got.status).toBe(200);
      expect(got.headers.get('content-length')).toBeNull();
      expect(got.headers.get('content-type')).toMatch(/^application\/json/);
      const expected = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`), resultBytes(up.legacy.lastAnswer()), Buffer.from('}')]);
      expect(got.body.equals(expected)).toBe(true);
      await expect.poll(() => recordOf(id)).toMatchObject({ outcome: 'ok', relayed: true, responseBytes: got.body.length });
      expect(recordOf(id)!.result).toBeUndefined();
    }
  });

  it('goes from a 2026-07-28 upstream to a 2026-07-28 client with its content bytes untouched and the gateway as serverInfo', async () => {
    for (const [tool, bytes] of [['text', MB], ['image', MB], ['text', 20 * MB], ['image', 20 * MB]] as const) {
      const id = `modern-${tool}-${bytes}`;
      const got = await call('modern', id, `modern__${tool}`, { bytes });
      expect(got.status).toBe(200);
      expect(got.headers.get('content-length')).toBeNull();
      const content = tool === 'text' ? { type: 'text', text: bigText(bytes) } : { type: 'image', data: bigImageData(bytes), mimeType: 'image/png' };
      const contentBytes = Buffer.from(`"content":[${JSON.stringify(content)}]`);
      // The upstream's own bytes of the content, as it wrote them, are in the reply.
      expect(up.modern.lastAnswer().includes(contentBytes)).toBe(true);
      expect(got.body.includes(contentBytes)).toBe(true);
      const message = JSON.parse(got.body.toString('utf8'));
      expect(message).toMatchObject({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': GATEWAY_SERVER_INFO } } });
      await expect.poll(() => recordOf(id)).toMatchObject({ outcome: 'ok', relayed: true, responseBytes: got.body.length });
    }
  });

  it('goes from the last event of an SSE answer into a JSON reply, byte for byte', async () => {
    for (const [tool, bytes] of [['text', MB], ['image', 20 * MB]] as const) {
      const id = `sse-${tool}-${bytes}`;
      const got = await call('legacy', id, `sse__${tool}`, { bytes });
      expect(got.headers.get('content-length')).toBeNull();
      expect(got.headers.get('content-type')).toMatch(/^application\/json/);
      const answer = up.legacySse.lastAnswer().toString('utf8');
      // The upstream's event: `event: message`, `id: …`, `data: {"result":…,"jsonrpc":"2.0","id":N}`.
      const data = Buffer.from(answer.slice(answer.indexOf('data: ') + 6, answer.lastIndexOf('\n\n')));
      const expected = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`), resultBytes(data), Buffer.from('}')]);
      expect(got.body.equals(expected)).toBe(true);
      await expect.poll(() => recordOf(id)).toMatchObject({ outcome: 'ok', relayed: true, responseBytes: got.body.length });
    }
  });

  it('goes into an SSE reply after the notifications that came first, as one event', async () => {
    for (const [era, name] of [['legacy', 'sse__progressed'], ['modern', 'modern__progressed']] as const) {
      const id = `progressed-${era}`;
      const got = await call(era, id, name, { bytes: 2 * MB }, { progressToken: `p-${era}` });
      expect(got.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = got.body.toString('utf8').split('\n\n').filter((e) => e.includes('data: '));
      const messages = events.map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
      expect(messages.map((m) => m.method ?? m.id)).toEqual(['notifications/progress', id]);
      expect(messages[1].result.content[0].text).toBe(bigText(2 * MB));
      await expect.poll(() => recordOf(id)).toMatchObject({ outcome: 'ok', relayed: true });
    }
  });

  it('is recorded as the tool error it is when it says isError', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const id = `failing-${era}`;
      const got = await call(era, id, `${era}__failing`, { bytes: MB });
      expect(got.status).toBe(200);
      expect(JSON.parse(got.body.toString('utf8')).result.isError).toBe(true);
      await expect.poll(() => recordOf(id)).toMatchObject({ outcome: 'tool_error', relayed: true });
    }
  });

  it('is parsed as before across eras, and below the relay size', async () => {
    for (const [era, name, bytes] of [['modern', 'legacy__text', MB], ['legacy', 'modern__text', MB], ['legacy', 'legacy__text', 1000]] as const) {
      const id = `buffered-${era}-${name}-${bytes}`;
      const got = await call(era, id, name, { bytes });
      expect(Number(got.headers.get('content-length'))).toBe(got.body.length);
      expect(JSON.parse(got.body.toString('utf8')).result.content[0].text).toBe(bigText(bytes));
      await expect.poll(() => recordOf(id)).toMatchObject({ outcome: 'ok' });
      expect(recordOf(id)!.relayed).toBeUndefined();
    }
  });
});

describe('a big result the gateway must read', () => {
  // The SDK servers check their own outputs; a gateway that withholds an invalid big result is
  // in big-results-hostile.test.ts, against an upstream that does not.
  it('is checked against its outputSchema, so it is read whole', async () => {
    const ok = await call('legacy', 'checked-good', 'legacy__checked', { bytes: MB, valid: true });
    expect(Number(ok.headers.get('content-length'))).toBe(ok.body.length);
    expect(JSON.parse(ok.body.toString('utf8')).result.structuredContent.rows).toHaveLength(MB / 10);
    await expect.poll(() => recordOf('checked-good')).toMatchObject({ outcome: 'ok' });
    expect(recordOf('checked-good')!.relayed).toBeUndefined();
  });

  it('is read whole when the audit trail records its digest', async () => {
    const got = await call('legacy', 'digested', 'legacy__progressed', { bytes: MB });
    expect(Number(got.headers.get('content-length'))).toBe(got.body.length);
    await expect.poll(() => recordOf('digested')).toMatchObject({ outcome: 'ok', result: { digest: expect.any(String) } });
    expect(recordOf('digested')!.relayed).toBeUndefined();
  });
});
