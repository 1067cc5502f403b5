// Smoke tests for the e2e fixtures, with no gateway in between: each real SDK client
// talks straight to the upstream of its own era on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function rawQueryCall(url: string, headerRegion: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'query',
      'mcp-param-region': headerRegion,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { _meta: MODERN_META, name: 'query', arguments: { region: 'eu-west1', query: 'select 1' } },
    }),
  });
}

describe('legacy upstream with the 1.x client', () => {
  let upstream: LegacyUpstream;
  let client: LegacyClient;

  beforeAll(async () => {
    upstream = await startLegacyUpstream({ name: 'legacy-a' });
    client = await connectLegacyClient(upstream.url);
  });
  afterAll(async () => {
    await client.close();
    await upstream.close();
  });

  it('negotiates 2025-11-25 with a session and reports the upstream name', () => {
    expect(client.getServerVersion()).toEqual({ name: 'legacy-a', version: '1.0.0' });
    expect(upstream.sessionIds()).toHaveLength(1);
    const init = upstream.received[0];
    expect(init?.method).toBe('POST');
    expect((init?.body as { method: string }).method).toBe('initialize');
  });

  it('lists the fixture tools in registration order', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'add', 'slow', 'fail', 'elicit']);
  });

  it('calls echo and add', async () => {
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello legacy' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'hello legacy' }]);
    expect(echo.structuredContent).toEqual({ message: 'hello legacy' });
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(sum.content).toEqual([{ type: 'text', text: '42' }]);
  });

  it('returns isError from fail', async () => {
    const result = await client.callTool({ name: 'fail', arguments: {} });
    expect(result.isError).toBe(true);
  });

  it('reads the shared readme with the legacy text', async () => {
    const result = await client.readResource({ uri: 'mem://shared/readme' });
    expect(result.contents).toEqual([{ uri: 'mem://shared/readme', mimeType: 'text/plain', text: 'legacy readme' }]);
    const item = await client.readResource({ uri: 'mem://legacy/items/9' });
    expect(item.contents[0]).toMatchObject({ text: 'legacy item 9' });
  });

  it('gets the greet prompt and completes its name argument', async () => {
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'bob' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, bob! (from legacy-a)' } }]);
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'al' } });
    expect(done.completion.values).toEqual(['alice', 'albert']);
  });

  it('lists resources and the template', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['mem://shared/readme', 'mem://legacy/only']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['mem://legacy/items/{id}']);
  });
});

describe('modern upstream with the 2.x client', () => {
  let upstream: ModernUpstream;
  let client: ModernClient;

  beforeAll(async () => {
    upstream = await startModernUpstream({ name: 'modern-a' });
    client = await connectModernClient(upstream.url);
  });
  afterAll(async () => {
    await client.close();
    await upstream.close();
  });

  it('negotiates 2026-07-28 through server/discover', () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()).toEqual({ name: 'modern-a', version: '2.0.0' });
    const probe = upstream.received[0];
    expect((probe?.body as { method: string }).method).toBe('server/discover');
    expect(probe?.headers['mcp-method']).toBe('server/discover');
    expect(probe?.headers['mcp-session-id']).toBeUndefined();
  });

  it('lists the fixture tools with the x-mcp-header annotations intact', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'add', 'slow', 'fail', 'query', 'elicit']);
    const query = tools.find((t) => t.name === 'query');
    expect(query?.inputSchema.properties?.region).toEqual({ type: 'string', 'x-mcp-header': 'Region' });
  });

  it('calls echo and sends the standard headers and _meta', async () => {
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'hello modern' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'hello modern' }]);
    expect(echo.structuredContent).toEqual({ message: 'hello modern' });
    const sent = [...upstream.received].reverse().find((r) => r.headers['mcp-name'] === 'echo');
    expect(sent?.headers).toMatchObject({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      accept: 'application/json, text/event-stream',
    });
    const meta = (sent?.body as { params: { _meta: Record<string, unknown> } }).params._meta;
    expect(meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'modern-test-client', version: '2.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    });
  });

  it('calls query with Mcp-Param headers mirrored from the body', async () => {
    const result = await client.callTool({ name: 'query', arguments: { region: 'eu-west1', query: 'q', limit: 3 } });
    expect(result.content).toEqual([{ type: 'text', text: 'eu-west1:q:3' }]);
    const sent = [...upstream.received].reverse().find((r) => r.headers['mcp-name'] === 'query');
    expect(sent?.headers['mcp-param-region']).toBe('eu-west1');
    expect(sent?.headers['mcp-param-limit']).toBe('3');
  });

  it('reads the shared readme with the modern text', async () => {
    const result = await client.readResource({ uri: 'mem://shared/readme' });
    expect(result.contents).toEqual([{ uri: 'mem://shared/readme', mimeType: 'text/plain', text: 'modern readme' }]);
    const item = await client.readResource({ uri: 'mem://modern/items/4' });
    expect(item.contents[0]).toMatchObject({ text: 'modern item 4' });
  });

  it('gets the greet prompt and completes its name argument', async () => {
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'carol' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, carol! (from modern-a)' } }]);
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'b' } });
    expect(done.completion.values).toEqual(['bob']);
  });

  it('lists resources and the template', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['mem://shared/readme', 'mem://modern/only']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['mem://modern/items/{id}']);
  });

  it('rejects a raw query POST whose Mcp-Param-Region disagrees with the body (400, -32020)', async () => {
    const bad = await rawQueryCall(upstream.url, 'us-east1');
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { id: number; error: { code: number } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32020);
  });

  it('accepts the same raw POST when Mcp-Param-Region matches', async () => {
    const good = await rawQueryCall(upstream.url, 'eu-west1');
    expect(good.status).toBe(200);
    const body = (await good.json()) as { result: { content: unknown; resultType: string } };
    expect(body.result.resultType).toBe('complete');
    expect(body.result.content).toEqual([{ type: 'text', text: 'eu-west1:select 1:none' }]);
  });
});
