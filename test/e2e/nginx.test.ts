// examples/nginx end to end: the real nginx binary, filled from nginx.conf.template, in front
// of two real gateways started from gateway-eu.yaml and gateway-us.yaml (one shared session
// secret), each fronting its own modern SDK upstream under the same name `db`. Real 2.x and
// 1.x clients talk to nginx only. Covers the routing rules written at the top of the
// template: region routing on Mcp-Param-Region (MCP 2026-07-28, basic/transports/streamable-http (request headers), c), refusal at the edge, SSE
// without buffering (MCP 2026-07-28, basic/transports/streamable-http (responses)), legacy sessions through the edge and across gateways, and the
// body and header limits. nginx must be installed: without it this file fails.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, REPO_ROOT, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { findNginx, startNginx, type RunningNginx } from '../harness/nginx.ts';

const EXAMPLE = join(REPO_ROOT, 'examples/nginx');
const SECRET = randomBytes(32).toString('hex');

let euDb: ModernUpstream;
let usDb: ModernUpstream;
let euGw: TestGateway;
let usGw: TestGateway;
let usGwClosed = false;
let nginx: RunningNginx;
const clients: Array<ModernClient | LegacyClient> = [];

beforeAll(async () => {
  const bin = findNginx(); // throws with install instructions before anything starts
  euDb = await startModernUpstream({ name: 'eu-db' });
  usDb = await startModernUpstream({ name: 'us-db' });
  const env = { ...process.env, GATEHOUSE_SESSION_SECRET: SECRET, GATEHOUSE_EU_DB_URL: euDb.url, GATEHOUSE_US_DB_URL: usDb.url };
  euGw = await startTestGateway(readFileSync(join(EXAMPLE, 'gateway-eu.yaml'), 'utf8'), env);
  usGw = await startTestGateway(readFileSync(join(EXAMPLE, 'gateway-us.yaml'), 'utf8'), env);
  await Promise.all([euGw.waitUp(), usGw.waitUp()]);
  const template = readFileSync(join(EXAMPLE, 'nginx.conf.template'), 'utf8');
  nginx = await startNginx(bin, template, { GATEHOUSE_EU: `127.0.0.1:${euGw.port}`, GATEHOUSE_US: `127.0.0.1:${usGw.port}` });
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await nginx?.stop();
  await euGw?.close();
  if (!usGwClosed) await usGw?.close();
  await euDb?.close();
  await usDb?.close();
});

const euAddr = (): string => `127.0.0.1:${euGw.port}`;
const usAddr = (): string => `127.0.0.1:${usGw.port}`;

/** tools/call requests an upstream received for db query `query`. */
function queryCalls(db: ModernUpstream, query: string): unknown[] {
  type Body = { method?: string; params?: { arguments?: { query?: string } } } | undefined;
  return db.received.filter((r) => (r.body as Body)?.method === 'tools/call' && (r.body as Body)?.params?.arguments?.query === query);
}

const toolCalls = (db: ModernUpstream): number => db.received.filter((r) => (r.body as { method?: string })?.method === 'tools/call').length;

/** access.log lines before this index belong to earlier tests. */
let logMark = 0;
beforeEach(() => {
  logMark = nginx.accessLog().length;
});

/** Waits for this test's access.log line (written just after the response) with all parts. */
async function logLine(...parts: string[]): Promise<string> {
  const find = () => nginx.accessLog().slice(logMark).reverse().find((l) => parts.every((p) => l.includes(p)));
  await expect.poll(find, { message: `an access.log line with ${parts.join(' & ')}`, timeout: 3000 }).toBeDefined();
  return find()!;
}

async function modernClient(): Promise<ModernClient> {
  const client = await connectModernClient(nginx.url);
  clients.push(client);
  const { tools } = await client.listTools(); // the client mirrors Mcp-Param-* once it holds the schema
  expect(tools.map((t) => t.name)).toContain('db__query');
  return client;
}

