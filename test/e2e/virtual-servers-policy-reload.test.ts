// A policy swap is judged per endpoint: a rule that names one virtual server changes that
// server's lists only, so only its listeners get list_changed, judged on the lists each is
// served (its selection and its names).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ANONYMOUS_PRINCIPAL } from '../../src/identity/principal.ts';
import { connectModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { logged, policyDir } from '../harness/policy-env.ts';

let gw: TestGateway;
const dir = policyDir({ '10-base.yaml': 'rules:\n  - { id: all, effect: allow }\n' });

useGatewayBed({
  upstream: () => startModernUpstream({ name: 'up' }),
  config: (up: ModernUpstream) => `
policy: { dir: "${dir}", watch: true }
upstreams:
  - { name: modern, url: "${up.url}" }
servers:
  - { name: solo, upstreams: [modern], prefix: none, tools: { include: [echo, add] } }
  - { name: team, tools: { include: [modern__add] } }
`,
  ready: (bed) => ({ gw } = bed),
});

it('a rule for one server tells that server\'s listeners, and nobody else\'s', async () => {
  const told: Record<string, number> = { solo: 0, team: 0, '/mcp': 0 };
  const removers = ['solo', 'team', undefined].map((server) =>
    gw.notifier.add({ wants: new Set(['tools']), deliver: () => void told[server ?? '/mcp']!++, principal: ANONYMOUS_PRINCIPAL, ...(server === undefined ? {} : { server }) })!,
  );
  const client = await connectModernClient(gw.servers.solo!);
  const seen: unknown[] = [];
  client.setNotificationHandler('notifications/tools/list_changed', (n) => void seen.push(n));
  await client.listen({ toolsListChanged: true });
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'add']);
    // Written for the name /mcp shows; solo shows the tool as "echo". team never shows echo,
    // so the rule for team changes nothing there.
    writeFileSync(
      join(dir, '20-echo.yaml'),
      'rules:\n  - { id: no-echo-on-solo, effect: deny, when: { server: solo, tool: modern__echo } }\n  - { id: no-echo-on-team, effect: deny, when: { server: team, tool: modern__echo } }\n',
    );
    // Said once every listener's lists have been compared.
    await expect.poll(() => logged(gw.logs, 'policy reload: listeners told of changed lists').length, { timeout: 10_000 }).toBe(1);
    expect(told).toEqual({ solo: 1, team: 0, '/mcp': 0 });
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add']);
  } finally {
    for (const remove of removers) remove();
    await client.close();
  }
});
