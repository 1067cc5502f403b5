import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ok, type Result } from '../protocol/result.ts';
import { createMemoryLogger } from '../telemetry/logger.ts';
import type { Upstream, UpstreamRequest } from '../upstream/upstream.ts';
import { PartCache } from './part-cache.ts';
import { WarnOnce } from './warn-once.ts';

type Reply = Result<JsonObject, GatewayError>;

/** An upstream whose list requests wait until the test answers them, in any order. */
function slowUpstream(): { upstream: Upstream; pending: { req: UpstreamRequest; answer: (r: Reply) => void }[] } {
  const pending: { req: UpstreamRequest; answer: (r: Reply) => void }[] = [];
  const upstream = {
    name: 'up',
    config: { listTtlMs: 60_000, limits: { maxAnswerBytes: 1024, maxJsonDepth: 64 } },
    status: () => ({ name: 'up', transport: 'http', state: 'up', era: 'modern', since: 0 }),
    identity: () => ({ capabilities: { tools: {} } }),
    request: (req: UpstreamRequest) => new Promise<Reply>((answer) => pending.push({ req, answer })),
  } as unknown as Upstream;
  return { upstream, pending };
}

function tools(names: string[], hints: JsonObject = {}): Reply {
  return ok({ tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })), ...hints });
}

function names(res: Result<{ items: JsonObject[] }, GatewayError>): string[] {
  if (!res.ok) throw new Error(`expected a part, got ${res.error.kind}`);
  return res.value.items.map((i) => String(i.name));
}

function newCache(now: () => number = () => 1000): PartCache {
  const { logger } = createMemoryLogger();
  return new PartCache(logger, new WarnOnce(logger), now);
}

describe('PartCache', () => {
  it('shares one fetch between concurrent readers', async () => {
    const { upstream, pending } = slowUpstream();
    const cache = newCache();
    const a = cache.get(upstream, 'tools', 'ctx');
    const b = cache.get(upstream, 'tools', 'ctx');
    expect(pending).toHaveLength(1);
    pending[0]!.answer(tools(['echo']));
    expect(names(await a)).toEqual(['echo']);
    expect(names(await b)).toEqual(['echo']);
  });

  it('does not let a fetch that a list_changed overtook stand as the fresh list', async () => {
    const { upstream, pending } = slowUpstream();
    const cache = newCache();
    const before = cache.get(upstream, 'tools', 'ctx');
    cache.invalidate('up', 'tools');
    const after = cache.get(upstream, 'tools', 'ctx');
    // The reader after the change does not join the fetch that started before it.
    expect(pending).toHaveLength(2);
    pending[1]!.answer(tools(['echo', 'extra']));
    expect(names(await after)).toEqual(['echo', 'extra']);
    // The older answer arrives last; it must not replace the newer one in the cache.
    pending[0]!.answer(tools(['echo']));
    expect(names(await before)).toEqual(['echo']);
    expect(names(await cache.get(upstream, 'tools', 'ctx'))).toEqual(['echo', 'extra']);
    expect(pending).toHaveLength(2);
  });

  it('keeps the private parts of two authorization contexts cached side by side', async () => {
    const { upstream, pending } = slowUpstream();
    const cache = newCache();
    const a = cache.get(upstream, 'tools', 'alice');
    pending[0]!.answer(tools(['a'], { ttlMs: 60_000, cacheScope: 'private' }));
    await a;
    const b = cache.get(upstream, 'tools', 'bob');
    pending[1]!.answer(tools(['b'], { ttlMs: 60_000, cacheScope: 'private' }));
    await b;
    expect(names(await cache.get(upstream, 'tools', 'alice'))).toEqual(['a']);
    expect(names(await cache.get(upstream, 'tools', 'bob'))).toEqual(['b']);
    expect(pending).toHaveLength(2);
  });

  it('lets a private part replace a stale shared one, so it is found next time', async () => {
    const { upstream, pending } = slowUpstream();
    const cache = newCache();
    const first = cache.get(upstream, 'tools', 'alice');
    pending[0]!.answer(tools(['old'], { ttlMs: 0, cacheScope: 'public' }));
    await first;
    const second = cache.get(upstream, 'tools', 'alice');
    pending[1]!.answer(tools(['new'], { ttlMs: 60_000, cacheScope: 'private' }));
    expect(names(await second)).toEqual(['new']);
    expect(names(await cache.get(upstream, 'tools', 'alice'))).toEqual(['new']);
    expect(pending).toHaveLength(2);
  });
});
