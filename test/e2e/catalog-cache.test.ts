// Caching of upstream lists and the cache hints the gateway hands on (MCP 2026-07-28, server/utilities/caching,
// README, Protocol eras: bridging): a list is fetched once per upstream while fresh; the merged ttlMs is the minimum of
// what is left of each part (a legacy part lives for the configured listTtl); one private
// part makes the merged list private; ttlMs 0 upstream means no caching at all.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream, type ReceivedRequest } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';

let hinted: ModernUpstream;
let plain: ModernUpstream;
let legacy: LegacyUpstream;
const gateways: TestGateway[] = [];
let nextId = 1;

const KEY = 'gh-cache-test-key-0123456789abcdef';

async function gatewayWith(yaml: string): Promise<TestGateway> {
  const gw = await startTestGateway(yaml);
  gateways.push(gw);
  await gw.waitUp();
  return gw;
}

async function list(gw: TestGateway, method: string): Promise<any> {
  const res = await postJson(gw.url, modernBody(nextId++, method), modernHeaders(method));
  expect(res.status).toBe(200);
  expect(res.json.error).toBeUndefined();
  return res.json.result;
}

function count(received: readonly ReceivedRequest[], method: string): number {
  return received.filter((r) => (r.body as { method?: string } | undefined)?.method === method).length;
}

beforeAll(async () => {
  [hinted, plain, legacy] = await Promise.all([
    startModernUpstream({
      name: 'hinted',
      cacheHints: {
        'tools/list': { ttlMs: 20_000, cacheScope: 'public' },
        'prompts/list': { ttlMs: 50_000, cacheScope: 'private' },
        'resources/list': { ttlMs: 10_000, cacheScope: 'public' },
        'resources/read': { ttlMs: 30_000, cacheScope: 'public' },
      },
    }),
    startModernUpstream({ name: 'plain' }),
    startLegacyUpstream(),
  ]);
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all([hinted?.close(), plain?.close(), legacy?.close()]);
});

describe('a legacy upstream alone (no hints: the configured listTtl stands in)', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await gatewayWith(`
upstreams:
  - name: legacy
    url: ${legacy.url}
    listTtl: 45s
`);
  });

  it('fetches tools/list once for two lists in a row', async () => {
    const before = count(legacy.received, 'tools/list');
    const first = await list(gw, 'tools/list');
    const second = await list(gw, 'tools/list');
    expect(count(legacy.received, 'tools/list') - before).toBe(1);
    expect(second.tools).toEqual(first.tools);
  });

  it('re-fetches on an unknown tool name once, not once per unknown name', async () => {
    await list(gw, 'tools/list');
    const before = count(legacy.received, 'tools/list');
    for (let i = 0; i < 5; i++) {
      const res = await postJson(gw.url, modernBody(nextId++, 'tools/call', { name: `legacy__nope${i}`, arguments: {} }), modernHeaders('tools/call', `legacy__nope${i}`));
      expect(res.json.error).toMatchObject({ code: -32602, message: `Unknown tool: legacy__nope${i}` });
    }
    // The first miss may mean the upstream changed silently (MCP 2026-07-28, server/utilities/caching); the rest are bounded.
    expect(count(legacy.received, 'tools/list') - before).toBe(1);
  });

  it('hands a modern client the remaining listTtl, public', async () => {
    const result = await list(gw, 'tools/list');
    expect(result.ttlMs).toBeGreaterThan(40_000);
    expect(result.ttlMs).toBeLessThanOrEqual(45_000);
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(result.cacheScope).toBe('public');
    expect(result.resultType).toBe('complete');
  });
});

