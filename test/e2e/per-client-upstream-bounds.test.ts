// The bounds of `session: perClient`: maxClientSessions upstream sessions at once (an idle one
// is closed for a new client; when all are busy the call is refused with 503, never sent on
// another client's session), and a client with no GET stream open is not waited on: the
// upstream's question outside the call gets an error at once (README, Protocol eras).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';
import { auditRequests, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';

let server: Sdk1Server;
let gw: TestGateway;

beforeAll(async () => {
  server = await startSdk1Server({ subscribe: false });
  gw = await startTestGateway(`upstreams:\n  - { name: pc, url: "${server.url}", session: perClient, maxClientSessions: 1 }\n`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await server?.close();
});

function text(r: unknown): string {
  return (r as { content: Array<{ text: string }> }).content[0]!.text;
}

const CALL = { name: 'pc__test_unrelated_elicitation', arguments: {} };

/** The JSON-RPC response in a POST's body, JSON or SSE. */
async function rpc(res: Response): Promise<any> {
  const body = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(body);
  const datas = body.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  return datas.find((m) => 'id' in m && ('result' in m || 'error' in m));
}

describe('session: perClient with maxClientSessions: 1', () => {
  it('refuses a second client while the one session has a call in flight, and closes it for the next client once idle', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    const a: LegacyClient = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    a.setRequestHandler(ElicitRequestSchema, async () => {
      asked();
      await released;
      return { action: 'accept', content: {} };
    });
    const b: LegacyClient = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    b.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));

    const first = a.callTool(CALL);
    await wasAsked;
    // 503 with -31030 (over_capacity): the SDK client surfaces the HTTP status.
    await expect(b.callTool(CALL)).rejects.toMatchObject({ code: 503 });
    release();
    expect(text(await first)).toBe('answered accept');
    const held = server.sessionCount();
    // a's session is idle now: it is closed, and b gets the one place.
    expect(text(await b.callTool(CALL))).toBe('answered decline');
    expect(server.sessionCount()).toBe(held);
    // The refusal is audited and counted, once, under the limit's name.
    await expect.poll(() => auditRequests(gw).some((r) => r.limit === 'maxClientSessions')).toBe(true);
    expect(await metricValue(gw.url, 'gatehouse_limit_hits_total', { limit: 'maxClientSessions' })).toBe(1);
    await a.close();
    await b.close();
  });

  it('answers the upstream at once when the client has no GET stream to be asked on', async () => {
    const post = (body: object, session?: string) =>
      fetch(gw.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}) },
        body: JSON.stringify(body),
      });
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'raw', version: '1' } } });
    const session = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).body?.cancel();
    const answer = await rpc(await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: CALL }, session));
    // -32603 from the gateway (nobody to ask), not the upstream's own 10 s timeout (-32001).
    expect(answer.result.content[0].text).toBe('error -32603');
    await fetch(gw.url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
  });
});
