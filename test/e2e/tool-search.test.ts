// Tool search mode end to end (README, Context budget): 2,000 generated tools on 40 real SDK
// 2.x upstreams, plus a modern and a legacy fixture upstream, behind a gateway with API-key
// principals and a policy. Real SDK clients of both eras list the three gateway tools, find
// the stated tools in the top 3, never see, describe or run a hidden tool, run tools through
// gatehouse__call_tool (the audit record names the real tool), can still ask for the full
// list, and hear list_changed; the index is built once per list version, not per caller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startCatalogFleet, type CatalogFleet } from '../fixtures/catalog-fleet.ts';
import { generatedCatalog, STATED_QUERIES } from '../fixtures/generated-catalog.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { auditRequests, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML, policyDir } from '../harness/policy-env.ts';

const POLICY = `
rules:
  - { id: guests-no-payments, effect: deny, when: { principal: [{ groups: [guests] }], tool: ["stripe__*", "paypal__*"] } }
  - { id: nobody-deletes-repos, effect: deny, when: { tool: github__delete_repository } }
  - { id: the-rest, effect: allow, when: { tool: "*" } }
`;

/** The queries this test states, and the tool each must find in its top 3. */
const QUERIES = STATED_QUERIES.map(([q, t]) => [q, t] as [string, string]);

interface AnyClient {
  listTools(params?: { cursor?: string }): Promise<{ tools: { name: string; description?: string }[]; nextCursor?: string }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<{ content?: unknown; structuredContent?: any; isError?: boolean }>;
  close(): Promise<void>;
}
const CLIENTS: { era: string; connect: (url: string, headers: Record<string, string>, name?: string) => Promise<AnyClient> }[] = [
  { era: 'modern (2.x)', connect: (url, headers, name) => connectModernClient(url, { headers, ...(name ? { name } : {}) }) as unknown as Promise<AnyClient> },
  { era: 'legacy (1.x)', connect: (url, headers, name) => connectLegacyClient(url, { headers, ...(name ? { name } : {}) }) as unknown as Promise<AnyClient> },
];

let fleet: CatalogFleet;
let modern: ModernUpstream;
let legacy: LegacyUpstream;
let gw: TestGateway;

beforeAll(async () => {
  [fleet, modern, legacy] = await Promise.all([
    startCatalogFleet(generatedCatalog()),
    startModernUpstream({ name: 'misc', cacheHints: { 'tools/list': { ttlMs: 60_000, cacheScope: 'public' } } }),
    startLegacyUpstream({ name: 'old' }),
  ]);
  const upstreams = Object.entries(fleet.urls).map(([name, url]) => `  - { name: ${name}, url: "${url}" }`).join('\n');
  gw = await startTestGateway(`
${IDENTITY_YAML}
policy: { dir: "${policyDir({ 'rules.yaml': POLICY })}", watch: false }
toolSearch: { enabled: true, fullListFor: ["full-list-*"] }
listDeadline: 20s
upstreams:
${upstreams}
  - { name: misc, url: "${modern.url}" }
  - { name: old, url: "${legacy.url}", listTtl: 60s }
`);
  await gw.waitUp(30_000);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await Promise.all([fleet?.close(), modern?.close(), legacy?.close()]);
});

const found = (r: { structuredContent?: any }): string[] => r.structuredContent.tools.map((t: { name: string }) => t.name);
const textOf = (r: { content?: unknown }): string => (r.content as { text: string }[])[0]!.text;
const indexBuilds = (): number => gw.logs.filter((l) => l.msg === 'tool search index built').length;

