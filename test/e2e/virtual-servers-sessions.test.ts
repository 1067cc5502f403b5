// Virtual servers keep what is per endpoint apart (README, Virtual servers and overlays): a
// 2025-11-25 session belongs to the endpoint that made it (its id is 404 on every other, as
// an unknown id is: 2025-11-25, basic/transports, session management), and list_changed goes
// only to the listeners of an endpoint whose view changed. Real upstreams of both eras send
// the changes; real clients of both eras listen.
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let gw: TestGateway;

useGatewayBed({
  // Public, long-lived lists: only a list_changed can change a view during this file.
  upstream: () => startAll({ modern: startModernUpstream({ cacheHints: { 'tools/list': { ttlMs: 60_000, cacheScope: 'public' } } }), legacy: startLegacyUpstream() }),
  config: (up: { modern: ModernUpstream; legacy: LegacyUpstream }) => `
upstreams:
  - { name: modern, url: "${up.modern.url}" }
  - { name: legacy, url: "${up.legacy.url}", listTtl: 60s }
servers:
  # Draws from both, but never shows modern's "extra": only legacy's can change its view.
  - name: team-a
    upstreams: [modern, legacy]
    tools: { include: ["modern__*", legacy__extra], exclude: [modern__extra] }
  - name: solo
    upstreams: [modern]
    prefix: none
    tools: { include: [echo, extra] }
`,
  ready: (bed) => ({ upstream: { modern, legacy }, gw } = bed),
});

const initialize = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('legacy sessions', () => {
  it('a session id made on one server is 404 on another and on /mcp, and works where it was made', async () => {
    const init = await postJson(gw.servers['team-a']!, initialize(1), LEGACY_HEADERS);
    expect(init.status).toBe(200);
    const id = init.headers.get('mcp-session-id')!;
    const withSession = { ...LEGACY_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await postJson(gw.servers['team-a']!, list, withSession)).status).toBe(200);
    const unknown = await postJson(gw.servers.solo!, list, { ...withSession, 'mcp-session-id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    for (const other of [gw.servers.solo!, gw.url]) {
      const res = await postJson(other, list, withSession);
      expect(res.status).toBe(404);
      expect(res.json).toEqual(unknown.json);
    }
    // GET and DELETE too: the id is as unknown there as any other.
    expect((await fetch(gw.servers.solo!, { method: 'DELETE', headers: withSession })).status).toBe(404);
    expect((await fetch(gw.servers['team-a']!, { method: 'DELETE', headers: withSession })).status).toBe(204);
  });

  it('a /mcp session is unknown on a server', async () => {
    const init = await postJson(gw.url, initialize(3), LEGACY_HEADERS);
    const id = init.headers.get('mcp-session-id')!;
    const res = await postJson(gw.servers.solo!, { jsonrpc: '2.0', id: 4, method: 'ping' }, { ...LEGACY_HEADERS, 'mcp-session-id': id });
    expect(res.status).toBe(404);
  });

  it('an SDK client initializes on a server and keeps using its session there', async () => {
    const client = await connectLegacyClient(gw.servers.solo!);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect((await client.callTool({ name: 'echo', arguments: { message: 'again' } })).content).toEqual([{ type: 'text', text: 'again' }]);
    await client.close();
  });
});

describe('list_changed', () => {
  const seen = { solo: 0, teamA: 0, teamALegacy: 0, root: 0 };
  // In-process listeners beside the clients' streams: the gateway delivers to them at once, so
  // what they did not get by the time another endpoint's arrived, they were never sent.
  const direct: Record<string, number> = { solo: 0, 'team-a': 0, '/mcp': 0 };
  const clients: (ModernClient | LegacyClient)[] = [];
  const removers: (() => void)[] = [];

  beforeAll(async () => {
    // The gateway's own upstream notification streams must be open before anything changes.
    await vi.waitUntil(() => legacy.openGetStreams() > 0 && modern.openListenStreams() > 0, { timeout: 5000, interval: 10 });
    const [solo, teamA, root] = await Promise.all([connectModernClient(gw.servers.solo!), connectModernClient(gw.servers['team-a']!), connectModernClient(gw.url)]);
    const teamALegacy = await connectLegacyClient(gw.servers['team-a']!);
    clients.push(solo, teamA, root, teamALegacy);
    solo.setNotificationHandler('notifications/tools/list_changed', () => void seen.solo++);
    teamA.setNotificationHandler('notifications/tools/list_changed', () => void seen.teamA++);
    root.setNotificationHandler('notifications/tools/list_changed', () => void seen.root++);
    teamALegacy.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.teamALegacy++);
    await Promise.all([solo, teamA, root].map((c) => c.listen({ toolsListChanged: true })));
    for (const server of ['solo', 'team-a', undefined]) {
      const remove = gw.notifier.add({ wants: new Set(['tools']), deliver: () => void direct[server ?? '/mcp']!++, ...(server === undefined ? {} : { server }) });
      removers.push(remove!);
    }
    // Every endpoint has served its list once: what a change is compared with.
    await Promise.all([solo.listTools(), teamA.listTools(), root.listTools(), teamALegacy.listTools()]);
    // Three listen streams and the legacy client's GET stream.
    await vi.waitUntil(() => gw.notifier.size() >= 7, { timeout: 10_000, interval: 10 });
  });

  afterAll(async () => {
    for (const remove of removers) remove();
    await Promise.all(clients.map((c) => c.close()));
  });

  it('goes to solo and /mcp when modern adds "extra", and not to team-a, which leaves it out', async () => {
    modern.setExtraTool(true);
    await expect.poll(() => direct.solo, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => direct['/mcp'], { timeout: 10_000 }).toBe(1);
    // team-a compared its view in the same turn as solo (one shared fetch): nothing changed for it.
    expect(direct['team-a']).toBe(0);
    await expect.poll(() => seen.solo, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => seen.root, { timeout: 10_000 }).toBe(1);
    const solo = clients[0] as ModernClient;
    expect((await solo.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'extra']);
  });

  it('goes to team-a (both eras) when legacy adds the one it selects, once: the earlier change never reached it', async () => {
    legacy.setExtraTool(true);
    await expect.poll(() => direct['team-a'], { timeout: 10_000 }).toBe(1);
    await expect.poll(() => seen.teamA, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => seen.teamALegacy, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => seen.root, { timeout: 10_000 }).toBe(2);
    const teamA = clients[1] as ModernClient;
    expect((await teamA.listTools()).tools.map((t) => t.name)).toContain('legacy__extra');
    // solo draws nothing from legacy.
    expect(direct.solo).toBe(1);
  });
});
