// A 2025-11-25 upstream that offers neither list_changed nor resource subscriptions may still
// send requests outside any call, on its GET stream (the gateway's session declares sampling,
// elicitation and roots): the gateway opens that stream anyway and answers such a request
// at once with -32601 on the default shared session, so the upstream never waits on a
// question nobody will answer (README, Protocol eras: requests outside a call;
// per-client-upstream-sessions.test.ts has `session: perClient`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';

let server: Sdk1Server;
let gw: TestGateway;

beforeAll(async () => {
  server = await startSdk1Server({ subscribe: false });
  gw = await startTestGateway(`upstreams:\n  - { name: plain, url: "${server.url}" }\n`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await server?.close();
});

describe('a legacy upstream with no list_changed and no subscriptions', () => {
  it('has its GET stream opened, and its request outside any call is refused at once with -32601', async () => {
    await expect.poll(() => server.methods.length).toBeGreaterThan(0);
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    const r = await client.callTool({ name: 'plain__test_unrelated_elicitation', arguments: {} });
    // Not -32001 (the upstream's own 10 s timeout): the gateway answered it.
    expect((r.content as Array<{ text: string }>)[0]!.text).toBe('error -32601');
    await client.close();
  });
});
