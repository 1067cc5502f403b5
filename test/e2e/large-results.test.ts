// A large result reaches the client whole, with the right Content-Length, on both kinds of
// reply: plain JSON, and an SSE stream (a progress notification came first). The gateway
// writes such a message in the parts it serialised it in rather than joining them (one copy
// less of the result per call; bench/probes/large-result.ts measures it), so these pin that
// the parts add up to exactly the message. Real gateway, a scripted upstream on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { modernBody, modernHeaders, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { defaultResult, SSE_HEADERS, sseEvent, startScriptedServer } from '../upstream/scripted-server.ts';

// Over the size below which a reply is written as one string, and not ASCII only.
const TEXT = 'résumé 😀 '.repeat(30_000);

let gw: TestGateway;

useGatewayBed({
  // `big` answers with TEXT as JSON; `streamed` sends a progress notification first, then TEXT.
  upstream: () =>
    startScriptedServer({
      script: (r, res) => {
        if (r.method === 'tools/list') return { tools: ['big', 'streamed'].map((name) => ({ name, inputSchema: { type: 'object' } })) };
        const name = (r.body.params as { name?: string } | undefined)?.name;
        if (r.method !== 'tools/call' || (name !== 'big' && name !== 'streamed')) return defaultResult(r);
        const result = { content: [{ type: 'text', text: TEXT }] };
        if (name === 'big') return result;
        const token = ((r.body.params as { _meta?: { progressToken?: unknown } })._meta ?? {}).progressToken;
        res.writeHead(200, SSE_HEADERS);
        res.end(sseEvent({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1 } }) + sseEvent({ jsonrpc: '2.0', id: r.id, result }));
        return undefined;
      },
    }),
  config: (up) => `
upstreams:
  - { name: up, url: "${up.url}" }
`,
  ready: (bed) => ({ gw } = bed),
});

describe('a large result', () => {
  it('arrives whole as JSON, its Content-Length the bytes of the body', async () => {
    const res = await fetch(gw.url, { method: 'POST', headers: modernHeaders('tools/call', 'up__big'), body: JSON.stringify(modernBody('big-1', 'tools/call', { name: 'up__big', arguments: {} })) });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const message = JSON.parse(bytes.toString('utf8'));
    expect(message).toMatchObject({ jsonrpc: '2.0', id: 'big-1' });
    expect(message.result.content[0].text).toBe(TEXT);
  });

  it('arrives whole as the last event of an SSE reply', async () => {
    const body = modernBody('big-2', 'tools/call', { name: 'up__streamed', arguments: {} });
    (body.params as { _meta: Record<string, unknown> })._meta.progressToken = 'p-1';
    const res = await fetch(gw.url, { method: 'POST', headers: modernHeaders('tools/call', 'up__streamed'), body: JSON.stringify(body) });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text()).split('\n\n').filter((e) => e.includes('data: '));
    const messages = events.map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
    expect(messages.map((m) => m.method ?? m.id)).toEqual(['notifications/progress', 'big-2']);
    expect(messages[1].result.content[0].text).toBe(TEXT);
  });
});
