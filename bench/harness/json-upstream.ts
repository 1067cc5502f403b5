// The raw modern upstream of the probes, in the probe's own process: a plain Node server on
// 127.0.0.1 answering 2026-07-28 requests as one JSON body each, no SDK in the way, so what is
// measured is the gateway. server/discover and tools/list (one page, public, 10 min) come from
// `tools`; tools/call answers with the text `answer` gives for the call's arguments;
// notifications get 202.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonUpstreamSpec {
  tools: readonly unknown[];
  answer(args: Record<string, unknown> | undefined): string;
  /** Added to every result's `_meta`. */
  meta?: Record<string, unknown>;
  /** The server's keepAliveTimeout, when it must outlast the gateway's idle connections. */
  keepAliveTimeoutMs?: number;
}

export async function startJsonUpstream(spec: JsonUpstreamSpec): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: number; method?: string; params?: { arguments?: Record<string, unknown> } };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const result =
        msg.method === 'server/discover'
          ? { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 600_000, cacheScope: 'public' }
          : msg.method === 'tools/list'
            ? { tools: spec.tools, ttlMs: 600_000, cacheScope: 'public' }
            : { content: [{ type: 'text', text: spec.answer(msg.params?.arguments) }] };
      const meta = spec.meta === undefined ? {} : { _meta: spec.meta };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { resultType: 'complete', ...result, ...meta } }));
    });
  });
  if (spec.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = spec.keepAliveTimeoutMs;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => server.close() };
}
