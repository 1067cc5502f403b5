// What the gateway emits is valid for the era it speaks (docs/architecture.md §2): every result a raw
// modern request gets is checked against spec/2026-07-28/schema.json, every result of a raw
// legacy session against spec/2025-11-25/schema.json, including results bridged from an
// upstream of the other era. Modern results carry resultType "complete" and the gateway's
// serverInfo; legacy results carry none of the modern-only fields (MCP 2026-07-28, basic/index (resultType)).
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import type { ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';
import { useErasBed } from '../harness/gateway-bed.ts';

type Era = '2026-07-28' | '2025-11-25';
// The official MCP JSON Schemas, vendored as data with their attribution (test/spec/README.md).
const SPEC_DIR = new URL('../spec/', import.meta.url).pathname;
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const MODERN_ONLY = ['resultType', 'ttlMs', 'cacheScope'];

// One Ajv per file, both revisions registered under their version as schema id; each $def
// is compiled once, on first use.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
for (const era of ['2026-07-28', '2025-11-25'] as const) {
  ajv.addSchema(JSON.parse(readFileSync(`${SPEC_DIR}${era}/schema.json`, 'utf8')), era);
}

function expectValid(era: Era, def: string, value: unknown): void {
  const validate = ajv.getSchema(`${era}#/$defs/${def}`);
  if (!validate) throw new Error(`no $defs/${def} in ${era}`);
  const ok = validate(value);
  expect(ok ? [] : validate.errors, `${def} (${era}): ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
}

interface Probe {
  method: string;
  params?: Record<string, unknown>;
  def: string;
}

// Every routed method, against each upstream; the readme collision gives one gatehouse:// uri.
const PROBES: Probe[] = [
  { method: 'tools/list', def: 'ListToolsResult' },
  { method: 'prompts/list', def: 'ListPromptsResult' },
  { method: 'resources/list', def: 'ListResourcesResult' },
  { method: 'resources/templates/list', def: 'ListResourceTemplatesResult' },
  ...['modern', 'legacy'].flatMap((u): Probe[] => [
    { method: 'tools/call', params: { name: `${u}__echo`, arguments: { message: 'schema' } }, def: 'CallToolResult' },
    { method: 'tools/call', params: { name: `${u}__fail`, arguments: {} }, def: 'CallToolResult' },
    { method: 'prompts/get', params: { name: `${u}__greet`, arguments: { name: 'bob' } }, def: 'GetPromptResult' },
    { method: 'resources/read', params: { uri: `mem://${u}/items/4` }, def: 'ReadResourceResult' },
    { method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: `${u}__greet` }, argument: { name: 'name', value: 'a' } }, def: 'CompleteResult' },
  ]),
  { method: 'resources/read', params: { uri: 'mem://shared/readme' }, def: 'ReadResourceResult' },
  { method: 'resources/read', params: { uri: `gatehouse://legacy/${encodeURIComponent('mem://shared/readme')}` }, def: 'ReadResourceResult' },
  { method: 'tools/call', params: { name: 'everything__get-tiny-image', arguments: {} }, def: 'CallToolResult' },
  { method: 'tools/call', params: { name: 'everything__get-structured-content', arguments: { location: 'Chicago' } }, def: 'CallToolResult' },
  { method: 'tools/call', params: { name: 'everything__get-resource-links', arguments: { count: 2 } }, def: 'CallToolResult' },
  { method: 'prompts/get', params: { name: 'everything__resource-prompt', arguments: { resourceType: 'Text', resourceId: '1' } }, def: 'GetPromptResult' },
  { method: 'resources/read', params: { uri: 'demo://resource/dynamic/blob/2' }, def: 'ReadResourceResult' },
];

it('has a validator that rejects what each revision rejects (so a pass below means something)', () => {
  const invalid = (era: Era, def: string, value: unknown) => expect(ajv.getSchema(`${era}#/$defs/${def}`)!(value)).toBe(false);
  invalid('2026-07-28', 'ListToolsResult', { resultType: 'complete', tools: [] });
  invalid('2026-07-28', 'CallToolResult', { content: [] });
  invalid('2025-11-25', 'CallToolResult', { content: [], structuredContent: [1] });
  invalid('2025-11-25', 'InitializeResult', { protocolVersion: '2025-11-25', capabilities: {} });
});

const label = (p: Probe) => `${p.method} ${JSON.stringify(p.params?.name ?? p.params?.uri ?? p.params?.ref ?? '')}`;

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let gw: TestGateway;
const streams: SseMessages[] = [];
let nextId = 1;

