// resources/subscribe through Gatehouse for 2025-11-25 clients, end to end: a real SDK 1.x
// client, the gateway, and a real SDK 1.x server that takes subscriptions. The subscription
// reaches the owning upstream under its own URI, once however many sessions subscribe; the
// upstream's notifications/resources/updated reach each subscribed session under the URI it
// used; resources.subscribe is advertised only when an upstream offers it (MCP 2025-11-25,
// server/resources (subscriptions)).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';

const WATCHED = 'test://watched-resource';

let server: Sdk1Server;
let plain: LegacyUpstream;
let gw: TestGateway;
let without: TestGateway;
const clients: LegacyClient[] = [];

beforeAll(async () => {
  [server, plain] = await Promise.all([startSdk1Server(), startLegacyUpstream()]);
  gw = await startTestGateway(`upstreams:\n  - { name: subs, url: "${server.url}" }\n  - { name: old, url: "${plain.url}" }\n`);
  without = await startTestGateway(`upstreams:\n  - { name: old, url: "${plain.url}" }\n`);
  await Promise.all([gw.waitUp(), without.waitUp()]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([gw?.close(), without?.close()]);
  await Promise.all([server?.close(), plain?.close()]);
});

async function client(url = gw.url): Promise<{ c: LegacyClient; updates: string[] }> {
  const c = await connectLegacyClient(url);
  clients.push(c);
  const updates: string[] = [];
  c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  return { c, updates };
}

async function exposedWatchedUri(c: LegacyClient): Promise<string> {
  const { resources } = await c.listResources();
  const watched = resources.find((r) => r.uri.endsWith('watched-resource'));
  expect(watched).toBeDefined();
  return watched!.uri;
}

describe('resources/subscribe for 2025-11-25 sessions', () => {
  it('advertises resources.subscribe when an upstream offers it, and not otherwise', async () => {
    const { c } = await client();
    expect(c.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const other = await client(without.url);
    expect(other.c.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
  });

  it('subscribes the owning upstream once under its own URI and relays its updates to every subscribed session', async () => {
    const a = await client();
    const b = await client();
    const uri = await exposedWatchedUri(a.c);
    const before = server.methods.filter((m) => m === 'resources/subscribe').length;
    expect(await a.c.subscribeResource({ uri })).toEqual({});
    expect(await b.c.subscribeResource({ uri })).toEqual({});
    expect(server.methods.filter((m) => m === 'resources/subscribe').length).toBe(before + 1);
    await server.resourceUpdated(WATCHED);
    await expect.poll(() => [a.updates, b.updates]).toEqual([[uri], [uri]]);
    await Promise.all([a.c.unsubscribeResource({ uri }), b.c.unsubscribeResource({ uri })]);
  });

  it('drops the subscriptions of a session that ends, releasing the upstream', async () => {
    const a = await client();
    const uri = await exposedWatchedUri(a.c);
    await a.c.subscribeResource({ uri });
    const unsubscribes = () => server.methods.filter((m) => m === 'resources/unsubscribe').length;
    const before = unsubscribes();
    await (a.c.transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
    await expect.poll(unsubscribes).toBe(before + 1);
  });

  it('unsubscribes the upstream only when the last session unsubscribes, and then relays nothing more', async () => {
    const a = await client();
    const b = await client();
    const uri = await exposedWatchedUri(a.c);
    await a.c.subscribeResource({ uri });
    await b.c.subscribeResource({ uri });
    const unsubscribes = () => server.methods.filter((m) => m === 'resources/unsubscribe').length;
    const before = unsubscribes();
    expect(await a.c.unsubscribeResource({ uri })).toEqual({});
    expect(unsubscribes()).toBe(before);
    await server.resourceUpdated(WATCHED);
    await expect.poll(() => b.updates).toEqual([uri]);
    expect(a.updates).toEqual([]);
    await b.c.unsubscribeResource({ uri });
    expect(unsubscribes()).toBe(before + 1);
  });

  it('answers a resource no upstream has as not found, and one whose upstream takes no subscriptions with a clear error', async () => {
    const { c } = await client();
    await expect(c.subscribeResource({ uri: 'test://no-such-resource' })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/not found/i) });
    const { resources } = await c.listResources();
    const plainUri = resources.find((r) => r.uri.includes('readme'))!.uri;
    await expect(c.subscribeResource({ uri: plainUri })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/not offered/) });
  });
});
