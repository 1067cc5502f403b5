// Many distinct principals against one real upstream: the gateway merges a public list once
// for all of them (not once per principal), keeps what it holds per principal within
// limits.catalogCacheBytes, and still gives each principal the list its policy allows.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { modernCall, modernList, policyDir, toolNames } from '../harness/policy-env.ts';

const PRINCIPALS = 40;
const keyOf = (i: number): string => `gh_test_principal_${String(i).padStart(4, '0')}_abcdefghij`;
const who = (i: number): Record<string, string> => ({ 'x-api-key': keyOf(i) });

function identityYaml(): string {
  const keys = Array.from({ length: PRINCIPALS }, (_, i) => {
    const sha = createHash('sha256').update(keyOf(i)).digest('hex');
    // Even principals are staff, odd ones guests: two views for the policy, forty principals.
    return `    - { id: p${i}, sha256: "${sha}", subject: p${i}, groups: [${i % 2 === 0 ? 'staff' : 'guests'}] }`;
  });
  return `identity:\n  resource: http://gatehouse.test/mcp\n  apiKeys:\n${keys.join('\n')}\n`;
}

const POLICY = `
rules:
  - { id: staff, effect: allow, when: { principal: [{ groups: [staff] }], tool: "up__*" } }
  - { id: guests, effect: allow, when: { principal: [{ groups: [guests] }], tool: "up__echo" } }
`;

let upstream: ModernUpstream | undefined;
let gw: TestGateway | undefined;

afterEach(async () => {
  await gw?.close();
  await upstream?.close();
  gw = undefined;
  upstream = undefined;
});

async function start(hints: 'public' | 'private', extra = ''): Promise<void> {
  upstream = await startModernUpstream({
    name: 'up',
    toolCount: 200,
    ...(hints === 'public' ? { cacheHints: { 'tools/list': { ttlMs: 600_000, cacheScope: 'public' } } } : {}),
  });
  gw = await startTestGateway(`
${identityYaml()}
policy: { dir: "${policyDir({ '10-rules.yaml': POLICY })}", watch: false }
${extra}
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  await gw.waitUp();
}

describe('many principals', () => {
  it('merges a public list once for every principal and routes their calls from it', async () => {
    await start('public');
    const staffTools = toolNames(await modernList(gw!.url, who(0)));
    expect(staffTools).toContain('up__tool_199');
    for (let i = 0; i < PRINCIPALS; i++) {
      const list = await modernList(gw!.url, who(i));
      expect(toolNames(list)).toEqual(i % 2 === 0 ? staffTools : ['up__echo']);
      const call = await modernCall(gw!.url, who(i), 'up__echo', { message: `from p${i}` });
      expect(call.json.result.content[0].text).toBe(`from p${i}`);
    }
    // Guests cannot call what they cannot see, whatever staff listed before them.
    expect((await modernCall(gw!.url, who(1), 'up__tool_3')).json.error.message).toBe('Unknown tool: up__tool_3');
    expect(await metricValue(gw!.url, 'gatehouse_catalog_merges_total')).toBe(1);
    expect(await metricValue(gw!.url, 'gatehouse_catalog_cache_bytes', { cache: 'merged' })).toBe(0);
  });

  it('keeps private lists per principal within catalogCacheBytes, counting what it evicts', async () => {
    const budget = 200_000;
    await start('private', `limits: { catalogCacheBytes: ${budget} }`);
    for (let i = 0; i < 12; i++) {
      const list = await modernList(gw!.url, who(2 * i));
      expect(toolNames(list)).toContain('up__tool_199');
      expect(await metricValue(gw!.url, 'gatehouse_catalog_cache_bytes', { cache: 'lists' })).toBeLessThanOrEqual(budget / 2);
      expect(await metricValue(gw!.url, 'gatehouse_catalog_cache_bytes', { cache: 'merged' })).toBeLessThanOrEqual(budget / 4);
    }
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'catalogCacheBytes' })).toBeGreaterThan(0);
  });
});