useErasBed((bed) => ({ upstream: { modern, legacy }, gw } = bed));

afterAll(() => {
  for (const s of streams) s.close();
});

describe('modern (2026-07-28) responses', () => {
  async function call(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const name = method === 'resources/read' ? params.uri : method === 'tools/call' || method === 'prompts/get' ? params.name : undefined;
    const res = await postJson(gw.url, modernBody(nextId++, method, params), modernHeaders(method, name as string | undefined));
    expect(res.status).toBe(200);
    expect(res.json.error).toBeUndefined();
    expectValid('2026-07-28', 'JSONRPCResultResponse', res.json);
    return res.json.result;
  }

  function expectModernShape(result: any): void {
    expect(result.resultType).toBe('complete');
    expect(result._meta[SERVER_INFO]).toMatchObject({ name: 'gatehouse' });
  }

  it('server/discover is a DiscoverResult offering both eras and every capability served', async () => {
    const result = await call('server/discover');
    expectValid('2026-07-28', 'DiscoverResult', result);
    expectModernShape(result);
    expect(result.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25']));
    expect(Object.keys(result.capabilities)).toEqual(expect.arrayContaining(['tools', 'prompts', 'resources', 'completions']));
  });

  it.each(PROBES.map((p) => [label(p), p] as const))('%s', async (_label, probe) => {
    const result = await call(probe.method, probe.params);
    expectValid('2026-07-28', probe.def, result);
    expectModernShape(result);
  });

  it.each([
    ['a missing Mcp-Name', 'HeaderMismatchError', 'tools/call', { name: 'modern__echo', arguments: { message: 'm' } }, {}, 400],
    ['an unsupported MCP-Protocol-Version', 'UnsupportedProtocolVersionError', 'tools/list', {}, { 'mcp-protocol-version': '1900-01-01' }, 400],
  ] as const)('%s is a whole %s response', async (_label, def, method, params, extra, status) => {
    const res = await postJson(gw.url, modernBody(nextId++, method, params), { ...modernHeaders(method), ...extra });
    expect(res.status).toBe(status);
    expectValid('2026-07-28', def, res.json);
  });

  it.each([
    ['an unknown method', 'MethodNotFoundError', 'ping', {}],
    ['an unknown tool', 'InvalidParamsError', 'tools/call', { name: 'modern__nope', arguments: {} }],
    ['a bad logLevel', 'InvalidParamsError', 'tools/list', { _meta: { 'io.modelcontextprotocol/logLevel': 'loud' } }],
  ] as const)('%s is a valid %s', async (_label, def, method, params) => {
    const res = await postJson(gw.url, modernBody(nextId++, method, params), modernHeaders(method, (params as { name?: string }).name));
    expectValid('2026-07-28', 'JSONRPCErrorResponse', res.json);
    expectValid('2026-07-28', def, res.json.error);
  });

  it.each(['modern', 'legacy'])('progress from the %s upstream streams as 2026-07-28 ProgressNotifications, then a CallToolResult', async (u) => {
    const body = modernBody(nextId++, 'tools/call', { name: `${u}__slow`, arguments: { ms: 20, steps: 2 }, _meta: { progressToken: `schema-${u}` } });
    const { response, sse } = await openSse(gw.url, { method: 'POST', headers: modernHeaders('tools/call', `${u}__slow`), body: JSON.stringify(body) });
    streams.push(sse);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await sse.waitFor(3);
    const [p1, p2, final] = sse.messages;
    for (const p of [p1, p2]) {
      expectValid('2026-07-28', 'ProgressNotification', p);
      expect(p.params.progressToken).toBe(`schema-${u}`);
    }
    expectValid('2026-07-28', 'JSONRPCResultResponse', final);
    expectValid('2026-07-28', 'CallToolResult', final.result);
  });

  it('an invalid cursor is a valid InvalidParamsError response', async () => {
    const res = await postJson(gw.url, modernBody(nextId++, 'tools/list', { cursor: 'bogus' }), modernHeaders('tools/list'));
    expectValid('2026-07-28', 'JSONRPCErrorResponse', res.json);
    expectValid('2026-07-28', 'InvalidParamsError', res.json.error);
  });
});

describe('legacy (2025-11-25) responses over a raw session', () => {
  let session: string;
  const legacyHeaders = () => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': session,
    'mcp-protocol-version': '2025-11-25',
  });

  async function call(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const res = await postJson(gw.url, { jsonrpc: '2.0', id: nextId++, method, params }, legacyHeaders());
    expect(res.status).toBe(200);
    expect(res.json.error).toBeUndefined();
    expectValid('2025-11-25', 'JSONRPCResultResponse', res.json);
    return res.json.result;
  }

  function expectLegacyShape(result: any): void {
    for (const f of MODERN_ONLY) expect(result).not.toHaveProperty(f);
    expect(result._meta?.[SERVER_INFO]).toBeUndefined();
  }

  beforeAll(async () => {
    const init = await postJson(
      gw.url,
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-legacy', version: '1' } } },
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    );
    expect(init.status).toBe(200);
    session = init.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    expectValid('2025-11-25', 'InitializeResult', init.json.result);
    expect(init.json.result.protocolVersion).toBe('2025-11-25');
    expectLegacyShape(init.json.result);
    const initialized = await postJson(gw.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, legacyHeaders());
    expect(initialized.status).toBe(202);
  });

  it('an unknown tool is a valid 2025-11-25 error response', async () => {
    const res = await postJson(gw.url, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'legacy__nope', arguments: {} } }, legacyHeaders());
    expectValid('2025-11-25', 'JSONRPCErrorResponse', res.json);
    expect(res.json.error.code).toBe(-32602);
  });

  it.each(['modern', 'legacy'])('progress from the %s upstream streams as 2025-11-25 ProgressNotifications, then a CallToolResult', async (u) => {
    const body = { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: `${u}__slow`, arguments: { ms: 20, steps: 2 }, _meta: { progressToken: 9 } } };
    const { response, sse } = await openSse(gw.url, { method: 'POST', headers: legacyHeaders(), body: JSON.stringify(body) });
    streams.push(sse);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await sse.waitFor(3);
    const [p1, p2, final] = sse.messages;
    for (const p of [p1, p2]) {
      expectValid('2025-11-25', 'ProgressNotification', p);
      expect(p.params.progressToken).toBe(9);
    }
    expectValid('2025-11-25', 'JSONRPCResultResponse', final);
    expectValid('2025-11-25', 'CallToolResult', final.result);
    expectLegacyShape(final.result);
  });

  it('ping is an empty result', async () => {
    expect(await call('ping')).toEqual({});
  });

  it.each(PROBES.map((p) => [label(p), p] as const))('%s', async (_label, probe) => {
    const result = await call(probe.method, probe.params);
    expectValid('2025-11-25', probe.def, result);
    expectLegacyShape(result);
    if (probe.method === 'tools/list') {
      // 2025-11-25 requires an object outputSchema; x-mcp-header stays (extra keywords are fine).
      for (const t of result.tools) if (t.outputSchema) expect(t.outputSchema.type).toBe('object');
    }
  });
});

