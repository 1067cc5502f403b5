// The merged tools/list timed through lean raw clients, as the load arms are driven: a legacy
// session and plain POSTs for Gatehouse, one 2024-11-05 HTTP+SSE session for mcp-hub (its answer
// comes on the stream). What the SDK client adds on its side (schema validation of the result,
// a JSON Schema validator compiled for every tool with an outputSchema on every list) is not in
// these times. Each answer is checked to hold the expected number of tools, unpaginated.
import { openLegacySession } from './legacy-session.ts';
import { LEGACY_VERSION } from './mcp-wire.ts';
import { SseSession } from './sse-session-load.ts';
import { median } from './statistics.ts';

let nextId = 5_000_000;

function toolCount(text: string, who: string): number {
  const msg = JSON.parse(text) as { result?: { tools?: unknown[]; nextCursor?: unknown } };
  const tools = msg.result?.tools;
  if (!Array.isArray(tools)) throw new Error(`raw tools/list of ${who}: no tools array: ${text.slice(0, 200)}`);
  if (msg.result?.nextCursor !== undefined) throw new Error(`raw tools/list of ${who} was paginated`);
  return tools.length;
}

async function timed(n: number, expect: number, who: string, one: () => Promise<string>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const text = await one();
    times.push(performance.now() - t);
    const got = toolCount(text, who);
    if (got !== expect) throw new Error(`raw tools/list of ${who}: ${got} tools, expected ${expect}`);
  }
  return median(times);
}

/** Median time of `n` raw tools/list on one Gatehouse legacy session, in ms. */
export async function rawGatehouseListP50(url: string, n: number, expect: number): Promise<number> {
  const sessionId = await openLegacySession(url);
  return timed(n, expect, 'Gatehouse', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/list' }),
    });
    const text = await res.text();
    if (res.status !== 200 || !text.startsWith('{')) throw new Error(`raw tools/list of Gatehouse: HTTP ${res.status} ${text.slice(0, 200)}`);
    return text;
  });
}

/** Median time of `n` raw tools/list on one HTTP+SSE session (mcp-hub), in ms. */
export async function rawSseListP50(url: string, n: number, expect: number): Promise<number> {
  const session = new SseSession(new URL(url));
  try {
    await session.open();
    return await timed(n, expect, 'mcp-hub', () => session.call({ jsonrpc: '2.0', id: nextId++, method: 'tools/list' }));
  } finally {
    session.close();
  }
}
