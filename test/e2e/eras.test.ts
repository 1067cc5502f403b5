// Era bridging end to end (README, Protocol eras: bridging): a legacy 1.x client and a modern 2.x client,
// each through one gateway, against a modern HTTP upstream, a legacy HTTP upstream and
// server-everything over stdio. Every primitive the gateway routes is exercised for every
// (client era x upstream) pair, through the real SDK clients, which validate what they get.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import type { LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import type { ModernUpstream } from '../fixtures/modern-upstream.ts';
import { type TestGateway } from '../harness/gateway.ts';
import { useErasBed } from '../harness/gateway-bed.ts';

/** The calls both SDK generations share, with the result fields the tests read. */
interface CommonClient {
  listTools(params?: { cursor?: string }): Promise<{ tools: { name: string }[]; nextCursor?: string }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{ content: unknown; structuredContent?: unknown; isError?: boolean }>;
  getPrompt(params: { name: string; arguments: Record<string, string> }): Promise<{ messages: { role: string; content: unknown }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: { uri: string; text?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  complete(params: { ref: { type: string; name?: string; uri?: string }; argument: { name: string; value: string } }): Promise<{ completion: { values: string[] } }>;
  close(): Promise<void>;
}

interface UpstreamCase {
  upstream: string;
  /** The upstream's own tool names, in its order. */
  tools: string[];
  call: { tool: string; args: Record<string, unknown>; content: unknown[]; structuredContent?: unknown };
  prompt: { name: string; args: Record<string, string>; text: string | RegExp };
  resource: { uri: string; text: string | RegExp };
  templateRead: { uri: string; text: string | RegExp };
  template: string;
  completePrompt: { name: string; arg: string; value: string; values: string[] };
  completeResource: { uri: string; arg: string; value: string; values: string[] };
}

const FIXTURE_CASE = (era: 'modern' | 'legacy', tools: string[]): UpstreamCase => ({
  upstream: era,
  tools,
  call: { tool: 'echo', args: { message: `hi via ${era}` }, content: [{ type: 'text', text: `hi via ${era}` }], structuredContent: { message: `hi via ${era}` } },
  prompt: { name: 'greet', args: { name: 'bob' }, text: `Hello, bob! (from ${era}-upstream)` },
  resource: { uri: `mem://${era}/only`, text: `only on the ${era} upstream` },
  templateRead: { uri: `mem://${era}/items/7`, text: `${era} item 7` },
  template: `mem://${era}/items/{id}`,
  completePrompt: { name: 'greet', arg: 'name', value: 'al', values: ['alice', 'albert'] },
  completeResource: { uri: `mem://${era}/items/{id}`, arg: 'id', value: '1', values: ['1', '10'] },
});

const CASES: UpstreamCase[] = [
  FIXTURE_CASE('modern', ['echo', 'add', 'slow', 'fail', 'query', 'elicit']),
  FIXTURE_CASE('legacy', ['echo', 'add', 'slow', 'fail', 'elicit']),
  {
    upstream: 'everything',
    tools: ['echo', 'get-sum', 'get-tiny-image'],
    call: { tool: 'get-sum', args: { a: 2, b: 40 }, content: [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }] },
    prompt: { name: 'args-prompt', args: { city: 'Paris' }, text: "What's weather in Paris?" },
    resource: { uri: 'demo://resource/static/document/features.md', text: /\S/ },
    templateRead: { uri: 'demo://resource/dynamic/text/3', text: /^Resource 3: / },
    template: 'demo://resource/dynamic/text/{resourceId}',
    completePrompt: { name: 'completable-prompt', arg: 'department', value: 'E', values: ['Engineering'] },
    completeResource: { uri: 'demo://resource/dynamic/text/{resourceId}', arg: 'resourceId', value: '1', values: ['1'] },
  },
];

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let gw: TestGateway;

useErasBed((bed) => ({ upstream: { modern, legacy }, gw } = bed));

it('probes each upstream into the era it speaks', () => {
  expect(gw.upstreams.map((u) => [u.name, u.status().era])).toEqual([
    ['modern', 'modern'],
    ['legacy', 'legacy'],
    ['everything', 'legacy'],
  ]);
});

it('answers many concurrent calls to the stdio upstream, each with its own result (writes are batched per turn)', async () => {
  const client = await connectLegacyClient(gw.url);
  try {
    // 32: the default limits.maxConcurrentPerPrincipal (16 running and 16 waiting), so none is
    // refused however slowly the upstream answers.
    const sums = await Promise.all(
      Array.from({ length: 32 }, (_, i) => client.callTool({ name: 'everything__get-sum', arguments: { a: i, b: 1000 } })),
    );
    expect(sums.map((r) => (r.content as { text: string }[])[0]?.text)).toEqual(Array.from({ length: 32 }, (_, i) => `The sum of ${i} and 1000 is ${i + 1000}.`));
  } finally {
    await client.close();
  }
});

describe.each(['legacy', 'modern'] as const)('a %s client', (clientEra) => {
  let client: CommonClient;

  beforeAll(async () => {
    client = (clientEra === 'legacy' ? await connectLegacyClient(gw.url) : await connectModernClient(gw.url)) as unknown as CommonClient;
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists every upstream tool under its prefix, in config order then upstream order', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const c of CASES) {
      const own = names.filter((n) => n.startsWith(`${c.upstream}__`));
      // The fixtures' full lists are known; everything's is checked for the tools used here.
      if (c.upstream !== 'everything') expect(own).toEqual(c.tools.map((t) => `${c.upstream}__${t}`));
      else expect(own).toEqual(expect.arrayContaining(c.tools.map((t) => `everything__${t}`)));
    }
    expect(names.every((n) => /^(modern|legacy|everything)__/.test(n))).toBe(true);
    const firstOf = (prefix: string) => names.findIndex((n) => n.startsWith(prefix));
    expect(firstOf('modern__')).toBeLessThan(firstOf('legacy__'));
    expect(firstOf('legacy__')).toBeLessThan(firstOf('everything__'));
  });

  it('calls a modern tool whose x-mcp-header arguments the gateway mirrors into Mcp-Param-* upstream', async () => {
    // A legacy client never sends Mcp-Param-*; the modern upstream rejects a call without them.
    const result = await client.callTool({ name: 'modern__query', arguments: { region: `eu-${clientEra}`, query: 'select 1', limit: 5 } });
    expect(result.content).toEqual([{ type: 'text', text: `eu-${clientEra}:select 1:5` }]);
    const sent = modern.received.filter((r) => r.headers['mcp-name'] === 'query').at(-1);
    expect(sent?.headers).toMatchObject({ 'mcp-param-region': `eu-${clientEra}`, 'mcp-param-limit': '5', 'mcp-method': 'tools/call' });
  });

  describe.each(CASES)('and the $upstream upstream', (c) => {
    it('calls a tool and returns its result unchanged', async () => {
      const result = await client.callTool({ name: `${c.upstream}__${c.call.tool}`, arguments: c.call.args });
      expect(result.content).toEqual(c.call.content);
      expect(result.isError ?? false).toBe(false);
      if (c.call.structuredContent !== undefined) expect(result.structuredContent).toEqual(c.call.structuredContent);
    });

    it('gets a prompt with its arguments', async () => {
      const result = await client.getPrompt({ name: `${c.upstream}__${c.prompt.name}`, arguments: c.prompt.args });
      expect(result.messages).toHaveLength(1);
      expect(result.messages[0]).toMatchObject({ role: 'user', content: { type: 'text', text: expect.stringMatching(asRegExp(c.prompt.text)) } });
    });

    it('reads a listed resource and a templated one', async () => {
      for (const r of [c.resource, c.templateRead]) {
        const result = await client.readResource({ uri: r.uri });
        expect(result.contents).toHaveLength(1);
        expect(result.contents[0]!.uri).toBe(r.uri);
        expect(result.contents[0]!.text).toMatch(asRegExp(r.text));
      }
    });

    it('lists the resource template', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain(c.template);
    });

    it('completes a prompt argument and a template variable', async () => {
      const byPrompt = await client.complete({
        ref: { type: 'ref/prompt', name: `${c.upstream}__${c.completePrompt.name}` },
        argument: { name: c.completePrompt.arg, value: c.completePrompt.value },
      });
      expect(byPrompt.completion.values).toEqual(c.completePrompt.values);
      const byResource = await client.complete({
        ref: { type: 'ref/resource', uri: c.completeResource.uri },
        argument: { name: c.completeResource.arg, value: c.completeResource.value },
      });
      expect(byResource.completion.values).toEqual(c.completeResource.values);
    });
  });
});

it('sends each upstream its own unprefixed names', () => {
  const called = (u: ModernUpstream | LegacyUpstream) =>
    u.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call').map((r) => (r.body as { params: { name: string } }).params.name);
  // Each client called query (modern only) and echo: the prefix is gone upstream.
  expect(called(modern)).toEqual(['query', 'echo', 'query', 'echo']);
  expect(called(legacy)).toEqual(['echo', 'echo']);
});

function asRegExp(text: string | RegExp): RegExp {
  return typeof text === 'string' ? new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : text;
}

it('a legacy session that set a log level carries it to a modern upstream as _meta logLevel', async () => {
  const client = await connectLegacyClient(gw.url);
  try {
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'modern__echo', arguments: { message: 'leveled' } });
    const sent = modern.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call').at(-1);
    const meta = (sent?.body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta;
    expect(meta?.['io.modelcontextprotocol/logLevel']).toBe('warning');
  } finally {
    await client.close();
  }
});