describe('change notifications', () => {
  it('are valid for the era of each stream: a modern listen and a legacy GET stream', async () => {
    const init = await postJson(
      gw.url,
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-legacy', version: '1' } } },
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    );
    const session = init.headers.get('mcp-session-id')!;
    const listeners = gw.notifier.size();
    const listen = await openSse(gw.url, {
      method: 'POST',
      headers: modernHeaders('subscriptions/listen'),
      body: JSON.stringify(modernBody('schema-listen', 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
    });
    const get = await openSse(gw.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
    streams.push(listen.sse, get.sse);
    expect(get.response.status).toBe(200);
    await listen.sse.waitFor(1);
    expectValid('2026-07-28', 'SubscriptionsAcknowledgedNotification', listen.sse.messages[0]);
    await expect.poll(() => gw.notifier.size(), { timeout: 5000 }).toBeGreaterThanOrEqual(listeners + 2);

    // The gateway hears the legacy upstream on its GET stream; wait until that is open.
    await expect.poll(() => legacy.openGetStreams(), { timeout: 5000 }).toBeGreaterThan(0);
    legacy.setExtraTool(true);
    await listen.sse.waitFor(2);
    await get.sse.waitFor(1);
    expectValid('2026-07-28', 'ToolListChangedNotification', listen.sse.messages[1]);
    expect(listen.sse.messages[1].params._meta['io.modelcontextprotocol/subscriptionId']).toBe('schema-listen');
    expectValid('2025-11-25', 'ToolListChangedNotification', get.sse.messages[0]);
    expect(get.sse.messages[0].params?._meta?.['io.modelcontextprotocol/subscriptionId']).toBeUndefined();
  });
});
