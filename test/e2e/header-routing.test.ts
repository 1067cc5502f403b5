// Header routing end to end (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters, config `route`): one upstream name over two real
// modern upstreams, the target chosen per tools/call by the decoded Mcp-Param-Region value.
// Both client eras go through the gateway: a modern client sends its own Mcp-Param-* headers
// (checked by the gateway), a legacy client sends none, and the gateway computes them from
// the arguments either way. Each upstream's `received` list shows where a call landed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { QUERY_INPUT_SCHEMA, startModernUpstream, type ModernUpstream, type ReceivedRequest } from '../fixtures/modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';

/** The calls both SDK generations share. */
interface CommonClient {
  listTools(): Promise<{ tools: { name: string; inputSchema: { properties?: Record<string, object> } }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{ content: unknown }>;
  close(): Promise<void>;
}

const CLIENTS: { era: string; connect: (url: string) => Promise<CommonClient> }[] = [
  { era: 'modern (2.x)', connect: (url) => connectModernClient(url) as Promise<CommonClient> },
  { era: 'legacy (1.x)', connect: (url) => connectLegacyClient(url) as Promise<CommonClient> },
];

const routeYaml = (us: string, eu: string, withDefault: boolean) => `
upstreams:
  - name: sql
    route:
      by: region
      targets:
        "us-*": ${us}
        "eu-*": ${eu}
${withDefault ? `      default: ${us}\n` : ''}    timeout: 10s
`;

let us: ModernUpstream;
let eu: ModernUpstream;
let gw: TestGateway;
let strict: TestGateway;

beforeAll(async () => {
  [us, eu] = await Promise.all([startModernUpstream({ name: 'us-upstream' }), startModernUpstream({ name: 'eu-upstream' })]);
  [gw, strict] = await Promise.all([startTestGateway(routeYaml(us.url, eu.url, true)), startTestGateway(routeYaml(us.url, eu.url, false))]);
  await Promise.all([gw.waitUp(), strict.waitUp()]);
});

afterAll(async () => {
  await Promise.all([gw?.close(), strict?.close()]);
  await Promise.all([us?.close(), eu?.close()]);
});

/** tools/call requests an upstream received for the `query` tool with this query text. */
function callsWith(upstream: ModernUpstream, query: string): ReceivedRequest[] {
  return upstream.received.filter((r) => {
    const body = r.body as { method?: string; params?: { arguments?: { query?: unknown } } } | undefined;
    return body?.method === 'tools/call' && body.params?.arguments?.query === query;
  });
}

function textOf(result: { content: unknown }): string {
  return (result.content as { type: string; text: string }[])[0]!.text;
}

describe.each(CLIENTS)('$era client through a routed upstream', ({ era, connect }) => {
  let client: CommonClient;
  let tag = 0;
  // A query text unique to this client and call, so `received` tells calls apart.
  const nextQuery = () => `${era.split(' ')[0]}-${++tag}`;

  beforeAll(async () => {
    client = await connect(gw.url);
    // The modern client mirrors Mcp-Param-* only for tools whose schema it has seen.
    await client.listTools();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists sql__query once, with its x-mcp-header annotations unchanged', async () => {
    const { tools } = await client.listTools();
    const queries = tools.filter((t) => t.name === 'sql__query');
    expect(queries).toHaveLength(1);
    expect(queries[0]!.inputSchema.properties).toEqual(QUERY_INPUT_SCHEMA.properties);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it.each([
    ['eu-west', () => eu, () => us],
    ['us-east', () => us, () => eu],
    ['ap-south', () => us, () => eu],
  ])('sends region %s to its target only, with the upstream\'s own Mcp-* headers', async (region, target, other) => {
    const query = nextQuery();
    const result = await client.callTool({ name: 'sql__query', arguments: { region, query, limit: 3 } });
    expect(textOf(result)).toBe(`${region}:${query}:3`);
    const [seen, ...more] = callsWith(target(), query);
    expect(more).toEqual([]);
    expect(callsWith(other(), query)).toEqual([]);
    expect(seen!.headers).toMatchObject({
      'mcp-method': 'tools/call',
      'mcp-name': 'query',
      'mcp-param-region': region,
      'mcp-param-limit': '3',
    });
  });

  it('routes a non-ASCII value by its decoded form while it travels Base64-encoded', async () => {
    const query = nextQuery();
    const region = 'eu-Zürich';
    const result = await client.callTool({ name: 'sql__query', arguments: { region, query } });
    expect(textOf(result)).toBe(`${region}:${query}:none`);
    expect(callsWith(us, query)).toEqual([]);
    const [seen] = callsWith(eu, query);
    expect(seen!.headers['mcp-param-region']).toBe(`=?base64?${Buffer.from(region, 'utf8').toString('base64')}?=`);
    expect(seen!.headers['mcp-param-limit']).toBeUndefined();
  });

  it('without a default, refuses an unmatched value with a JSON-RPC error naming it, contacting no upstream', async () => {
    const strictClient = await connect(strict.url);
    try {
      await strictClient.listTools();
      const query = nextQuery();
      const call = strictClient.callTool({ name: 'sql__query', arguments: { region: 'ap-south', query } });
      await expect(call).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("'ap-south'") });
      await expect(call).rejects.toThrow(/Upstream "sql" has no target for Mcp-Param-region value 'ap-south'/);
      expect([...callsWith(us, query), ...callsWith(eu, query)]).toEqual([]);
    } finally {
      await strictClient.close();
    }
  });
});

describe('routed upstream: everything but a routed tools/call goes to the list source', () => {
  it('sends lists to the default target only', () => {
    const lists = (u: ModernUpstream) => u.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/list');
    expect(lists(us).length).toBeGreaterThan(0);
    expect(lists(eu)).toEqual([]);
  });

  it('sends a call whose tool has no route parameter to the first target when there is no default', async () => {
    const client = await connectModernClient(strict.url);
    try {
      const before = eu.received.length;
      const result = await client.callTool({ name: 'sql__echo', arguments: { message: 'unrouted' } });
      expect(result.content).toEqual([{ type: 'text', text: 'unrouted' }]);
      const echoes = us.received.filter((r) => r.headers['mcp-name'] === 'echo' && JSON.stringify(r.body).includes('unrouted'));
      expect(echoes).toHaveLength(1);
      expect(eu.received.slice(before).filter((r) => r.headers['mcp-name'] === 'echo')).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('logs each routing decision at debug level with the pattern and target', () => {
    const decisions = gw.logs.filter((l) => l.msg === 'routed tools/call');
    expect(decisions).toContainEqual(expect.objectContaining({
      level: 'debug', upstream: 'sql', tool: 'query', header: 'Mcp-Param-region', value: 'eu-west', pattern: 'eu-*', target: eu.url,
    }));
    expect(decisions).toContainEqual(expect.objectContaining({ value: 'ap-south', pattern: 'default', target: us.url }));
  });
});

describe('routed upstream status', () => {
  it('reports the set as down while one target is down, naming that target', async () => {
    const dead = 'http://127.0.0.1:1/mcp';
    const broken = await startTestGateway(`
upstreams:
  - name: sql
    route: { by: Region, targets: { "us-*": "${us.url}", "eu-*": "${dead}" } }
    timeout: 5s
`);
    try {
      const sql = broken.upstreams[0]!;
      // The dead target may fail before the live one (the list source) has finished its probe.
      await expect.poll(() => sql.status().state === 'down' && sql.status().era !== undefined, { timeout: 10_000 }).toBe(true);
      const status = sql.status();
      expect(status).toMatchObject({ name: 'sql', transport: 'http', state: 'down', era: 'modern' });
      expect(status.lastError).toContain(`target ${dead}: `);
      expect(status.lastError).not.toContain(us.url);
      expect(sql.identity()?.serverInfo).toMatchObject({ name: 'us-upstream' });
      // The healthy target still serves its calls.
      const client = await connectLegacyClient(broken.url);
      try {
        const result = await client.callTool({ name: 'sql__query', arguments: { region: 'us-1', query: 'still-up' } });
        expect(result.content).toEqual([{ type: 'text', text: 'us-1:still-up:none' }]);
      } finally {
        await client.close();
      }
    } finally {
      await broken.close();
    }
  });
});
