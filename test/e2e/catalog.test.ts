// The merged catalog's names and URIs end to end (docs/architecture.md §5 "Tool prefix", MCP 2026-07-28, server/tools (tools/list), h):
// default, custom and empty prefixes, a deterministic rename on collision, shortened names
// under maxNameLength, and resource URI collisions resolved by config order. Every exposed
// name is called through the gateway, so a name that lists but does not route fails here.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModernClient, type ModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream, type ReceivedRequest } from '../fixtures/modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';

const MODERN_TOOLS = ['echo', 'add', 'slow', 'fail', 'query', 'elicit'];
const LEGACY_TOOLS = ['echo', 'add', 'slow', 'fail', 'elicit'];

let modern: ModernUpstream;
let legacy: LegacyUpstream;
const gateways: TestGateway[] = [];
const clients: ModernClient[] = [];

async function gatewayWith(yaml: string): Promise<{ gw: TestGateway; client: ModernClient }> {
  const gw = await startTestGateway(yaml);
  gateways.push(gw);
  await gw.waitUp();
  const client = await connectModernClient(gw.url);
  clients.push(client);
  return { gw, client };
}

function toolCalls(received: readonly ReceivedRequest[]): string[] {
  return received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call').map((r) => (r.body as { params: { name: string } }).params.name);
}

/** What the gateway promises for a displaced name: hash of "<upstream>/<tool>", computed here independently. */
function hash8(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

function textOf(result: { content: unknown }): string {
  return (result.content as { text: string }[])[0]!.text;
}

beforeAll(async () => {
  [modern, legacy] = await Promise.all([startModernUpstream(), startLegacyUpstream()]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all([modern?.close(), legacy?.close()]);
});

describe('prefixes', () => {
  let client: ModernClient;

  beforeAll(async () => {
    ({ client } = await gatewayWith(`
upstreams:
  - name: alpha
    url: ${modern.url}
  - name: beta
    prefix: b
    url: ${legacy.url}
`));
  });

  it('exposes name__tool by default and the custom prefix where one is set', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([...MODERN_TOOLS.map((t) => `alpha__${t}`), ...LEGACY_TOOLS.map((t) => `b__${t}`)]);
  });

  it('routes each prefixed name to its own upstream under the original name', async () => {
    const before = { m: toolCalls(modern.received).length, l: toolCalls(legacy.received).length };
    expect(textOf(await client.callTool({ name: 'alpha__add', arguments: { a: 1, b: 2 } }))).toBe('3');
    expect(textOf(await client.callTool({ name: 'b__add', arguments: { a: 3, b: 4 } }))).toBe('7');
    expect(toolCalls(modern.received).slice(before.m)).toEqual(['add']);
    expect(toolCalls(legacy.received).slice(before.l)).toEqual(['add']);
    const prompt = await client.getPrompt({ name: 'b__greet', arguments: { name: 'carol' } });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Hello, carol! (from legacy-upstream)' });
  });

  it('answers an unknown prefix or a bare name with -32602', async () => {
    await expect(client.callTool({ name: 'gamma__add', arguments: { a: 1, b: 2 } })).rejects.toMatchObject({ code: -32602 });
    await expect(client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('prefix ""', () => {
  let gw: TestGateway;
  let client: ModernClient;

  beforeAll(async () => {
    ({ gw, client } = await gatewayWith(`
upstreams:
  - name: first
    prefix: ""
    url: ${modern.url}
  - name: second
    prefix: ""
    url: ${legacy.url}
`));
  });

  it('keeps the bare names of the first upstream and renames the colliding ones deterministically', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([...MODERN_TOOLS, ...LEGACY_TOOLS.map((t) => `${t}_${hash8(`second/${t}`)}`)]);
    // Same inputs, same names: a second listing (a fresh merge) agrees.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(names);
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(['greet', `greet_${hash8('second/greet')}`]);
  });

  it('calls both the kept and the renamed tool, each on its own upstream', async () => {
    const before = { m: toolCalls(modern.received).length, l: toolCalls(legacy.received).length };
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'kept' } }))).toBe('kept');
    expect(textOf(await client.callTool({ name: `echo_${hash8('second/echo')}`, arguments: { message: 'renamed' } }))).toBe('renamed');
    expect(toolCalls(modern.received).slice(before.m)).toEqual(['echo']);
    expect(toolCalls(legacy.received).slice(before.l)).toEqual(['echo']);
    const prompt = await client.getPrompt({ name: `greet_${hash8('second/greet')}`, arguments: { name: 'bob' } });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Hello, bob! (from legacy-upstream)' });
  });

  it('logs one warning per rename, naming it, however often the lists are merged', async () => {
    // The modern upstream sends ttlMs 0, so every list above was a fresh merge.
    await client.listTools();
    const renames = gw.logs.filter((l) => l.level === 'warn' && l.msg === 'name changed while merging' && l.kind === 'tools');
    expect(renames.find((l) => l.original === 'echo')).toMatchObject({ upstream: 'second', original: 'echo', exposed: `echo_${hash8('second/echo')}`, reason: 'collision' });
    expect(renames.map((l) => l.original).sort()).toEqual([...LEGACY_TOOLS].sort());
    expect(renames.some((l) => l.upstream === 'first')).toBe(false);
  });
});