/** A raw modern tools/call of db__query through nginx; `header` is the Mcp-Param-Region sent (null: none). */
const rawQuery = (id: number, region: string, query: string, header: string | null = region) =>
  postJson(nginx.url, modernBody(id, 'tools/call', { name: 'db__query', arguments: { region, query } }),
    modernHeaders('tools/call', 'db__query', header === null ? {} : { 'mcp-param-region': header }));

const textOf = (result: unknown): string => ((result as { content: Array<{ text: string }> }).content[0]?.text ?? '');

describe('region routing on Mcp-Param-Region (modern 2.x client through nginx)', () => {
  it('sends region "eu-west" to the EU gateway and its upstream only', async () => {
    const client = await modernClient();
    const result = await client.callTool({ name: 'db__query', arguments: { region: 'eu-west', query: 'q-eu', limit: 3 } });
    expect(textOf(result)).toBe('eu-west:q-eu:3');
    expect(queryCalls(euDb, 'q-eu')).toHaveLength(1);
    expect(queryCalls(usDb, 'q-eu')).toHaveLength(0);
    expect(await logLine('region="eu-west"', 'name="db__query"')).toContain(`pool=gatehouse_eu upstream=${euAddr()} `);
  });

  it('sends region "us-east" to the US gateway and its upstream only', async () => {
    const client = await modernClient();
    const result = await client.callTool({ name: 'db__query', arguments: { region: 'us-east', query: 'q-us' } });
    expect(textOf(result)).toBe('us-east:q-us:none');
    expect(queryCalls(usDb, 'q-us')).toHaveLength(1);
    expect(queryCalls(euDb, 'q-us')).toHaveLength(0);
    expect(await logLine('region="us-east"', 'name="db__query"')).toContain(`pool=gatehouse_us upstream=${usAddr()} `);
  });

  it('refuses region "cn-north" at the edge with 403 before any gateway or upstream sees it', async () => {
    const client = await modernClient();
    const before = { eu: toolCalls(euDb), us: toolCalls(usDb) };
    const error = await client.callTool({ name: 'db__query', arguments: { region: 'cn-north', query: 'q-cn' } }).then(() => undefined, (e: unknown) => e);
    // The 2.x client surfaces a non-400 HTTP error as SdkHttpError with the status in data.
    expect(error).toMatchObject({ data: { status: 403 } });
    expect((error as Error).message).toMatch(/Mcp-Param-Region value is not allowed/);
    expect(await logLine('region="cn-north"', '" 403 ')).toContain('upstream=- ');
    expect({ eu: toolCalls(euDb), us: toolCalls(usDb) }).toEqual(before);
  });

  it.each([
    ['a region outside the allowlist', 'ap-south'],
    ['a different case (header values are case-sensitive)', 'EU-west'],
    ['a Base64-sentinel value the edge cannot vet', '=?base64?ZXUtd2VzdA==?='],
  ])('answers %s with 403 and a JSON-RPC error body, no id', async (_label, region) => {
    const before = { eu: toolCalls(euDb), us: toolCalls(usDb) };
    const res = await rawQuery(1, region, 'q-x');
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Mcp-Param-Region value is not allowed' } });
    expect({ eu: toolCalls(euDb), us: toolCalls(usDb) }).toEqual(before);
  });

  it('cannot be steered by a header that contradicts the body: the gateway it reaches refuses (400 / -32020)', async () => {
    const res = await rawQuery(2, 'us-east', 'q-lie', 'eu-west');
    expect(res.status).toBe(400);
    expect(res.json?.error?.code).toBe(-32020);
    expect(await logLine('region="eu-west"', '" 400 ')).toContain(`upstream=${euAddr()} `);
    expect(queryCalls(euDb, 'q-lie')).toHaveLength(0);
    expect(queryCalls(usDb, 'q-lie')).toHaveLength(0);
  });

  it('lets no region slip through header-less: the default gateway refuses (-32020) until the client mirrors it', async () => {
    const raw = await rawQuery(10, 'eu-west', 'q-bare', null);
    expect(raw.json?.error?.code).toBe(-32020);
    expect(await logLine('region="-"', 'name="db__query"', '" 400 ')).toContain(`pool=gatehouse_default upstream=${usAddr()} `);
    // A 2.x client that calls before listing recovers (SDK-NOTES): re-lists, retries with the header.
    const client = await connectModernClient(nginx.url);
    clients.push(client);
    const result = await client.callTool({ name: 'db__query', arguments: { region: 'eu-west', query: 'q-bare' } });
    expect(textOf(result)).toBe('eu-west:q-bare:none');
    expect(queryCalls(euDb, 'q-bare')).toHaveLength(1);
    expect(queryCalls(usDb, 'q-bare')).toHaveLength(0);
  });

  it('refuses a region header under a protocol version whose headers nobody validates (400 at the edge)', async () => {
    const res = await postJson(
      nginx.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'db__query', arguments: { region: 'eu-west', query: 'q-old' } } },
      { ...modernHeaders('tools/call', 'db__query', { 'mcp-param-region': 'eu-west' }), 'mcp-protocol-version': '2025-11-25' },
    );
    expect(res.status).toBe(400);
    expect(res.json?.error?.code).toBe(-32020);
    expect(await logLine('pool=unchecked')).toContain('upstream=- ');
  });

  it('never serves a repeated Mcp-Param-Region (1.22 routes on the first copy, the gateway refuses the joined value)', async () => {
    const body = JSON.stringify(modernBody(9, 'tools/call', { name: 'db__query', arguments: { region: 'cn-north', query: 'q-dup' } }));
    const status = await new Promise<number>((resolve, reject) => {
      const headers = { ...modernHeaders('tools/call', 'db__query'), 'mcp-param-region': ['eu-west', 'cn-north'] };
      const req = httpRequest(nginx.url, { method: 'POST', headers }, (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)));
      req.once('error', reject);
      req.end(body);
    });
    expect([400, 403]).toContain(status);
    expect(queryCalls(euDb, 'q-dup')).toHaveLength(0);
    expect(queryCalls(usDb, 'q-dup')).toHaveLength(0);
  });
});

