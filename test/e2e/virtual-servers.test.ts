// Virtual servers end to end (README, Virtual servers and overlays): one gateway, two real
// upstreams of both eras, the default endpoint /mcp and two servers at once. `team-a` draws
// from both upstreams and selects by exposed and by upstream name; `solo` draws from one
// upstream with its own names (`prefix: none`). Real SDK clients of both eras list and call
// on every endpoint; policy rules match on the server and on the names rules are written for.
import { describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { auditRequests, modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';
import { policyDir } from '../harness/policy-env.ts';

let modern: ModernUpstream;
let gw: TestGateway;

// Allowed unless a rule says otherwise; each deny names a server, so /mcp shows everything.
const POLICY = `
rules:
  - id: no-fail-on-team-a
    effect: deny
    when: { server: team-a, tool: modern__fail }
  - id: no-add-on-solo
    description: written for the name /mcp shows; solo shows the tool as "add"
    effect: deny
    when: { server: solo, tool: modern__add }
`;

useGatewayBed({
  upstream: () => startAll({ modern: startModernUpstream({ cacheHints: { 'tools/list': { ttlMs: 60_000, cacheScope: 'public' } } }), legacy: startLegacyUpstream() }),
  config: (up: { modern: ModernUpstream; legacy: LegacyUpstream }) => `
policy: { dir: "${policyDir({ 'rules.yaml': POLICY })}", defaultEffect: allow, watch: false }
limits: { pageSize: 3 }
upstreams:
  - { name: modern, url: "${up.modern.url}" }
  - { name: legacy, url: "${up.legacy.url}", listTtl: 60s }
servers:
  - name: team-a
    upstreams: [modern, legacy]
    tools: { include: ["modern__*", add], exclude: ["*slow*", "*elicit*"] }
    prompts: { include: [none-at-all] }
    resources: { include: ["mem://modern/*"] }
    resourceTemplates: { include: ["mem://legacy/*"] }
    instructions: Tools of team A.
  - name: solo
    upstreams: [modern]
    prefix: none
    tools: { include: [echo, query, add] }
`,
  ready: (bed) => ({ upstream: { modern }, gw } = bed),
});

const CLIENTS = [
  { era: 'modern (2.x)', connect: (url: string) => connectModernClient(url) },
  { era: 'legacy (1.x)', connect: (url: string) => connectLegacyClient(url) },
] as const;

async function namesOn(url: string, connect: (typeof CLIENTS)[number]['connect']): Promise<string[]> {
  const client = await connect(url);
  try {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return names.sort();
  } finally {
    await client.close();
  }
}

describe.each(CLIENTS)('a $era client', ({ connect }) => {
  it('sees every tool, prefixed, on the default endpoint', async () => {
    const names = await namesOn(gw.url, connect);
    expect(names).toEqual(expect.arrayContaining(['modern__fail', 'modern__add', 'modern__slow', 'legacy__add', 'legacy__echo']));
  });

  it('sees on team-a only what the server selects, minus what policy denies there', async () => {
    const names = await namesOn(gw.servers['team-a']!, connect);
    // "add" selects by the upstream's own name, so legacy's add comes in under its exposed name.
    expect(names).toEqual(['legacy__add', 'modern__add', 'modern__echo', 'modern__query']);
  });

  it('sees the upstream\'s own names on solo, and a rule written for modern__add holds for "add" there', async () => {
    expect(await namesOn(gw.servers.solo!, connect)).toEqual(['echo', 'query']);
  });

  it('calls a tool on solo under its own name, and the upstream gets its own name', async () => {
    const client = await connect(gw.servers.solo!);
    try {
      const before = modern.received.length;
      const result = await client.callTool({ name: 'echo', arguments: { message: 'solo says hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'solo says hi' }]);
      const sent = modern.received.slice(before).map((r) => r.body as { method?: string; params?: { name?: string } });
      expect(sent.find((b) => b.method === 'tools/call')?.params?.name).toBe('echo');
    } finally {
      await client.close();
    }
  });

  it('answers a tool outside the selection exactly as an unknown tool', async () => {
    const client = await connect(gw.servers['team-a']!);
    try {
      const outside = await client.callTool({ name: 'legacy__echo', arguments: { message: 'x' } }).then(() => 'called', (e: Error) => e.message);
      const unknown = await client.callTool({ name: 'legacy__nothing', arguments: { message: 'x' } }).then(() => 'called', (e: Error) => e.message);
      expect(outside).toContain('Unknown tool: legacy__echo');
      expect(outside.replace('legacy__echo', 'NAME')).toBe(unknown.replace('legacy__nothing', 'NAME'));
      // Denied by the server's rule: the same answer again.
      const denied = await client.callTool({ name: 'modern__fail', arguments: {} }).then(() => 'called', (e: Error) => e.message);
      expect(denied.replace('modern__fail', 'NAME')).toBe(unknown.replace('legacy__nothing', 'NAME'));
    } finally {
      await client.close();
    }
  });
});

describe('one endpoint per server', () => {
  it('gives each server its own instructions in server/discover, and none of another\'s', async () => {
    const a = await postJson(gw.servers['team-a']!, modernBody(1, 'server/discover'), modernHeaders('server/discover'));
    expect(a.json.result.instructions).toBe('Tools of team A.');
    const legacy = await connectLegacyClient(gw.servers['team-a']!);
    expect(legacy.getInstructions()).toBe('Tools of team A.');
    await legacy.close();
    const solo = await postJson(gw.servers.solo!, modernBody(2, 'server/discover'), modernHeaders('server/discover'));
    expect(solo.json.result.instructions ?? '').not.toContain('team A');
  });

  it('selects prompts too: none on team-a, the upstreams\' on /mcp', async () => {
    const a = await postJson(gw.servers['team-a']!, modernBody(3, 'prompts/list'), modernHeaders('prompts/list'));
    expect(a.json.result.prompts).toEqual([]);
    const all = await postJson(gw.url, modernBody(4, 'prompts/list'), modernHeaders('prompts/list'));
    expect(all.json.result.prompts.map((p: { name: string }) => p.name)).toContain('modern__greet');
  });

  it('selects resources and templates: what is left out reads as a resource that does not exist', async () => {
    const listed = await postJson(gw.servers['team-a']!, modernBody(11, 'resources/list'), modernHeaders('resources/list'));
    expect(listed.json.result.resources.map((r: { uri: string }) => r.uri)).toEqual(['mem://modern/only']);
    const templates = await postJson(gw.servers['team-a']!, modernBody(12, 'resources/templates/list'), modernHeaders('resources/templates/list'));
    expect(templates.json.result.resourceTemplates.map((r: { uriTemplate: string }) => r.uriTemplate)).toEqual(['mem://legacy/items/{id}']);
    const read = (url: string, id: number, uri: string) => postJson(url, modernBody(id, 'resources/read', { uri }), modernHeaders('resources/read', uri));
    expect((await read(gw.servers['team-a']!, 13, 'mem://legacy/items/7')).json.result.contents[0].uri).toBe('mem://legacy/items/7');
    for (const [id, uri] of [[14, 'mem://shared/readme'], [15, 'mem://modern/items/1']] as const) {
      const outside = await read(gw.servers['team-a']!, id, uri);
      expect(outside.json.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri } });
      expect((await read(gw.url, id + 10, uri)).json.result.contents.length).toBe(1);
    }
  });

  it('checks Mcp-Name and Mcp-Param-* against what solo shows, and rebuilds them for the upstream', async () => {
    const args = { region: 'eu-west', query: 'q-solo' };
    const body = modernBody(5, 'tools/call', { name: 'query', arguments: args });
    const ok = await postJson(gw.servers.solo!, body, modernHeaders('tools/call', 'query', { 'mcp-param-region': 'eu-west' }));
    expect(ok.json.result.content).toEqual([{ type: 'text', text: 'eu-west:q-solo:none' }]);
    const sent = modern.received.find((r) => (r.body as { params?: { arguments?: { query?: string } } }).params?.arguments?.query === 'q-solo')!;
    expect(sent.headers['mcp-name']).toBe('query');
    expect(sent.headers['mcp-param-region']).toBe('eu-west');
    // A header that disagrees with the arguments is the client's mistake, on the server as anywhere.
    const bad = await postJson(gw.servers.solo!, modernBody(6, 'tools/call', { name: 'query', arguments: args }), modernHeaders('tools/call', 'query', { 'mcp-param-region': 'us-east' }));
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe(-32020);
  });

  it('refuses a cursor from another endpoint\'s list', async () => {
    const first = await postJson(gw.url, modernBody(7, 'tools/list'), modernHeaders('tools/list'));
    const cursor = first.json.result.nextCursor as string;
    expect(typeof cursor).toBe('string');
    const res = await postJson(gw.servers['team-a']!, modernBody(8, 'tools/list', { cursor }), modernHeaders('tools/list'));
    expect(res.json.error).toMatchObject({ code: -32602, message: 'Invalid cursor: cursor is not for team-a/tools' });
    const own = await postJson(gw.url, modernBody(10, 'tools/list', { cursor }), modernHeaders('tools/list'));
    expect(own.json.result.tools.length).toBeGreaterThan(0);
  });

  it('names the server in audit records and metrics; /mcp records carry none', async () => {
    await postJson(gw.servers['team-a']!, modernBody(9, 'tools/call', { name: 'modern__add', arguments: { a: 2, b: 3 } }), modernHeaders('tools/call', 'modern__add'));
    await expect.poll(() => auditRequests(gw).some((r) => r.server === 'team-a' && r.name === 'modern__add')).toBe(true);
    const onSolo = auditRequests(gw).find((r) => r.server === 'solo' && r.method === 'tools/call');
    // Policy's name for the tool, the upstream's own beside it.
    expect(onSolo).toMatchObject({ name: 'modern__echo', upstreamName: 'echo', upstream: 'modern' });
    expect(auditRequests(gw).filter((r) => r.server === undefined).length).toBeGreaterThan(0);
    const metrics = await (await fetch(new URL('/metrics', gw.url))).text();
    expect(metrics).toMatch(/gatehouse_requests_total\{[^}]*server="team-a"[^}]*\} \d/);
  });
});
