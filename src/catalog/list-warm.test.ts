import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ok, type Result } from '../protocol/result.ts';
import { createMemoryLogger } from '../telemetry/logger.ts';
import type { Upstream, UpstreamRequest } from '../upstream/upstream.ts';
import { warmLists } from './list-warm.ts';
import { PartCache } from './part-cache.ts';
import { WarnOnce } from './warn-once.ts';

type Reply = Result<JsonObject, GatewayError>;

/** An upstream that offers tools and prompts (no resources) and answers every list at once. */
function upstream(config: JsonObject = {}): { u: Upstream; asked: UpstreamRequest[] } {
  const asked: UpstreamRequest[] = [];
  const u = {
    name: 'up',
    config: { kind: 'http', listTtlMs: 60_000, limits: { maxAnswerBytes: 1 << 20, maxJsonDepth: 64 }, ...config },
    identity: () => ({ capabilities: { tools: {}, prompts: {} } }),
    status: () => ({ name: 'up', transport: 'http', state: 'up', era: 'modern', since: 0 }),
    request: (req: UpstreamRequest): Promise<Reply> => {
      asked.push(req);
      const field = req.method === 'tools/list' ? 'tools' : 'prompts';
      return Promise.resolve(ok({ [field]: [{ name: 'a', inputSchema: { type: 'object' } }] }));
    },
  } as unknown as Upstream;
  return { u, asked };
}

function newCache(): PartCache {
  const { logger } = createMemoryLogger();
  return new PartCache(logger, new WarnOnce(logger), () => 1000);
}

describe('warmLists', () => {
  it('fetches every list the upstream offers, and a caller then reads them from the cache', async () => {
    const { u, asked } = upstream();
    const cache = newCache();
    warmLists(cache, u, createMemoryLogger().logger);
    expect(asked.map((r) => r.method).sort()).toEqual(['prompts/list', 'tools/list']);
    await expect.poll(() => cache.fresh('up', 'tools', 'key:someone')).toBeDefined();
    const res = await cache.get(u, 'tools', 'key:someone');
    expect(res.ok).toBe(true);
    expect(asked).toHaveLength(2);
  });

  it('keeps a fresh cached copy instead of fetching again (an upstream that comes up again)', async () => {
    const { u, asked } = upstream();
    const cache = newCache();
    await cache.get(u, 'tools', 'anonymous');
    await cache.get(u, 'prompts', 'anonymous');
    warmLists(cache, u, createMemoryLogger().logger);
    expect(asked).toHaveLength(2);
  });

  it("leaves an upstream that answers with the caller's own credential to its first caller", () => {
    const configs: JsonObject[] = [{ userAuth: { scopes: [] } }, { tokenExchange: { tokenUrl: 'https://as.example/token' } }];
    for (const config of configs) {
      const { u, asked } = upstream(config);
      warmLists(newCache(), u, createMemoryLogger().logger);
      expect(asked).toHaveLength(0);
    }
  });
});
