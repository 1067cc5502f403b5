// Closed-loop load through the official MCP SDK 1.x client, for endpoints autocannon cannot
// drive: mcp-hub's /mcp is the HTTP+SSE transport of 2024-11-05 (a GET stream, POSTs to
// /messages, answers on the stream), not Streamable HTTP. Each of `connections` clients holds
// its own session and calls the echo tool in a loop for `durationSec`; every result is
// checked (server-everything answers "Echo: <message>"). Both sides of a comparison use this
// same client, so its own cost is alike for both. Runs in the pinned load-generator process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTally, tallyResult } from './run-tally.ts';
import type { LoadResult } from './loadgen-worker.ts';

export interface SdkLoadSpec {
  url: string;
  transport: 'sse' | 'streamableHttp';
  tool: string;
  connections: number;
  durationSec: number;
}

async function connect(spec: SdkLoadSpec, i: number): Promise<Client> {
  const client = new Client({ name: `gatehouse-bench-${i}`, version: '0.1.0' });
  const url = new URL(spec.url);
  await client.connect(spec.transport === 'sse' ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url));
  return client;
}

export async function sdkLoad(spec: SdkLoadSpec): Promise<LoadResult> {
  const clients = await Promise.all(Array.from({ length: spec.connections }, (_, i) => connect(spec, i)));
  const t = startTally();
  let seq = 0;
  const started = performance.now();
  const until = started + spec.durationSec * 1000;
  try {
    await Promise.all(
      clients.map(async (client) => {
        while (performance.now() < until) {
          const message = `bench-${++seq}`;
          const sent = performance.now();
          try {
            const result = (await client.callTool({ name: spec.tool, arguments: { message } })) as { content?: { text?: string }[]; isError?: boolean };
            t.latencies.push(performance.now() - sent);
            const text = result.content?.[0]?.text;
            if (result.isError || (text !== message && text !== `Echo: ${message}`)) t.fail(`echo text ${JSON.stringify(text)} for ${message}`);
            else t.good++;
          } catch (e) {
            t.errors++;
            t.sample(`call failed: ${(e as Error).message}`);
          }
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  }
  return tallyResult(t, (performance.now() - started) / 1000);
}