describe.each(CLIENTS)('$era client in tool search mode', ({ connect }) => {
  let alice: AnyClient;
  let bob: AnyClient;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([connect(gw.url, ALICE), connect(gw.url, BOB)]);
  });
  afterAll(async () => {
    await Promise.all([alice?.close(), bob?.close()]);
  });

  it('lists the three gateway tools, the search tool described from the caller\'s own catalog', async () => {
    const { tools, nextCursor } = await alice.listTools();
    expect(tools.map((t) => t.name)).toEqual(['gatehouse__search_tools', 'gatehouse__describe_tools', 'gatehouse__call_tool']);
    expect(nextCursor).toBeUndefined();
    const mine = tools[0]!.description!;
    expect(mine).toMatch(/among the 2,0\d\d tools this gateway offers you from 42 servers/);
    expect(mine).toMatch(/stripe \(50 tools: [^)]*refund/);
    const guest = (await bob.listTools()).tools[0]!.description!;
    expect(guest).toMatch(/from 40 servers/);
    expect(guest).not.toMatch(/stripe|paypal/);
  });

  it.each(QUERIES)('finds the stated tool in the top 3 for "%s"', async (query, expected) => {
    const r = await alice.callTool({ name: 'gatehouse__search_tools', arguments: { query, limit: 3 } });
    expect(found(r)).toContain(expected);
    expect(textOf(r)).toContain(expected);
  });

  it('never lets a hidden tool surface, be described or run', async () => {
    const before = fleet.calls().length;
    for (const query of ['create stripe refund', 'paypal payout', 'stripe__create_refund', 'payment']) {
      const r = await bob.callTool({ name: 'gatehouse__search_tools', arguments: { query, limit: 50 } });
      expect(found(r).filter((n) => /^(stripe|paypal)__/.test(n))).toEqual([]);
    }
    const only = await bob.callTool({ name: 'gatehouse__search_tools', arguments: { query: 'refund', upstream: 'stripe' } });
    expect(found(only)).toEqual([]);
    const repo = await alice.callTool({ name: 'gatehouse__search_tools', arguments: { query: 'github__delete_repository', limit: 50 } });
    expect(found(repo)).not.toContain('github__delete_repository');
    const described = await bob.callTool({ name: 'gatehouse__describe_tools', arguments: { names: ['stripe__create_refund', 'nope__nothing', 'jira__get_ticket'] } });
    expect(described.structuredContent.unknown).toEqual(['stripe__create_refund', 'nope__nothing']);
    expect(described.structuredContent.tools.map((t: { name: string }) => t.name)).toEqual(['jira__get_ticket']);
    // Called through the gateway tool, a hidden tool answers exactly as one that does not exist.
    const hidden = bob.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'stripe__create_refund', arguments: { payment_intent: 'pi_1' } } });
    await expect(hidden).rejects.toThrow(/Unknown tool: stripe__create_refund/);
    await expect(bob.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'nope__nothing' } })).rejects.toThrow(/Unknown tool: nope__nothing/);
    expect(fleet.calls().length).toBe(before);
  });

  it('describes visible tools with their full definitions', async () => {
    const r = await alice.callTool({ name: 'gatehouse__describe_tools', arguments: { names: ['stripe__create_refund'] } });
    expect(r.structuredContent.tools[0]).toMatchObject({ name: 'stripe__create_refund', inputSchema: { properties: { payment_intent: { type: 'string' } } } });
  });

  it('runs a tool through gatehouse__call_tool as if called directly, on either upstream era', async () => {
    const r = await alice.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'jira__create_ticket', arguments: { summary: 'disk full', priority: 'high' } } });
    expect(textOf(r)).toBe('jira:create_ticket:{"summary":"disk full","priority":"high"}');
    const last = fleet.calls().at(-1)!;
    expect(last).toMatchObject({ service: 'jira', tool: 'create_ticket' });
    expect(last.headers['mcp-name']).toBe('create_ticket');
    const old = await alice.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'old__echo', arguments: { message: 'across eras' } } });
    expect(textOf(old)).toBe('across eras');
  });

  it('checks the real tool\'s arguments before anything is sent', async () => {
    const before = fleet.calls().length;
    await expect(alice.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'github__get_issue', arguments: {} } })).rejects.toThrow(/Invalid arguments for tool github__get_issue/);
    await expect(alice.callTool({ name: 'gatehouse__search_tools', arguments: {} })).rejects.toThrow(/needs a non-empty string "query"/);
    expect(fleet.calls().length).toBe(before);
  });

  it('gives the whole catalog, in pages, to a client named in fullListFor', async () => {
    const full = await connect(gw.url, ALICE, 'full-list-client');
    try {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await full.listTools(cursor ? { cursor } : undefined);
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor);
      const total = (await alice.callTool({ name: 'gatehouse__search_tools', arguments: { query: 'github' } })).structuredContent.total;
      expect(names).toHaveLength(total);
      expect(names).toContain('stripe__create_refund');
      expect(names).not.toContain('github__delete_repository');
      expect(names).not.toContain('gatehouse__search_tools');
    } finally {
      await full.close();
    }
  });
});

