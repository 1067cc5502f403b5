// The 2026-07-28 streams of /mcp, end to end with raw fetch against a real gateway in front of
// the real modern fixture: listen (MCP 2026-07-28, basic/patterns/subscriptions), progress on a
// lazily opened SSE response (MCP 2026-07-28, basic/transports/streamable-http (responses)) and
// disconnect-as-cancel (MCP 2026-07-28, basic/patterns/cancellation). The request rules of the
// era are in transport-modern.test.ts.
import { describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { useOneUpstreamBed } from '../harness/gateway-bed.ts';
import { sseMessages } from '../harness/sse-messages.ts';

let upstream: ModernUpstream;
let gw: TestGateway;

useOneUpstreamBed('up', () => startModernUpstream(), (bed) => ({ upstream, gw } = bed));

const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

const call = (id: number | string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  modernBody(id, 'tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) });
const postSlow = (body: unknown, signal?: AbortSignal) =>
  fetch(gw.url, { method: 'POST', headers: modernHeaders('tools/call', 'up__slow'), body: JSON.stringify(body), ...(signal ? { signal } : {}) });
/** The gateway's own id for the upstream `slow` call that was asked to wait `ms`. */
const upstreamSlowId = (ms: number) =>
  (upstream.received.find((r) => (r.body as any)?.params?.arguments?.ms === ms)?.body as { id: string | number } | undefined)?.id;

describe('subscriptions/listen (MCP 2026-07-28, basic/patterns/subscriptions)', () => {
  async function listen(id: string | number, notifications: Record<string, unknown>) {
    const abort = new AbortController();
    const body = JSON.stringify(modernBody(id, 'subscriptions/listen', { notifications }));
    const res = await fetch(gw.url, { method: 'POST', headers: modernHeaders('subscriptions/listen'), body, signal: abort.signal });
    return { res, messages: sseMessages(res), close: () => abort.abort() };
  }

  it.each([['listen-1'], [7], [0]])('acknowledges first, with the honoured subset, tagged with id %j (type kept)', async (id) => {
    const listeners = gw.notifier.size();
    const { res, messages, close } = await listen(id, { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['mem://shared/readme'] });
    try {
      expect(gw.notifier.size()).toBe(listeners + 1);
      expect([res.status, res.headers.get('content-type'), res.headers.get('x-accel-buffering')]).toEqual([200, 'text/event-stream', 'no']);
      const first = (await messages.next()).value;
      expect(first.method).toBe('notifications/subscriptions/acknowledged');
      expect(first.params.notifications).toEqual({ toolsListChanged: true });
      expect([first.params._meta[SUB_ID], typeof first.params._meta[SUB_ID]]).toEqual([id, typeof id]);
    } finally {
      close();
    }
    // Closing the stream ends the subscription: no listener is left behind.
    await expect.poll(() => gw.notifier.size(), { timeout: 3000 }).toBe(listeners);
  });

  it('delivers an upstream tools change on the stream, tagged with the subscription id', async () => {
    const { messages, close } = await listen('listen-2', { toolsListChanged: true });
    try {
      expect((await messages.next()).value.method).toBe('notifications/subscriptions/acknowledged');
      upstream.setExtraTool(true);
      const next = (await messages.next()).value;
      expect(next).toMatchObject({ method: 'notifications/tools/list_changed', params: { _meta: { [SUB_ID]: 'listen-2' } } });
    } finally {
      close();
      upstream.setExtraTool(false);
    }
  });
});

describe('progress and cancellation (MCP 2026-07-28, basic/transports/streamable-http (responses), b.3)', () => {
  it('streams notifications/progress, then the result, when the call has a progressToken', async () => {
    const res = await postSlow(call('p-1', 'up__slow', { ms: 60, steps: 3 }, { progressToken: 'tok-1' }));
    expect([res.headers.get('content-type'), res.headers.get('x-accel-buffering')]).toEqual(['text/event-stream', 'no']);
    const all: any[] = [];
    for await (const m of sseMessages(res)) all.push(m);
    expect(all.slice(0, 3).map((m) => [m.method, m.params.progressToken, m.params.progress])).toEqual([
      ['notifications/progress', 'tok-1', 1],
      ['notifications/progress', 'tok-1', 2],
      ['notifications/progress', 'tok-1', 3],
    ]);
    expect(all).toHaveLength(4);
    expect(all[3]).toMatchObject({ id: 'p-1', result: { resultType: 'complete', content: [{ text: 'slept 60ms' }] } });
  });

  it('cancels the upstream call when the client closes a progress stream (MCP 2026-07-28, basic/patterns/cancellation)', async () => {
    const abort = new AbortController();
    const res = await postSlow(call('c-2', 'up__slow', { ms: 5002, steps: 100 }, { progressToken: 7 }), abort.signal);
    const first = (await sseMessages(res).next()).value;
    expect(first).toMatchObject({ method: 'notifications/progress', params: { progressToken: 7, progress: 1 } });
    abort.abort();
    await expect.poll(() => upstream.cancelled.includes(upstreamSlowId(5002)!), { timeout: 3000 }).toBe(true);
  });

  it('answers plain JSON when the call has no progressToken', async () => {
    const res = await postJson(gw.url, call('p-2', 'up__slow', { ms: 30, steps: 3 }), modernHeaders('tools/call', 'up__slow'));
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect(res.json).toMatchObject({ id: 'p-2', result: { content: [{ text: 'slept 30ms' }] } });
  });

  it('cancels the upstream call when the client aborts its request', async () => {
    const abort = new AbortController();
    const pending = postSlow(call('c-1', 'up__slow', { ms: 5001 }), abort.signal);
    await expect.poll(() => upstreamSlowId(5001), { timeout: 3000 }).toBeDefined();
    abort.abort();
    await expect(pending).rejects.toThrow();
    await expect.poll(() => upstream.cancelled.includes(upstreamSlowId(5001)!), { timeout: 3000 }).toBe(true);
  });
});
