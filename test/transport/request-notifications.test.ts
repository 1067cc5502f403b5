// Which of an upstream's notifications about a request reach its client (MCP 2026-07-28, basic/transports/streamable-http (responses),
// README, Protocol eras: bridging step 6), end to end: a scripted 2025-11-25 upstream answers a tools/call with log
// messages at three levels and a 2025-only notification before the result, and the gateway
// relays to each client era only what that client asked for.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { SSE_HEADERS, sseEvent, startScriptedServer, type ScriptedRequest, type ScriptedServer } from '../upstream/scripted-server.ts';
import { useOneUpstreamBed } from '../harness/gateway-bed.ts';

let upstream: ScriptedServer;
let gw: TestGateway;

/** tools/call: three log messages, a 2025-only notification, then the result, on one SSE stream. */
function chatty(r: ScriptedRequest, res: ServerResponse): Record<string, unknown> | undefined {
  if (r.method === 'tools/list') return { tools: [{ name: 'chatty', inputSchema: { type: 'object' } }] };
  if (r.method !== 'tools/call') return {};
  res.writeHead(200, SSE_HEADERS);
  for (const level of ['debug', 'info', 'warning']) {
    res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/message', params: { level, data: `a ${level} line` } }));
  }
  res.write(sseEvent({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'e1' } }));
  res.end(sseEvent({ jsonrpc: '2.0', id: r.id, result: { content: [{ type: 'text', text: 'done' }] } }));
  return undefined;
}

/** The JSON-RPC messages of an SSE body (or the one JSON body). */
function messages(text: string): { method?: string; params?: { level?: string }; result?: unknown }[] {
  if (text.trimStart().startsWith('{')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)));
}

const levels = (ms: ReturnType<typeof messages>) => ms.filter((m) => m.method === 'notifications/message').map((m) => m.params?.level);

useOneUpstreamBed('up', () => startScriptedServer({ script: chatty }), (bed) => ({ upstream, gw } = bed));

describe('notifications about a request', () => {
  it('a 2026-07-28 client that set no logLevel gets no log messages, and no 2025-only notification', async () => {
    const res = await postJson(gw.url, modernBody(1, 'tools/call', { name: 'up__chatty', arguments: {} }), modernHeaders('tools/call', 'up__chatty'));
    const ms = messages(res.text);
    expect(levels(ms)).toEqual([]);
    expect(ms.map((m) => m.method).filter(Boolean)).toEqual([]);
    expect(ms.at(-1)?.result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
  });

  it('a 2026-07-28 client with logLevel info gets info and above, and still no 2025-only notification', async () => {
    const body = modernBody(2, 'tools/call', { name: 'up__chatty', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } });
    const res = await postJson(gw.url, body, modernHeaders('tools/call', 'up__chatty'));
    const ms = messages(res.text);
    expect(levels(ms)).toEqual(['info', 'warning']);
    expect(ms.some((m) => m.method === 'notifications/elicitation/complete')).toBe(false);
  });

  it('a 2025-11-25 session gets everything until it sets a level, then only that level and above', async () => {
    const init = await postJson(
      gw.url,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    );
    const session = init.headers.get('mcp-session-id')!;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await postJson(gw.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const call = async (id: number) => messages((await postJson(gw.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'up__chatty', arguments: {} } }, headers)).text);
    const before = await call(2);
    expect(levels(before)).toEqual(['debug', 'info', 'warning']);
    expect(before.some((m) => m.method === 'notifications/elicitation/complete')).toBe(true);
    const set = await postJson(gw.url, { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'warning' } }, headers);
    expect(set.json?.error ?? messages(set.text).at(-1)).not.toHaveProperty('code');
    expect(levels(await call(4))).toEqual(['warning']);
  });
});
