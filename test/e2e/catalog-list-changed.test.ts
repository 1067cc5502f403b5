// list_changed end to end (MCP 2026-07-28, server/utilities/caching, README, Protocol eras: bridging step 5/8): an upstream's
// notification drops the gateway's cached part at once (the list is re-fetched long before
// its ttl ends), and reaches downstream clients: modern ones on subscriptions/listen
// (acknowledgement first, only what they asked for, tagged with their listen id), legacy
// ones on their session GET stream.
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream, type ReceivedRequest } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let gw: TestGateway;
let modernClient: ModernClient;
let legacyClient: LegacyClient;
const streams: SseMessages[] = [];
let nextId = 1;

function count(received: readonly ReceivedRequest[], method: string): number {
  return received.filter((r) => (r.body as { method?: string } | undefined)?.method === method).length;
}

async function toolNames(): Promise<string[]> {
  const res = await postJson(gw.url, modernBody(nextId++, 'tools/list'), modernHeaders('tools/list'));
  return res.json.result.tools.map((t: { name: string }) => t.name);
}

/** A raw subscriptions/listen stream; every SSE message it carries lands in the array. */
async function rawListen(id: string, notifications: Record<string, boolean>): Promise<any[]> {
  const { response, sse } = await openSse(gw.url, {
    method: 'POST',
    headers: modernHeaders('subscriptions/listen'),
    body: JSON.stringify(modernBody(id, 'subscriptions/listen', { notifications })),
  });
  streams.push(sse);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return sse.messages;
}

useGatewayBed({
  upstream: () =>
    startAll({
      // Long ttls: only a list_changed can explain a re-fetch within this test.
      modern: startModernUpstream({ cacheHints: { 'tools/list': { ttlMs: 60_000, cacheScope: 'public' } } }),
      legacy: startLegacyUpstream(),
    }),
  config: (up) => `
upstreams:
  - name: modern
    url: ${up.modern.url}
  - name: legacy
    url: ${up.legacy.url}
    listTtl: 60s
`,
  ready: (bed) => ({ upstream: { modern, legacy }, gw } = bed),
});

beforeAll(async () => {
  // The gateway's own upstream notification streams must be open before anything changes:
  // the legacy fixture drops list_changed while no GET stream is open (SDK-NOTES.md), and
  // the modern one only notifies registered listen streams.
  await vi.waitUntil(() => legacy.openGetStreams() > 0 && modern.openListenStreams() > 0, { timeout: 5000, interval: 10 });
  [modernClient, legacyClient] = await Promise.all([connectModernClient(gw.url), connectLegacyClient(gw.url)]);
});

afterAll(async () => {
  for (const s of streams) s.close();
  await Promise.all([modernClient?.close(), legacyClient?.close()]);
});

