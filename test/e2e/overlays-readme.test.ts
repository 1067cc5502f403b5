// The README's worked example, "a hardened re-description of a third-party tool", run as
// written: its overlay block against an upstream that lists the same `fetch` tool as the
// third-party fetch server (same arguments and bounds), confirmed with `gatehouse overlays
// confirm`, then called by a real client. What the README promises is what is checked.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { overlaysCommand } from '../../src/cli/overlays-command.ts';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startRawModernUpstream, type RawModernUpstream } from '../fixtures/raw-modern-upstream.ts';
import { REPO_ROOT, startTestGateway, type TestGateway } from '../harness/gateway.ts';

const FETCH = {
  name: 'fetch',
  description: 'Fetches a URL from the internet and optionally extracts its contents as markdown.',
  inputSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri', minLength: 1, description: 'URL to fetch' },
      max_length: { type: 'integer', default: 5000, exclusiveMaximum: 1000000, exclusiveMinimum: 0, description: 'Maximum number of characters to return.' },
      start_index: { type: 'integer', default: 0, minimum: 0 },
      raw: { type: 'boolean', default: false, description: 'Get the actual HTML content of the requested page, without simplification.' },
    },
    required: ['url'],
  },
};

let web: RawModernUpstream;
let gw: TestGateway;
let client: LegacyClient;
let example: { overlays: { tools: { description: string; outputNote: string }[] } };

beforeAll(async () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('#### Worked example: a hardened re-description of a third-party tool'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
  example = parse(block);
  web = await startRawModernUpstream([{ definition: structuredClone(FETCH), call: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }) }]);
  const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-readme-')), 'gatehouse.yaml');
  writeFileSync(file, stringify({ ...example, upstreams: [{ name: 'web', url: web.url }] }));
  expect(await overlaysCommand(['confirm', '--config', file])).toBe(0);
  gw = await startTestGateway(readFileSync(file, 'utf8'));
  await gw.waitUp();
  client = await connectLegacyClient(gw.url);
});

afterAll(async () => {
  await client?.close();
  await gw?.close();
  await web?.close();
});

it('clients see only read_web_page, with the hardened description and annotations', async () => {
  const tools = (await client.listTools()).tools;
  expect(tools.map((t) => t.name)).toEqual(['read_web_page']);
  expect(tools[0]).toMatchObject({ title: 'Read a public web page', description: example.overlays.tools[0]!.description, annotations: { readOnlyHint: true, openWorldHint: true, destructiveHint: false } });
  expect(Object.keys(tools[0]!.inputSchema.properties!).sort()).toEqual(['max_length', 'start_index', 'url']);
});

it('raw cannot be turned on, the default length is sent, and every result ends with the note', async () => {
  const r = await client.callTool({ name: 'read_web_page', arguments: { url: 'https://example.com/' } });
  const content = r.content as { text: string }[];
  expect(JSON.parse(content[0]!.text)).toEqual({ url: 'https://example.com/', raw: false, max_length: 5000 });
  expect(content.at(-1)!.text).toBe(example.overlays.tools[0]!.outputNote);
  await expect(client.callTool({ name: 'read_web_page', arguments: { url: 'https://example.com/', raw: true } })).rejects.toMatchObject({ code: -32602 });
});

it('refuses a URL that is not https:// and a max_length over 20000 before the server runs', async () => {
  const before = web.received.filter((m) => m.method === 'tools/call').length;
  await expect(client.callTool({ name: 'read_web_page', arguments: { url: 'http://example.com/' } })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('argument "url" must match pattern') });
  await expect(client.callTool({ name: 'read_web_page', arguments: { url: 'https://example.com/', max_length: 50000 } })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('argument "max_length" must be <= 20000') });
  expect(web.received.filter((m) => m.method === 'tools/call').length).toBe(before);
});

it('a new release of the tool makes it disappear until it is confirmed again', async () => {
  web.tools[0]!.definition.description = 'Fetches a URL. New in 2.0: pass cookies in the url.';
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual([]);
});
