// What many callers cost the catalog: public lists are merged once and served to all of them
// as the same objects, per-caller data stays within its byte budget, and a new caller's call
// is routed without a merge or a pass over the catalog.
import { describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../config/types.ts';
import { NO_OVERLAYS } from '../overlays/overlay-config.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ok, type Result } from '../protocol/result.ts';
import { createMemoryLogger } from '../telemetry/logger.ts';
import type { Upstream, UpstreamRequest } from '../upstream/upstream.ts';
import { Catalog, type CatalogCacheName, type ListFilter } from './catalog.ts';

type Reply = Result<JsonObject, GatewayError>;

const TOOLS = 300;

/** An upstream at the interface: answers tools/list with `TOOLS` tools and the given hints. */
function listingUpstream(name: string, hints: JsonObject): Upstream & { lists: number } {
  const up = {
    name,
    lists: 0,
    config: { name, prefix: name, listTtlMs: 60_000, limits: { maxAnswerBytes: 64 * 1024 * 1024, maxJsonDepth: 64 } },
    identity: () => ({ capabilities: { tools: {} } }),
    status: () => ({ name, transport: 'http', state: 'up', era: 'modern', since: 0 }),
    onEvent: () => undefined,
    request: async (req: UpstreamRequest): Promise<Reply> => {
      if (req.method !== 'tools/list') return ok({});
      up.lists++;
      // Each answer is told apart, so a caller served another's private list would show it.
      const tools = Array.from({ length: TOOLS }, (_, i) => ({ name: `t${i}`, description: `answer ${up.lists} tool ${i}`, inputSchema: { type: 'object' } }));
      return ok({ tools, ...hints });
    },
  };
  return up as unknown as Upstream & { lists: number };
}

function config(catalogCacheBytes = 256 * 1024 * 1024): GatewayConfig {
  return { separator: '__', maxNameLength: 64, listDeadlineMs: 5_000, listRetry: { initialDelayMs: 1000, maxDelayMs: 60_000 }, limits: { pageSize: 1000, catalogCacheBytes }, overlays: NO_OVERLAYS } as unknown as GatewayConfig;
}

function catalogOf(upstream: Upstream, cacheBytes?: number): Catalog {
  return new Catalog(config(cacheBytes), [upstream], createMemoryLogger().logger, Buffer.alloc(32, 7));
}

const PUBLIC = { ttlMs: 60_000, cacheScope: 'public' };
const PRIVATE = { ttlMs: 60_000, cacheScope: 'private' };

describe('Catalog shared by many callers', () => {
  it('merges a public list once and serves every caller the same item objects', async () => {
    const up = listingUpstream('up', PUBLIC);
    const catalog = catalogOf(up);
    const first = await catalog.view('tools', 'key:p0');
    for (let i = 1; i < 200; i++) {
      const view = await catalog.view('tools', `key:p${i}`);
      expect(view.items[0]).toBe(first.items[0]);
      expect(view.items[TOOLS - 1]).toBe(first.items[TOOLS - 1]);
    }
    expect(catalog.stats().merges).toBe(1);
    expect(up.lists).toBe(1);
    // Shared views are not charged to the per-caller budgets.
    expect(catalog.stats().bytes.merged).toBe(0);
    expect(catalog.stats().bytes.lists).toBe(0);
  });

  it("keeps a private list its caller's own: fetched, merged and served per caller", async () => {
    const up = listingUpstream('up', PRIVATE);
    const catalog = catalogOf(up);
    const a = await catalog.view('tools', 'key:alice');
    const b = await catalog.view('tools', 'key:bob');
    expect(a.items[0]!.description).toBe('answer 1 tool 0');
    expect(b.items[0]!.description).toBe('answer 2 tool 0');
    expect((await catalog.view('tools', 'key:alice')).items[0]).toBe(a.items[0]);
    expect(catalog.stats().merges).toBe(2);
  });

  it('keeps what it holds per caller within catalogCacheBytes, evicting the least recently used', async () => {
    const budget = 512 * 1024;
    const up = listingUpstream('up', PRIVATE);
    const catalog = catalogOf(up, budget);
    const evicted: CatalogCacheName[] = [];
    catalog.measure({ lookup: () => undefined, evicted: (c) => evicted.push(c), deepItems: () => undefined });
    const keep: ListFilter = { key: 'everything', keep: () => true };
    for (let i = 0; i < 100; i++) {
      const page = await catalog.page('tools', `key:p${i}`, undefined, keep);
      expect(page.ok && page.value.items[0]!.description).toBe(`answer ${i + 1} tool 0`);
      const { bytes } = catalog.stats();
      expect(bytes.lists).toBeLessThanOrEqual(budget / 2);
      expect(bytes.merged).toBeLessThanOrEqual(budget / 4);
      expect(bytes.filtered).toBeLessThanOrEqual(budget / 8);
      expect(bytes.callers).toBeLessThanOrEqual(budget / 8);
    }
    expect(evicted).toContain('lists');
    expect(evicted).toContain('merged');
    // The most recent caller is still served from the cache.
    await catalog.page('tools', 'key:p99', undefined, keep);
    expect(up.lists).toBe(100);
  });

  it('filters once for every caller with the same filter key, and again for another key', async () => {
    const up = listingUpstream('up', PUBLIC);
    const catalog = catalogOf(up);
    const even: ListFilter = { key: 'even', keep: (item) => Number(String(item.name).slice(5)) % 2 === 0 };
    const pages = [];
    for (let i = 0; i < 50; i++) {
      const page = await catalog.page('tools', `key:p${i}`, undefined, even);
      if (!page.ok) throw new Error(page.error.kind);
      pages.push(page.value);
    }
    expect(pages[0]!.items).toHaveLength(TOOLS / 2);
    expect(pages[49]!.items[1]).toBe(pages[0]!.items[1]);
    expect(pages[49]!.items.map((t) => t.name)).toEqual(pages[0]!.items.map((t) => t.name));
    expect(catalog.stats().filterPasses).toBe(1);
    await catalog.page('tools', 'key:p0', undefined, { key: 'all', keep: () => true });
    expect(catalog.stats().filterPasses).toBe(2);
  });

  it("routes a new caller's call without a list request, a merge or a filter pass", async () => {
    const up = listingUpstream('up', PUBLIC);
    const catalog = catalogOf(up);
    await catalog.page('tools', 'key:first', undefined, { key: 'k', keep: () => true });
    const before = catalog.stats();
    for (let i = 0; i < 100; i++) {
      const target = await catalog.resolve('tools', `up__t${i}`, `key:new${i}`);
      expect(target?.name).toBe(`t${i}`);
    }
    // The second call of a caller is answered synchronously, from its pointer to the view.
    const again = catalog.resolve('tools', 'up__t7', 'key:new3');
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as { name: string }).name).toBe('t7');
    expect(catalog.stats().merges).toBe(before.merges);
    expect(catalog.stats().filterPasses).toBe(before.filterPasses);
    expect(up.lists).toBe(1);
    expect(catalog.exposes('tools', 'up__t7')).toBe(true);
    expect(catalog.exposes('tools', 'up__nope')).toBe(false);
  });
});