describe('streaming through nginx', () => {
  it('relays SSE progress events as they happen, before the call completes', async () => {
    const started = Date.now();
    const body = JSON.stringify(modernBody(4, 'tools/call', { name: 'db__slow', arguments: { ms: 1500, steps: 3 }, _meta: { progressToken: 'p-4' } }));
    const res = await fetch(nginx.url, { method: 'POST', headers: modernHeaders('tools/call', 'db__slow'), body });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // One JSON-RPC message per event, each stamped with its arrival time.
    const events: Array<{ at: number; method: string }> = [];
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += Buffer.from(chunk).toString('utf8');
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const data = buffer.slice(0, end).split('\n').find((l) => l.startsWith('data:'));
        buffer = buffer.slice(end + 2);
        if (data) events.push({ at: Date.now() - started, method: JSON.parse(data.slice(5)).method ?? 'result' });
      }
    }
    expect(events.map((e) => e.method)).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'result']);
    // Steps are 500 ms apart: a buffering proxy would deliver everything at once, so the first
    // progress event would arrive with the result, not well before it.
    expect(events[3]!.at - events[0]!.at).toBeGreaterThan(600);
  });

  it('passes a client disconnect on to the upstream as cancellation (MCP 2026-07-28, basic/patterns/cancellation)', async () => {
    const abort = new AbortController();
    const res = await fetch(nginx.url, {
      method: 'POST',
      headers: modernHeaders('tools/call', 'db__slow'),
      body: JSON.stringify(modernBody(5, 'tools/call', { name: 'db__slow', arguments: { ms: 6000, steps: 6 }, _meta: { progressToken: 'p-5' } })),
      signal: abort.signal,
    });
    const cancelledBefore = usDb.cancelled.length;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the first progress event: the call is running upstream
    abort.abort();
    // The upstream sees the gateway's own request id, so count rather than match ids.
    await expect.poll(() => usDb.cancelled.length, { timeout: 3000 }).toBe(cancelledBefore + 1);
    // nginx logs the request it passed on; that it ended early is the cancel above.
    await logLine('name="db__slow"', `upstream=${usAddr()} `, 'rt=');
  });
});

