// Behaviour of the e2e fixtures that the gateway tests lean on: list_changed delivery,
// progress, cancellation, elicitation in both eras, session loss, era negotiation.
import { afterEach, describe, expect, it } from 'vitest';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream } from '../fixtures/modern-upstream.ts';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function legacyPair() {
  const upstream = await startLegacyUpstream();
  const client = await connectLegacyClient(upstream.url, { capabilities: { elicitation: {} } });
  cleanups.push(() => upstream.close(), () => client.close());
  return { upstream, client };
}

async function modernPair() {
  const upstream = await startModernUpstream();
  const client = await connectModernClient(upstream.url, { capabilities: { elicitation: { form: {} } } });
  cleanups.push(() => upstream.close(), () => client.close());
  return { upstream, client };
}

describe('legacy upstream behaviour', () => {
  it('delivers tools list_changed on the GET stream after setExtraTool(true)', async () => {
    const { upstream, client } = await legacyPair();
    const seen: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => {
      seen.push(n.method);
    });
    await expect.poll(() => upstream.openGetStreams(), { timeout: 3000 }).toBe(1);
    upstream.setExtraTool(true);
    await expect.poll(() => seen.length, { timeout: 3000 }).toBeGreaterThan(0);
    expect(seen).toEqual(['notifications/tools/list_changed']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('extra');
  });

  it('sends progress for slow when a progressToken is given', async () => {
    const { client } = await legacyPair();
    const progress: number[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { ms: 30, steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(progress).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: 'text', text: 'slept 30ms' }]);
  });

  it('records a slow call cancelled with notifications/cancelled', async () => {
    const { upstream, client } = await legacyPair();
    const abort = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { ms: 5000 } }, undefined, { signal: abort.signal });
    await expect.poll(() => upstream.received.some((r) => (r.body as { params?: { name?: string } })?.params?.name === 'slow'), { timeout: 3000 }).toBe(true);
    abort.abort('user stop');
    await expect(call).rejects.toThrow();
    await expect.poll(() => upstream.cancelled.length, { timeout: 3000 }).toBe(1);
    const cancel = upstream.received.find((r) => (r.body as { method?: string })?.method === 'notifications/cancelled');
    expect((cancel?.body as { params: { requestId: unknown } }).params.requestId).toBe(upstream.cancelled[0]);
  });

  it('runs elicit through a server-initiated elicitation/create', async () => {
    const { client } = await legacyPair();
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      expect(req.params.message).toBe('What is your name?');
      return { action: 'accept', content: { name: 'lee' } };
    });
    const result = await client.callTool({ name: 'elicit', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'hello lee' }]);
  });

  it('answers 404 to an old session id after dropSessions()', async () => {
    const { upstream, client } = await legacyPair();
    const [oldId] = upstream.sessionIds();
    await upstream.dropSessions();
    expect(upstream.sessionIds()).toEqual([]);
    await expect(client.listTools()).rejects.toThrow(/404|Session not found/);
    const raw = await fetch(upstream.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': oldId ?? '' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(404);
  });

  it('is reached by a 2.x client in auto mode as a legacy server', async () => {
    const upstream = await startLegacyUpstream();
    cleanups.push(() => upstream.close());
    const client = await connectModernClient(upstream.url, { negotiation: 'auto' });
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'across eras' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'across eras' }]);
  });
});

describe('modern upstream behaviour', () => {
  it('delivers tools list_changed on a subscriptions/listen stream', async () => {
    const { upstream, client } = await modernPair();
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    const seen: unknown[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => {
      seen.push(n.params?._meta);
    });
    upstream.setExtraTool(true);
    await expect.poll(() => seen.length, { timeout: 3000 }).toBeGreaterThan(0);
    expect(seen).toEqual([{ 'io.modelcontextprotocol/subscriptionId': 'listen:0' }]);
    const { tools } = await client.listTools({}, { cacheMode: 'refresh' });
    expect(tools.map((t) => t.name)).toContain('extra');
    await subscription.close();
  });

  it('sends progress for slow on the request SSE stream', async () => {
    const { client } = await modernPair();
    const progress: number[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { ms: 30, steps: 3 } }, { onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: 'text', text: 'slept 30ms' }]);
  });

  it('records a slow call cancelled by closing its response stream', async () => {
    const { upstream, client } = await modernPair();
    const abort = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { ms: 5000 } }, { signal: abort.signal });
    await expect.poll(() => upstream.received.some((r) => r.headers['mcp-name'] === 'slow'), { timeout: 3000 }).toBe(true);
    abort.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => upstream.cancelled.length, { timeout: 3000 }).toBe(1);
    expect(upstream.received.some((r) => (r.body as { method?: string })?.method === 'notifications/cancelled')).toBe(false);
  });

  it('runs elicit through an input_required round trip (MRTR)', async () => {
    const { upstream, client } = await modernPair();
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'zoe' } }));
    const result = await client.callTool({ name: 'elicit', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'hello zoe' }]);
    const calls = upstream.received.filter((r) => r.headers['mcp-name'] === 'elicit').map((r) => r.body as { id: number; params: Record<string, unknown> });
    expect(calls).toHaveLength(2);
    expect(calls[0]?.params.inputResponses).toBeUndefined();
    expect(calls[1]?.params.inputResponses).toEqual({ who: { action: 'accept', content: { name: 'zoe' } } });
    expect(calls[1]?.id).not.toBe(calls[0]?.id);
  });

  it('refuses elicit with -32021 when the request did not declare elicitation', async () => {
    const upstream = await startModernUpstream();
    cleanups.push(() => upstream.close());
    const client = await connectModernClient(upstream.url);
    cleanups.push(() => client.close());
    await expect(client.callTool({ name: 'elicit', arguments: {} })).rejects.toMatchObject({ code: -32021 });
  });

  it('rejects initialize with 400 and -32022 listing 2026-07-28', async () => {
    const upstream = await startModernUpstream();
    cleanups.push(() => upstream.close());
    const res = await fetch(upstream.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 1, error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } } });
  });

  it('checks the standard headers itself: a missing Mcp-Name or a wrong MCP-Protocol-Version is 400/-32020', async () => {
    const upstream = await startModernUpstream();
    cleanups.push(() => upstream.close());
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { _meta: MODERN_META, name: 'echo', arguments: { message: 'x' } } });
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/call' };
    const noName = await fetch(upstream.url, { method: 'POST', headers: { ...base, 'mcp-protocol-version': '2026-07-28' }, body });
    expect(noName.status).toBe(400);
    expect(await noName.json()).toMatchObject({ id: 3, error: { code: -32020 } });
    const wrongVersion = await fetch(upstream.url, { method: 'POST', headers: { ...base, 'mcp-protocol-version': '2025-11-25', 'mcp-name': 'echo' }, body });
    expect(wrongVersion.status).toBe(400);
    expect(await wrongVersion.json()).toMatchObject({ id: 3, error: { code: -32020 } });
  });

  it('emits configured cache hints on tools/list', async () => {
    const upstream = await startModernUpstream({ cacheHints: { 'tools/list': { ttlMs: 60000, cacheScope: 'public' } } });
    cleanups.push(() => upstream.close());
    const res = await fetch(upstream.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'l', method: 'tools/list', params: { _meta: MODERN_META } }),
    });
    expect(await res.json()).toMatchObject({ id: 'l', result: { resultType: 'complete', ttlMs: 60000, cacheScope: 'public' } });
  });
});