describe('tool search on the stateless 2026-07-28 path', () => {
  const post = (id: number | string, method: string, params: Record<string, unknown>, name?: string) =>
    postJson(gw.url, modernBody(id, method, params), modernHeaders(method, name, ALICE));

  it('serves a search with no session, and the full list to a request that asks in _meta', async () => {
    const r = await post(1, 'tools/call', { name: 'gatehouse__search_tools', arguments: { query: 'create github issue' } }, 'gatehouse__search_tools');
    expect(r.status).toBe(200);
    expect(r.json.result.structuredContent.tools[0].name).toBe('github__create_issue');
    const full = await post(2, 'tools/list', { _meta: { 'io.gatehouse/fullToolList': true } });
    expect(full.json.result.tools).toHaveLength(500);
    expect(full.json.result.nextCursor).toBeDefined();
    const bad = await post(3, 'tools/list', { cursor: 'abc' });
    expect(bad.json.error.code).toBe(-32602);
  });

  it('takes the meta-tool\'s name in Mcp-Name and sends the upstream the real one', async () => {
    const r = await post(4, 'tools/call', { name: 'gatehouse__call_tool', arguments: { name: 'misc__query', arguments: { region: 'eu-1', query: 'q', limit: 2 } } }, 'gatehouse__call_tool');
    expect(r.json.result.content[0].text).toBe('eu-1:q:2');
    const seen = modern.received.filter((q) => (q.body as { method?: string }).method === 'tools/call').at(-1)!;
    expect(seen.headers).toMatchObject({ 'mcp-name': 'query', 'mcp-param-region': 'eu-1', 'mcp-param-limit': '2' });
    const mismatch = await post(5, 'tools/call', { name: 'gatehouse__call_tool', arguments: { name: 'misc__echo', arguments: { message: 'x' } } }, 'misc__echo');
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.code).toBe(-32020);
  });

  it('leaves an audit record that names the real tool and the gateway tool it came through', async () => {
    await post('audit-via', 'tools/call', { name: 'gatehouse__call_tool', arguments: { name: 'trello__archive_card', arguments: { id: 'c-77' } } }, 'gatehouse__call_tool');
    await expect.poll(() => auditRequests(gw).find((r) => r.rpcId === 'audit-via')).toBeDefined();
    const rec = auditRequests(gw).find((r) => r.rpcId === 'audit-via')!;
    expect(rec).toMatchObject({ method: 'tools/call', name: 'trello__archive_card', upstream: 'trello', upstreamName: 'archive_card', via: 'gatehouse__call_tool', outcome: 'ok', decision: { effect: 'allow', ruleId: 'the-rest' } });
    const direct = await post('audit-direct', 'tools/call', { name: 'trello__archive_card', arguments: { id: 'c-77' } }, 'trello__archive_card');
    expect(direct.status).toBe(200);
    await expect.poll(() => auditRequests(gw).find((r) => r.rpcId === 'audit-direct')).toBeDefined();
    // The same arguments, so the same digest, whichever way the tool was called.
    expect(auditRequests(gw).find((r) => r.rpcId === 'audit-direct')!.arguments).toEqual(rec.arguments);
  });
});

describe('one index per list version, and list_changed', () => {
  it('has built one index for every caller so far, and builds the next one after the list changes', async () => {
    expect(indexBuilds()).toBe(1);
    const client = await connectModernClient(gw.url, { headers: ALICE });
    try {
      const seen: unknown[] = [];
      client.setNotificationHandler('notifications/tools/list_changed', (n) => void seen.push(n));
      await client.listen({ toolsListChanged: true });
      await expect.poll(() => modern.received.some((r) => (r.body as { method?: string }).method === 'subscriptions/listen'), { timeout: 10_000 }).toBe(true);
      modern.setExtraTool(true);
      await expect.poll(() => seen.length, { timeout: 10_000 }).toBeGreaterThan(0);
      const r = await client.callTool({ name: 'gatehouse__search_tools', arguments: { query: 'misc__extra' } });
      expect((r.structuredContent as { tools: { name: string }[] }).tools[0]!.name).toBe('misc__extra');
      expect(indexBuilds()).toBe(2);
    } finally {
      await client.close();
    }
  });
});