describe('a hinted modern upstream next to a legacy one', () => {
  let gw: TestGateway;
  let atStart: { h: number; l: number };

  beforeAll(async () => {
    atStart = { h: count(hinted.received, 'tools/list'), l: count(legacy.received, 'tools/list') };
    gw = await gatewayWith(`
upstreams:
  - name: hinted
    url: ${hinted.url}
  - name: legacy
    url: ${legacy.url}
    listTtl: 45s
`);
  });

  it('fetches each part once for two lists in a row', async () => {
    // The one fetch is the gateway's own, when each upstream came up (catalog/list-warm.ts).
    const fetched = (): number[] => [count(hinted.received, 'tools/list') - atStart.h, count(legacy.received, 'tools/list') - atStart.l];
    await expect.poll(fetched).toEqual([1, 1]);
    await list(gw, 'tools/list');
    await list(gw, 'tools/list');
    expect(fetched()).toEqual([1, 1]);
  });

  it('takes the smaller ttl (the upstream hint) and keeps public when every part is public', async () => {
    const result = await list(gw, 'tools/list');
    expect(result.ttlMs).toBeGreaterThan(15_000);
    expect(result.ttlMs).toBeLessThanOrEqual(20_000);
    expect(result.cacheScope).toBe('public');
  });

  it('takes the smaller ttl (the legacy listTtl) and turns private when one part is private', async () => {
    const result = await list(gw, 'prompts/list');
    expect(result.prompts.map((p: { name: string }) => p.name)).toEqual(['hinted__greet', 'legacy__greet']);
    expect(result.ttlMs).toBeGreaterThan(40_000);
    expect(result.ttlMs).toBeLessThanOrEqual(45_000);
    expect(result.cacheScope).toBe('private');
  });

  it('lets the remaining ttl shrink as the cached parts age', async () => {
    const first = await list(gw, 'resources/list');
    // Listed again until a millisecond has passed, which the remaining ttl must show.
    let second: any;
    await expect.poll(async () => (second = await list(gw, 'resources/list')).ttlMs).toBeLessThan(first.ttlMs);
    expect(first.ttlMs).toBeLessThanOrEqual(10_000);
    expect(second.ttlMs).toBeLessThan(first.ttlMs);
    expect(second.cacheScope).toBe('public');
  });
});

describe('a modern upstream with the SDK default hints (ttlMs 0, private)', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await gatewayWith(`
upstreams:
  - name: plain
    url: ${plain.url}
  - name: legacy
    url: ${legacy.url}
`);
  });

  it('asks the upstream again for every list and says ttlMs 0, private', async () => {
    const before = count(plain.received, 'tools/list');
    const first = await list(gw, 'tools/list');
    await list(gw, 'tools/list');
    expect(count(plain.received, 'tools/list') - before).toBe(2);
    expect(first.ttlMs).toBe(0);
    expect(first.cacheScope).toBe('private');
  });

  it('marks a resources/read from a legacy upstream as not cacheable', async () => {
    const uri = 'mem://legacy/only';
    const res = await postJson(gw.url, modernBody(nextId++, 'resources/read', { uri }), modernHeaders('resources/read', uri));
    expect(res.json.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(res.json.result.contents[0].text).toBe('only on the legacy upstream');
  });
});

describe('a resource the upstream calls public, read through a gateway that controls access', () => {
  const read = async (gw: TestGateway, headers: Record<string, string> = {}) => {
    const uri = 'mem://shared/readme';
    const res = await postJson(gw.url, modernBody(nextId++, 'resources/read', { uri }), modernHeaders('resources/read', uri, headers));
    expect(res.json.error).toBeUndefined();
    return res.json.result;
  };

  it('passes public through when the gateway has no identity or policy, and makes it private when it has', async () => {
    const open = await gatewayWith(`
upstreams:
  - { name: hinted, url: "${hinted.url}" }
`);
    expect(await read(open)).toMatchObject({ ttlMs: 30_000, cacheScope: 'public' });
    const guarded = await gatewayWith(`
identity:
  resource: http://gatehouse.test/mcp
  apiKeys: [{ id: ops, sha256: "${createHash('sha256').update(KEY).digest('hex')}", subject: ops }]
upstreams:
  - { name: hinted, url: "${hinted.url}" }
`);
    // What this caller may read is not for a cache shared with callers the gateway would refuse.
    expect(await read(guarded, { 'x-api-key': KEY })).toMatchObject({ ttlMs: 30_000, cacheScope: 'private' });
  });
});
