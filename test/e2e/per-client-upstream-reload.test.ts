// `session` is live config: a reload that turns an upstream from the shared session to
// perClient replaces its connection (README, Reloading the configuration), and the next call
// of a client already connected gets an upstream session of its own, on which a question
// outside the call reaches it; turned back to shared, that upstream session is closed.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';
import { auditEvents, startTestGateway, type TestGateway } from '../harness/gateway.ts';

let server: Sdk1Server;
let gw: TestGateway;

const config = (session: string): string => `upstreams:\n  - { name: pc, url: "${server.url}", session: ${session} }\n`;

beforeAll(async () => {
  server = await startSdk1Server({ subscribe: false });
  gw = await startTestGateway(config('shared'), process.env, { reload: true });
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await server?.close();
});

async function reloaded(times: number): Promise<void> {
  await expect.poll(() => auditEvents(gw).filter((e) => e.event === 'config_reload' && e.detail.result === 'applied').length, { timeout: 10_000 }).toBe(times);
}

describe('reloading session: shared <-> perClient', () => {
  it('counts a legacy session up only once its GET stream is open', () => {
    // A question sent outside a call before the stream opens is dropped by the server (SDK
    // 1.x), and the call would time out (-32001) instead of getting the gateway's refusal.
    expect(server.getStreamCount()).toBe(1);
  });

  it('relays outside-call questions only while perClient is in force', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
    const call = async (): Promise<string> => ((await client.callTool({ name: 'pc__test_unrelated_elicitation', arguments: {} })).content as Array<{ text: string }>)[0]!.text;
    expect(await call()).toBe('error -32601');

    writeFileSync(gw.config.file, config('perClient'));
    await reloaded(1);
    await expect.poll(() => gw.upstreams[0]?.status().state).toBe('up');
    expect(await call()).toBe('answered accept');
    const withOwn = server.sessionCount();

    writeFileSync(gw.config.file, config('shared'));
    await reloaded(2);
    await expect.poll(() => gw.upstreams[0]?.status().state).toBe('up');
    expect(await call()).toBe('error -32601');
    // The retired perClient connection closed its sessions, the client's own among them.
    await expect.poll(() => server.sessionCount()).toBeLessThan(withOwn);
    await client.close();
  });
});
