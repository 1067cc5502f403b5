// Resource subscriptions across eras (README, Protocol eras: bridging): a 2026-07-28 client's
// `subscriptions/listen` `resourceSubscriptions` reach the owning upstream (a 2026-07-28
// upstream as resourceSubscriptions of the gateway's own listen stream to it, a 2025-11-25 one
// as resources/subscribe), and a 2025-11-25 session's resources/subscribe reaches a
// 2026-07-28 upstream the same way; each upstream's notifications/resources/updated reach
// every subscriber, tagged with its listen's subscriptionId (MCP 2026-07-28,
// basic/patterns/subscriptions).
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';

const MODERN_URI = 'mem://modern/only';
const LEGACY_URI = 'test://watched-resource';

let modern: ModernUpstream;
let legacy: Sdk1Server;
let gw: TestGateway;

beforeAll(async () => {
  [modern, legacy] = await Promise.all([startModernUpstream({ name: 'm', subscribable: true }), startSdk1Server()]);
  gw = await startTestGateway(`upstreams:\n  - { name: m, url: "${modern.url}" }\n  - { name: subs, url: "${legacy.url}" }\n`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([modern?.close(), legacy?.close()]);
});

/** The resourceSubscriptions of the gateway's latest listen stream to the modern upstream. */
function upstreamListenUris(): unknown {
  const listens = modern.received.filter((q) => (q.body as any)?.method === 'subscriptions/listen');
  return (listens.at(-1)?.body as any)?.params?.notifications?.resourceSubscriptions ?? [];
}

describe('a 2026-07-28 client listening for resource updates', () => {
  it('sees resources.subscribe in discover, and is told which resourceSubscriptions were honoured', async () => {
    const client = await connectModernClient(gw.url);
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const sub = await client.listen({ resourceSubscriptions: [MODERN_URI, 'mem://nowhere/at-all'] });
    expect(sub.honoredFilter.resourceSubscriptions).toEqual([MODERN_URI]);
    await sub.close();
    await client.close();
  });

  it('gets a 2026-07-28 upstream\'s updates for the URI it asked for, tagged with its subscription id', async () => {
    const client = await connectModernClient(gw.url);
    const updates: Array<{ uri: string; id: unknown }> = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push({ uri: n.params.uri, id: (n.params._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/subscriptionId'] });
    });
    const sub = await client.listen({ resourceSubscriptions: [MODERN_URI] });
    // The gateway's own listen to the upstream now asks for that URI.
    await expect.poll(upstreamListenUris).toEqual([MODERN_URI]);
    // Sent again until it arrives: the upstream listens on the stream it reopened only once that answered.
    await expect.poll(() => (modern.updateResource(MODERN_URI), updates.length)).toBeGreaterThan(0);
    expect(new Set(updates.map((u) => u.uri))).toEqual(new Set([MODERN_URI]));
    expect(updates[0]!.id).toBeDefined();
    await sub.close();
    // The last subscriber gone: the upstream listen no longer asks for it.
    await expect.poll(upstreamListenUris).toEqual([]);
    await client.close();
  });

  it('gets a 2025-11-25 upstream\'s updates: the gateway subscribes it with resources/subscribe, and unsubscribes when the listen ends', async () => {
    const client = await connectModernClient(gw.url);
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
    const subscribes = () => legacy.methods.filter((m) => m === 'resources/subscribe').length;
    const unsubscribes = () => legacy.methods.filter((m) => m === 'resources/unsubscribe').length;
    const [before, beforeUn] = [subscribes(), unsubscribes()];
    const sub = await client.listen({ resourceSubscriptions: [LEGACY_URI] });
    expect(sub.honoredFilter.resourceSubscriptions).toEqual([LEGACY_URI]);
    expect(subscribes()).toBe(before + 1);
    await legacy.resourceUpdated(LEGACY_URI);
    await expect.poll(() => updates).toEqual([LEGACY_URI]);
    await sub.close();
    await expect.poll(unsubscribes).toBe(beforeUn + 1);
    await client.close();
  });
});

describe('a 2025-11-25 session subscribing to a 2026-07-28 upstream\'s resource', () => {
  it('resources/subscribe becomes the upstream listen\'s resourceSubscriptions, and updates reach the session\'s GET stream', async () => {
    const client = await connectLegacyClient(gw.url);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    expect(await client.subscribeResource({ uri: MODERN_URI })).toEqual({});
    await expect.poll(upstreamListenUris).toEqual([MODERN_URI]);
    await expect.poll(() => (modern.updateResource(MODERN_URI), updates.length)).toBeGreaterThan(0);
    expect(new Set(updates)).toEqual(new Set([MODERN_URI]));
    await client.unsubscribeResource({ uri: MODERN_URI });
    await expect.poll(upstreamListenUris).toEqual([]);
    await client.close();
  });
});
