// Tool search on a virtual server searches, describes and runs that server's tools only,
// under the names the server shows (README, Context budget; Virtual servers and overlays).
import { expect, it } from 'vitest';
import { connectModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';

let gw: TestGateway;
let upstream: ModernUpstream;

useGatewayBed({
  upstream: () => startModernUpstream({ name: 'm', cacheHints: { 'tools/list': { ttlMs: 60_000, cacheScope: 'public' } } }),
  config: (up: ModernUpstream) => `
toolSearch: { enabled: true }
upstreams:
  - { name: m, url: "${up.url}" }
servers:
  - { name: solo, prefix: none, tools: { include: [echo, add] } }
`,
  ready: (bed) => ({ upstream, gw } = bed),
});

const names = (r: { structuredContent?: unknown }): string[] => (r.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);

it('finds, describes and runs only what the server offers, by its own names', async () => {
  const client = await connectModernClient(gw.servers.solo!);
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['gatehouse__search_tools', 'gatehouse__describe_tools', 'gatehouse__call_tool']);
    const all = await client.callTool({ name: 'gatehouse__search_tools', arguments: { query: 'echo add slow fail query', limit: 50 } });
    expect(names(all).sort()).toEqual(['add', 'echo']);
    const described = await client.callTool({ name: 'gatehouse__describe_tools', arguments: { names: ['echo', 'm__echo', 'slow'] } });
    expect(names(described)).toEqual(['echo']);
    expect((described.structuredContent as { unknown: string[] }).unknown).toEqual(['m__echo', 'slow']);
    const before = upstream.received.length;
    const ran = await client.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'echo', arguments: { message: 'via search' } } });
    expect(ran.content).toEqual([{ type: 'text', text: 'via search' }]);
    const sent = upstream.received.slice(before).map((r) => r.body as { method?: string; params?: { name?: string } }).find((b) => b.method === 'tools/call');
    expect(sent?.params?.name).toBe('echo');
    await expect(client.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'slow', arguments: { ms: 1 } } })).rejects.toThrow(/Unknown tool: slow/);
  } finally {
    await client.close();
  }
});
