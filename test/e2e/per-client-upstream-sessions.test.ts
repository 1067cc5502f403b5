// `session: perClient`: a 2025-11-25 upstream's request outside any call (on its GET stream)
// reaches the one client whose upstream session it came on, on that client's own GET stream,
// under the gateway's id, and the answer goes back upstream (README, Protocol eras: requests
// outside a call). Each upstream session declares its client's capabilities and ends with the
// client's session. The fixture's test_unrelated_elicitation tool asks with server.request
// (no related request), so its SDK sends the question on the GET stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, connectModernClient, type LegacyClient } from '../fixtures/clients.ts';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';

let server: Sdk1Server;
let gw: TestGateway;
const opened: LegacyClient[] = [];

beforeAll(async () => {
  server = await startSdk1Server({ subscribe: false });
  gw = await startTestGateway(`upstreams:\n  - { name: pc, url: "${server.url}", session: perClient }\n`);
  await gw.waitUp();
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
  await gw?.close();
  await server?.close();
});

/** A legacy client that answers elicitations with `action`, counting the questions it got. */
async function answeringClient(action: 'accept' | 'decline', capabilities: Record<string, unknown> = { elicitation: {} }): Promise<{ client: LegacyClient; asked: string[] }> {
  const client = await connectLegacyClient(gw.url, { capabilities });
  opened.push(client);
  const asked: string[] = [];
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return action === 'accept' ? { action, content: { name: 'Ada' } } : { action };
    });
  }
  return { client, asked };
}

function text(r: unknown): string {
  return ((r as { content: Array<{ text: string }> }).content)[0]!.text;
}

describe('an upstream with session: perClient', () => {
  it("sends each client's GET-stream question to that client alone, and relays its answer upstream", async () => {
    const a = await answeringClient('accept');
    const b = await answeringClient('decline');
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: 'pc__test_unrelated_elicitation', arguments: {} }),
      b.client.callTool({ name: 'pc__test_unrelated_elicitation', arguments: {} }),
    ]);
    expect(text(ra)).toBe('answered accept');
    expect(text(rb)).toBe('answered decline');
    expect(a.asked).toEqual(['Unrelated?']);
    expect(b.asked).toEqual(['Unrelated?']);
  });

  it('declares to the upstream what the client declared (no more)', async () => {
    const before = server.clientCapabilities().length;
    const c = await answeringClient('accept', { elicitation: { form: {} }, roots: { listChanged: true } });
    await c.client.callTool({ name: 'pc__test_unrelated_elicitation', arguments: {} });
    await expect.poll(() => server.clientCapabilities().length).toBe(before + 1);
    expect(server.clientCapabilities()).toContainEqual({ elicitation: { form: {} }, roots: {} });
  });

  it('refuses a question the client cannot answer at once upstream (it declared no elicitation): no hang', async () => {
    const c = await answeringClient('accept', {});
    const r = await c.client.callTool({ name: 'pc__test_unrelated_elicitation', arguments: {} });
    // -32601 from the gateway at once, not -32001 (the upstream's own timeout).
    expect(text(r)).toBe('error -32601');
    expect(c.asked).toEqual([]);
  });

  it('closes the upstream session when the client ends its session', async () => {
    const c = await answeringClient('accept');
    const before = server.sessionCount();
    await c.client.callTool({ name: 'pc__test_unrelated_elicitation', arguments: {} });
    expect(server.sessionCount()).toBe(before + 1);
    await (c.client.transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
    await expect.poll(() => server.sessionCount()).toBe(before);
  });

  it('serves a 2026-07-28 client on the shared session, where a question outside the call is refused (-32601)', async () => {
    const client = await connectModernClient(gw.url, { capabilities: { elicitation: {} } });
    const r = await client.callTool({ name: 'pc__test_unrelated_elicitation', arguments: {} });
    expect(text(r)).toBe('error -32601');
    await client.close();
  });
});