describe('tools list_changed', () => {
  const modernSeen: any[] = [];
  const legacySeen: any[] = [];
  let toolsStream: any[];
  let promptsStream: any[];
  let subscription: Awaited<ReturnType<ModernClient['listen']>>;

  beforeAll(async () => {
    modernClient.setNotificationHandler('notifications/tools/list_changed', (n) => void modernSeen.push(n));
    legacyClient.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void legacySeen.push(n));
    subscription = await modernClient.listen({ toolsListChanged: true });
    toolsStream = await rawListen('raw-tools', { toolsListChanged: true, promptsListChanged: false });
    promptsStream = await rawListen('raw-prompts', { promptsListChanged: true });
    // SDK modern listen + legacy GET stream + two raw listens: this gateway has no others. (The
    // legacy client opens its GET stream on its own schedule, so count all, not a difference.)
    await vi.waitUntil(() => gw.notifier.size() >= 4, { timeout: 10_000, interval: 10 });
  });

  it('acknowledges a listen first, with the honoured subset, tagged with the listen id', async () => {
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    await expect.poll(() => toolsStream.length > 0 && promptsStream.length > 0, { message: 'both raw acknowledgements', timeout: 5000 }).toBe(true);
    expect(toolsStream[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUBSCRIPTION_ID]: 'raw-tools' }, notifications: { toolsListChanged: true } },
    });
    expect(promptsStream[0].params).toEqual({ _meta: { [SUBSCRIPTION_ID]: 'raw-prompts' }, notifications: { promptsListChanged: true } });
  });

  it('serves the cached list while nothing changed', async () => {
    // Nothing listed tools before this test: one fetch per upstream, the gateway's own when
    // the upstream came up (catalog/list-warm.ts), then the cache.
    const fetched = (): number[] => [count(modern.received, 'tools/list'), count(legacy.received, 'tools/list')];
    await expect.poll(fetched).toEqual([1, 1]);
    const names = await toolNames();
    expect(await toolNames()).toEqual(names);
    expect(names).not.toContain('modern__extra');
    await toolNames();
    expect(fetched()).toEqual([1, 1]);
  });

  it('re-fetches a modern upstream at once after its list_changed and tells every listener', async () => {
    const before = { m: count(modern.received, 'tools/list'), l: count(legacy.received, 'tools/list') };
    const seen = { modern: modernSeen.length, legacy: legacySeen.length, raw: toolsStream.length };
    modern.setExtraTool(true);
    await expect.poll(() => modernSeen.length, { message: 'the modern SDK client notification', timeout: 5000 }).toBeGreaterThan(seen.modern);
    await expect.poll(() => legacySeen.length, { message: 'the legacy SDK client notification', timeout: 5000 }).toBeGreaterThan(seen.legacy);
    await expect.poll(() => toolsStream.length, { message: 'the raw listen notification', timeout: 5000 }).toBeGreaterThan(seen.raw);

    expect(modernSeen.at(-1).params._meta[SUBSCRIPTION_ID]).toMatch(/^listen:\d+$/);
    expect(legacySeen.at(-1).method).toBe('notifications/tools/list_changed');
    expect(toolsStream.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: 'raw-tools' } } });

    const names = await toolNames();
    expect(names.filter((n) => n === 'modern__extra')).toHaveLength(1);
    expect(names.indexOf('modern__extra')).toBeLessThan(names.indexOf('legacy__echo'));
    expect(count(modern.received, 'tools/list') - before.m).toBe(1);
    // Only the part that changed is fetched again.
    expect(count(legacy.received, 'tools/list') - before.l).toBe(0);
  });

  it('re-fetches a legacy upstream at once after its list_changed and tells every listener', async () => {
    const before = { m: count(modern.received, 'tools/list'), l: count(legacy.received, 'tools/list') };
    const seen = { modern: modernSeen.length, legacy: legacySeen.length };
    legacy.setExtraTool(true);
    await expect.poll(() => modernSeen.length, { message: 'the modern SDK client notification', timeout: 5000 }).toBeGreaterThan(seen.modern);
    await expect.poll(() => legacySeen.length, { message: 'the legacy SDK client notification', timeout: 5000 }).toBeGreaterThan(seen.legacy);

    const names = await toolNames();
    expect(names.at(-1)).toBe('legacy__extra');
    expect(names).toContain('modern__extra');
    expect(count(legacy.received, 'tools/list') - before.l).toBe(1);
    expect(count(modern.received, 'tools/list') - before.m).toBe(0);
    const called = await modernClient.callTool({ name: 'legacy__extra', arguments: {} });
    expect(called.content).toEqual([{ type: 'text', text: 'extra' }]);
  });

  it('sends nothing to a listener that asked only for prompts', async () => {
    // A prompts change now goes to it behind anything the tools changes above sent it.
    gw.notifier.publish('prompts');
    await expect.poll(() => promptsStream.length, { timeout: 5000 }).toBeGreaterThan(1);
    expect(promptsStream.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/prompts/list_changed']);
  });

  it('lets the 2.x client re-list after the notification and see the change', async () => {
    const all = await modernClient.listTools();
    expect(all.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['modern__extra', 'legacy__extra']));
  });
});