describe('maxNameLength: 20', () => {
  let gw: TestGateway;
  let client: ModernClient;
  const PREFIX = 'longupstreamname';

  beforeAll(async () => {
    ({ gw, client } = await gatewayWith(`
maxNameLength: 20
upstreams:
  - name: ${PREFIX}
    url: ${modern.url}
`));
  });

  it('shortens every over-long name to a stable hashed form within the limit', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const expected = MODERN_TOOLS.map((t) => {
      const full = `${PREFIX}__${t}`;
      return `${full.slice(0, 11)}_${hash8(full)}`;
    });
    expect(names).toEqual(expected);
    expect(names.every((n) => n.length <= 20)).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    await client.listTools();
    const logged = gw.logs.filter((l) => l.level === 'warn' && l.reason === 'too_long' && l.kind === 'tools');
    expect(logged.map((l) => l.exposed)).toEqual(expected);
  });

  it('calls shortened tools and gets shortened prompts', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const add = names[MODERN_TOOLS.indexOf('add')]!;
    const echo = names[MODERN_TOOLS.indexOf('echo')]!;
    expect(textOf(await client.callTool({ name: add, arguments: { a: 20, b: 22 } }))).toBe('42');
    const echoed = await client.callTool({ name: echo, arguments: { message: 'short' } });
    expect(echoed.structuredContent).toEqual({ message: 'short' });
    const [prompt] = (await client.listPrompts()).prompts;
    expect(prompt!.name.length).toBeLessThanOrEqual(20);
    const got = await client.getPrompt({ name: prompt!.name, arguments: { name: 'alice' } });
    expect(got.messages[0]!.content).toEqual({ type: 'text', text: 'Hello, alice! (from modern-upstream)' });
  });
});

describe.each([
  { order: ['modern', 'legacy'], keeps: 'modern' },
  { order: ['legacy', 'modern'], keeps: 'legacy' },
])('a resource URI on both upstreams, config order $order', ({ order, keeps }) => {
  let client: ModernClient;
  const other = keeps === 'modern' ? 'legacy' : 'modern';
  const rewritten = `gatehouse://${other}/${encodeURIComponent('mem://shared/readme')}`;

  beforeAll(async () => {
    const url = { modern: modern.url, legacy: legacy.url };
    ({ client } = await gatewayWith(`
upstreams:
${order.map((n) => `  - name: ${n}\n    url: ${url[n as 'modern' | 'legacy']}`).join('\n')}
`));
  });

  it('keeps the URI for the first upstream and lists the other under gatehouse://', async () => {
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris.filter((u) => u === 'mem://shared/readme')).toHaveLength(1);
    expect(uris).toContain(rewritten);
    expect(uris.indexOf('mem://shared/readme')).toBeLessThan(uris.indexOf(rewritten));
    expect(uris).toEqual(expect.arrayContaining(['mem://modern/only', 'mem://legacy/only']));
  });

  it('reads each copy from its own upstream, under the URI the client asked for', async () => {
    const kept = await client.readResource({ uri: 'mem://shared/readme' });
    expect(kept.contents).toEqual([{ uri: 'mem://shared/readme', mimeType: 'text/plain', text: `${keeps} readme` }]);
    const moved = await client.readResource({ uri: rewritten });
    expect(moved.contents).toEqual([{ uri: rewritten, mimeType: 'text/plain', text: `${other} readme` }]);
  });

  it('does not serve a gatehouse:// URI for an upstream that is not configured', async () => {
    await expect(client.readResource({ uri: `gatehouse://nobody/${encodeURIComponent('mem://shared/readme')}` })).rejects.toMatchObject({ code: -32602 });
  });
});
