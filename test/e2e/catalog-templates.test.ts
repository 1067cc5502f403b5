// Resource templates across upstreams (MCP 2026-07-28, server/resources and server/prompts): reads route by RFC 6570 match in config
// order, and completion refs, which name a template rather than a uri, route to the upstream
// that listed that template, whatever its expressions ({?q}, {/path}). Next to the legacy
// fixture, a small 2.x SDK server whose templates use query and path expressions.
import { createMcpHandler, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { serveWebHandler, type ReceivedRequest } from '../fixtures/http-edge.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';

const SEARCH = 'search://docs{?q}';
const PAGES = 'docs://pages{/path}';

interface Completer {
  complete(params: { ref: { type: 'ref/resource'; uri: string }; argument: { name: string; value: string } }): Promise<{ completion: { values: string[] } }>;
  readResource(params: { uri: string }): Promise<{ contents: { uri: string; text?: string }[] }>;
  close(): Promise<void>;
}

/** A modern upstream with only templates, whose expressions are not simple `{var}`s. */
async function startDocsUpstream(received: ReceivedRequest[]): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'docs', version: '1.0.0' }, { capabilities: { resources: {}, completions: {} } });
    const search = new ResourceTemplate(SEARCH, { list: undefined, complete: { q: (v) => ['alpha', 'beta'].filter((x) => x.startsWith(v)) } });
    server.registerResource('search', search, { mimeType: 'text/plain' }, (uri, vars) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `results for ${String(vars.q)}` }],
    }));
    const pages = new ResourceTemplate(PAGES, { list: undefined, complete: { path: (v) => ['intro', 'install', 'usage'].filter((x) => x.startsWith(v)) } });
    server.registerResource('page', pages, { mimeType: 'text/plain' }, (uri, vars) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `page ${String(vars.path)}` }],
    }));
    return server;
  }, { legacy: 'reject', keepAliveMs: 0 });
  return serveWebHandler(received, handler);
}

const docsReceived: ReceivedRequest[] = [];
let docs: { url: string; close(): Promise<void> };
let legacy: LegacyUpstream;
let gw: TestGateway;

useGatewayBed({
  upstream: () => startAll({ docs: startDocsUpstream(docsReceived), legacy: startLegacyUpstream() }),
  config: (up) => `
upstreams:
  - name: docs
    url: ${up.docs.url}
  - name: legacy
    url: ${up.legacy.url}
`,
  ready: (bed) => ({ upstream: { docs, legacy }, gw } = bed),
});

it('lists the templates of both upstreams in config order', async () => {
  const res = await postJson(gw.url, modernBody(1, 'resources/templates/list'), modernHeaders('resources/templates/list'));
  expect(res.json.result.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate)).toEqual([SEARCH, PAGES, 'mem://legacy/items/{id}']);
});

describe.each(['modern', 'legacy'] as const)('a %s client', (era) => {
  let client: Completer;

  beforeAll(async () => {
    client = (era === 'modern' ? await connectModernClient(gw.url) : await connectLegacyClient(gw.url)) as unknown as Completer;
  });
  afterAll(() => client?.close());

  it('completes the variables of templates with query and path expressions', async () => {
    const before = docsReceived.length;
    const q = await client.complete({ ref: { type: 'ref/resource', uri: SEARCH }, argument: { name: 'q', value: 'a' } });
    expect(q.completion.values).toEqual(['alpha']);
    const path = await client.complete({ ref: { type: 'ref/resource', uri: PAGES }, argument: { name: 'path', value: 'in' } });
    expect(path.completion.values).toEqual(['intro', 'install']);
    const sent = docsReceived.slice(before).filter((r) => (r.body as { method?: string } | undefined)?.method === 'completion/complete');
    expect(sent.map((r) => (r.body as { params: { ref: { uri: string } } }).params.ref.uri)).toEqual([SEARCH, PAGES]);
  });

  it('still completes a simple template of the other upstream', async () => {
    const id = await client.complete({ ref: { type: 'ref/resource', uri: 'mem://legacy/items/{id}' }, argument: { name: 'id', value: '1' } });
    expect(id.completion.values).toEqual(['1', '10']);
  });

  it('reads uris that match each template from the upstream that owns it', async () => {
    const search = await client.readResource({ uri: 'search://docs?q=zz' });
    expect(search.contents).toEqual([{ uri: 'search://docs?q=zz', mimeType: 'text/plain', text: 'results for zz' }]);
    const page = await client.readResource({ uri: 'docs://pages/intro' });
    expect(page.contents[0]!.text).toBe('page intro');
    const item = await client.readResource({ uri: 'mem://legacy/items/3' });
    expect(item.contents[0]!.text).toBe('legacy item 3');
  });
});

it('answers a uri no upstream lists or matches with -32602 "Resource not found" and the uri', async () => {
  const uri = 'nowhere://x';
  const res = await postJson(gw.url, modernBody(2, 'resources/read', { uri }), modernHeaders('resources/read', uri));
  expect(res.json.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri } });
});
