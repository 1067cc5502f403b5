// A config reload seen by a virtual server's catalog: after the default catalog and the
// server's are reconfigured, the server resolves to the new connection with its new selection,
// and only the connection serving now can make it announce a change.
import { describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../config/types.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ok, type Result } from '../protocol/result.ts';
import { serverScope } from '../servers/server-view.ts';
import type { ServerConfig } from '../servers/servers-config.ts';
import { createMemoryLogger } from '../telemetry/logger.ts';
import type { Upstream, UpstreamEvent, UpstreamRequest } from '../upstream/upstream.ts';
import { NO_OVERLAYS } from '../overlays/overlay-config.ts';
import { Catalog } from './catalog.ts';

type Listed = Upstream & { lists: number; emit(ev: UpstreamEvent): void; tools: string[] };

/** An upstream at the interface: lists `tools`, and emits the events a test hands it. */
function upstream(name: string, tools: string[]): Listed {
  const listeners: ((ev: UpstreamEvent) => void)[] = [];
  const up = {
    name,
    lists: 0,
    tools,
    config: { name, prefix: name, listTtlMs: 60_000, limits: { maxAnswerBytes: 1024 * 1024, maxJsonDepth: 64 } },
    identity: () => ({ capabilities: { tools: {} } }),
    status: () => ({ name, transport: 'http', state: 'up', era: 'modern', since: 0 }),
    onEvent: (l: (ev: UpstreamEvent) => void) => void listeners.push(l),
    emit: (ev: UpstreamEvent) => listeners.forEach((l) => l(ev)),
    request: async (req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> => {
      if (req.method !== 'tools/list') return ok({});
      up.lists++;
      return ok({ tools: up.tools.map((t) => ({ name: t, inputSchema: { type: 'object' } })), ttlMs: 60_000, cacheScope: 'public' });
    },
  };
  return up as unknown as Listed;
}

const CONFIG = { separator: '__', maxNameLength: 64, listDeadlineMs: 5_000, listRetry: { initialDelayMs: 1000, maxDelayMs: 60_000 }, limits: { pageSize: 1000, catalogCacheBytes: 1 << 24 }, overlays: NO_OVERLAYS } as unknown as GatewayConfig;
const ALL = { include: ['*'], exclude: [] };

function team(tools: string[]): ServerConfig {
  return { name: 'team', path: '/mcp/team', host: undefined, upstreams: ['a'], select: { tools: { include: tools, exclude: [] }, prompts: ALL, resources: ALL, resourceTemplates: ALL }, instructions: undefined, prefix: 'upstream', overlays: NO_OVERLAYS };
}

const NAMING = { separator: '__', maxNameLength: 64, prefixOf: (u: string) => u };
const names = async (c: Catalog): Promise<string[]> => (await c.view('tools', 'k')).items.map((t) => t.name as string);

describe('a virtual server catalog across a config reload', () => {
  it('resolves to the new connection with its new selection; the old connection no longer makes it announce', async () => {
    const old = upstream('a', ['t0', 't1']);
    const catalog = new Catalog(CONFIG, [old], createMemoryLogger().logger, Buffer.alloc(32, 7));
    const server = catalog.forServer([old], serverScope(team(['a__t0']), NAMING));
    catalog.serve([server]);
    let announced = 0;
    server.onChange(() => announced++);
    expect(await names(server)).toEqual(['a__t0']);
    expect((await server.resolve('tools', 'a__t0', 'k'))?.upstream).toBe(old);

    const replaced = upstream('a', ['t0', 't1']);
    catalog.reconfigure(CONFIG, [replaced]);
    server.reconfigure(CONFIG, [replaced], serverScope(team(['a__t0', 'a__t1']), NAMING));
    catalog.serve([server]);
    expect(await names(server)).toEqual(['a__t0', 'a__t1']);
    expect((await server.resolve('tools', 'a__t1', 'k'))?.upstream).toBe(replaced);
    // The shared list was fetched again from the new connection, once for both catalogs.
    expect(await names(catalog)).toEqual(['a__t0', 'a__t1']);
    expect([old.lists, replaced.lists]).toEqual([1, 1]);

    // The retired connection still speaks while its last calls finish: nothing is dropped for it.
    old.tools = ['t0'];
    old.emit({ type: 'list_changed', list: 'tools' });
    expect(await names(server)).toEqual(['a__t0', 'a__t1']);
    expect([old.lists, replaced.lists, announced]).toEqual([1, 1, 0]);
    replaced.tools = ['t1'];
    replaced.emit({ type: 'list_changed', list: 'tools' });
    await expect.poll(() => announced).toBe(1);
    expect(await names(server)).toEqual(['a__t1']);
  });
});
