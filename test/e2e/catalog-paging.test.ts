// The gateway's own pagination over the merged lists (MCP 2026-07-28, server/utilities/pagination): signed cursors, a
// deterministic order across upstreams, -32602 for a cursor that was altered, cut for
// another list, or cut from a list that has changed since (MCP 2026-07-28, server/utilities/caching: "if a cursor stops
// working, drop every cached page and start again").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { startAll, useGatewayBed } from '../harness/gateway-bed.ts';

const PAGE_SIZE = 3;
const EXPECTED = [
  ...['echo', 'add', 'slow', 'fail', 'query', 'elicit', 'tool_0', 'tool_1', 'tool_2', 'tool_3'].map((t) => `m__${t}`),
  ...['echo', 'add', 'slow', 'fail', 'elicit', 'tool_0', 'tool_1', 'tool_2'].map((t) => `l__${t}`),
];

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let gw: TestGateway;
let modernClient: ModernClient;
let legacyClient: LegacyClient;
let nextId = 1;

async function rawList(method: string, cursor?: string): Promise<{ status: number; json: any }> {
  return postJson(gw.url, modernBody(nextId++, method, cursor === undefined ? {} : { cursor }), modernHeaders(method));
}

/** Walks tools/list from the start; returns every page. */
async function rawPages(): Promise<any[]> {
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const res = await rawList('tools/list', cursor);
    expect(res.status).toBe(200);
    pages.push(res.json.result);
    cursor = res.json.result.nextCursor;
  } while (cursor !== undefined && pages.length < 50);
  return pages;
}

useGatewayBed({
  upstream: () => startAll({ modern: startModernUpstream({ toolCount: 4 }), legacy: startLegacyUpstream({ toolCount: 3 }) }),
  config: (up) => `
limits: { pageSize: ${PAGE_SIZE} }
upstreams:
  - name: m
    url: ${up.modern.url}
  - name: l
    url: ${up.legacy.url}
`,
  ready: (bed) => ({ upstream: { modern, legacy }, gw } = bed),
});

beforeAll(async () => {
  [modernClient, legacyClient] = await Promise.all([connectModernClient(gw.url), connectLegacyClient(gw.url)]);
});
afterAll(async () => {
  await Promise.all([modernClient?.close(), legacyClient?.close()]);
});

describe('paging through tools/list', () => {
  it('gives raw pages of at most pageSize, every tool exactly once, in order, with one cacheScope', async () => {
    const pages = await rawPages();
    expect(pages).toHaveLength(Math.ceil(EXPECTED.length / PAGE_SIZE));
    for (const p of pages.slice(0, -1)) expect(p.tools).toHaveLength(PAGE_SIZE);
    expect(pages.at(-1)).not.toHaveProperty('nextCursor');
    expect(pages.flatMap((p) => p.tools.map((t: { name: string }) => t.name))).toEqual(EXPECTED);
    // MCP 2026-07-28, server/utilities/caching: the scope MUST be the same on every page of one list.
    expect(new Set(pages.map((p) => p.cacheScope))).toEqual(new Set(['private']));
  });

  it('lets the legacy SDK client follow nextCursor page by page to the end', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await legacyClient.listTools(cursor === undefined ? {} : { cursor });
      seen.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 50);
    expect(seen).toEqual(EXPECTED);
    expect(pages).toBe(Math.ceil(EXPECTED.length / PAGE_SIZE));
  });

  it('lets the modern SDK client walk every page itself (its listTools() aggregates)', async () => {
    const all = await modernClient.listTools();
    expect(all.tools.map((t) => t.name)).toEqual(EXPECTED);
    expect(all.nextCursor).toBeUndefined();
    // With an explicit cursor it fetches the one page the cursor names.
    const cursor = (await rawList('tools/list')).json.result.nextCursor as string;
    const second = await modernClient.listTools({ cursor });
    expect(second.tools.map((t) => t.name)).toEqual(EXPECTED.slice(PAGE_SIZE, 2 * PAGE_SIZE));
    expect(typeof second.nextCursor).toBe('string');
  });

  it('pages prompts/list with its own cursors', async () => {
    const first = await rawList('prompts/list');
    expect(first.json.result.prompts.map((p: { name: string }) => p.name)).toEqual(['m__greet', 'l__greet']);
    expect(first.json.result).not.toHaveProperty('nextCursor');
  });
});

describe('cursors the gateway did not issue for this list', () => {
  let cursor: string;

  beforeAll(async () => {
    cursor = (await rawList('tools/list')).json.result.nextCursor;
    expect(typeof cursor).toBe('string');
  });

  it('accepts its own cursor and returns the second page', async () => {
    const res = await rawList('tools/list', cursor);
    expect(res.json.result.tools.map((t: { name: string }) => t.name)).toEqual(EXPECTED.slice(PAGE_SIZE, 2 * PAGE_SIZE));
  });

  it.each([
    ['one payload character changed', (c: string) => (c[0] === 'A' ? 'B' : 'A') + c.slice(1)],
    ['one signature character changed', (c: string) => c.slice(0, -1) + (c.at(-1) === 'A' ? 'B' : 'A')],
    ['the signature cut off', (c: string) => c.split('.')[0]!],
    ['not a cursor at all', () => 'not-a-cursor'],
    ['the empty string', () => ''],
  ])('answers -32602 to a cursor with %s', async (_what, tamper) => {
    const res = await rawList('tools/list', tamper(cursor));
    expect(res.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/cursor/i) });
    expect(res.json.result).toBeUndefined();
  });

  it('answers -32602 to a tools/list cursor on resources/list', async () => {
    const res = await rawList('resources/list', cursor);
    expect(res.json.error).toMatchObject({ code: -32602 });
  });

  it('answers -32602 to a forged cursor through both SDK clients', async () => {
    const forged = `x${cursor.slice(1)}`;
    await expect(modernClient.listTools({ cursor: forged })).rejects.toMatchObject({ code: -32602 });
    await expect(legacyClient.listTools({ cursor: forged })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('a cursor from before the list changed', () => {
  afterAll(() => modern.setExtraTool(false));

  it('is refused with -32602, and paging again from the start shows the new tool once', async () => {
    const first = await rawList('tools/list');
    const stale = first.json.result.nextCursor as string;
    // The modern upstream sends ttlMs 0, so the gateway re-fetches it on the next page anyway.
    modern.setExtraTool(true);
    const res = await rawList('tools/list', stale);
    expect(res.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/changed/) });

    const names = (await rawPages()).flatMap((p) => p.tools.map((t: { name: string }) => t.name));
    const withExtra = [...EXPECTED.slice(0, 10), 'm__extra', ...EXPECTED.slice(10)];
    expect(names).toEqual(withExtra);
  });

  it('is refused through the modern SDK client too', async () => {
    const stale = (await rawList('tools/list')).json.result.nextCursor as string;
    modern.setExtraTool(false);
    await expect(modernClient.listTools({ cursor: stale })).rejects.toMatchObject({ code: -32602 });
  });
});