describe('legacy (2025-11-25) sessions through nginx', () => {
  it('lets a 1.x client initialize, list and call through the edge (default pool, US)', async () => {
    const client = await connectLegacyClient(nginx.url);
    clients.push(client);
    const sessionId = (client.transport as { sessionId?: string } | undefined)?.sessionId;
    expect(sessionId).toBeTruthy();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('db__query');
    const result = await client.callTool({ name: 'db__query', arguments: { region: 'us-east', query: 'q-legacy' } });
    expect(textOf(result)).toBe('us-east:q-legacy:none');
    expect(queryCalls(usDb, 'q-legacy')).toHaveLength(1);
    expect(queryCalls(euDb, 'q-legacy')).toHaveLength(0);
    expect(await logLine('method="-"', 'pool=gatehouse_default', '" 200 ')).toContain(`upstream=${usAddr()} `);

    // The shared sessions.secret: the EU gateway unseals the session the US one minted.
    const direct = await postJson(euGw.url, { jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} }, {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId!,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(direct.status).toBe(200);
    expect(direct.json.result.tools.map((t: { name: string }) => t.name)).toContain('db__query');
  });
});

describe('limits matching the gateway defaults', () => {
  it('refuses a body over 4 MiB with 413 at the edge, and passes a 1 MiB body through its temp files', async () => {
    const tooBig = await postJson(nginx.url, 'x'.repeat(4 * 1024 * 1024 + 1), modernHeaders('tools/list'));
    expect(tooBig.status).toBe(413);
    expect(tooBig.json?.error?.code).toBe(-32600);
    expect(await logLine('" 413 ')).toContain('upstream=- ');

    const message = 'm'.repeat(1024 * 1024);
    const ok = await postJson(nginx.url, modernBody(5, 'tools/call', { name: 'db__echo', arguments: { message } }), modernHeaders('tools/call', 'db__echo'));
    expect(ok.status).toBe(200);
    expect(ok.json.result.structuredContent.message).toHaveLength(message.length);
  });

  it('passes a 15 000-byte header the gateway accepts and refuses a 17 000-byte one with 431 at the edge', async () => {
    const fits = await postJson(nginx.url, modernBody(6, 'tools/list'), modernHeaders('tools/list', undefined, { 'x-pad': 'p'.repeat(15_000) }));
    expect(fits.status).toBe(200);
    expect(fits.json.result.tools.length).toBeGreaterThan(0);

    const tooLong = await postJson(nginx.url, modernBody(7, 'tools/list'), modernHeaders('tools/list', undefined, { 'x-pad': 'p'.repeat(17_000) }));
    expect(tooLong.status).toBe(431);
    expect(tooLong.json?.error?.code).toBe(-32600);
    expect(await logLine('" 431 ')).toContain('upstream=- ');
  });
});

// Last on purpose: it stops the US gateway.
describe('losing the US gateway', () => {
  it('keeps a legacy session alive on the EU backup, while US-pinned calls fail instead of crossing regions', async () => {
    const legacy = await connectLegacyClient(nginx.url);
    clients.push(legacy);
    await legacy.listTools();
    await usGw.close();
    usGwClosed = true;

    const result = await legacy.callTool({ name: 'db__query', arguments: { region: 'us-east', query: 'q-failover' } });
    expect(textOf(result)).toBe('us-east:q-failover:none');
    expect(queryCalls(euDb, 'q-failover')).toHaveLength(1);
    expect(await logLine('pool=gatehouse_default', '" 200 ')).toContain(euAddr());

    const pinned = await rawQuery(8, 'us-east', 'q-pinned');
    expect(pinned.status).toBe(502);
    expect(pinned.json?.error?.code).toBe(-32603);
    expect(queryCalls(euDb, 'q-pinned')).toHaveLength(0);
  });
});
