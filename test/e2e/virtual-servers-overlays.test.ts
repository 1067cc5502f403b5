// Overlays are the default endpoint's: a virtual server over the same upstream shows the
// upstream's own definition. The overlay here is not confirmed (no sha256), so the default
// endpoint holds its tool back, while the server lists and calls it as the upstream has it.
import { expect, it } from 'vitest';
import { connectModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';

let gw: TestGateway;

useGatewayBed({
  upstream: () => startModernUpstream({ name: 'up' }),
  config: (up: ModernUpstream) => `
upstreams:
  - { name: up, url: "${up.url}" }
overlays:
  tools:
    - { tool: echo, upstream: up, name: say, description: Says it back. }
servers:
  - { name: team, tools: { include: [up__echo, up__add] } }
`,
  ready: (bed) => ({ gw } = bed),
});

it('holds the overlaid tool back on the default endpoint only; the server lists and calls the upstream definition', async () => {
  const main = await connectModernClient(gw.url);
  const team = await connectModernClient(gw.servers.team!);
  try {
    const names = (await main.listTools()).tools.map((t) => t.name);
    expect(names).toContain('up__add');
    expect(names.filter((n) => n === 'say' || n === 'up__echo')).toEqual([]);
    const listed = (await team.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(['up__echo', 'up__add']);
    expect(listed[0]!.description).not.toBe('Says it back.');
    expect((await team.callTool({ name: 'up__echo', arguments: { message: 'as is' } })).structuredContent).toEqual({ message: 'as is' });
    expect(gw.logs.filter((l) => l.msg === 'invalid overlay: its item is held back')).toEqual([]);
  } finally {
    await Promise.all([main.close(), team.close()]);
  }
});
