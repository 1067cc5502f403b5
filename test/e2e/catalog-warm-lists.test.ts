// An upstream's lists are fetched when it comes up (catalog/list-warm.ts), so the first list a
// client asks for after a start is served from the shared cache, and so is every new
// session's first list: counted as upstream requests, not as time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream, type ReceivedRequest } from '../fixtures/legacy-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';

let upstream: LegacyUpstream;
let gw: TestGateway;

function count(received: readonly ReceivedRequest[], method: string): number {
  return received.filter((r) => (r.body as { method?: string } | undefined)?.method === method).length;
}

beforeAll(async () => {
  upstream = await startLegacyUpstream({ toolCount: 3 });
  gw = await startTestGateway(`
upstreams:
  - name: warm
    url: ${upstream.url}
`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('lists of an upstream that has come up', () => {
  it('are fetched before any client asks', async () => {
    await expect.poll(() => count(upstream.received, 'tools/list')).toBe(1);
  });

  it("serve a new session's first list, and the next session's, from the cache", async () => {
    await expect.poll(() => count(upstream.received, 'tools/list')).toBe(1);
    for (const name of ['first', 'second']) {
      const client = await connectLegacyClient(gw.url, { name });
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('warm__tool_0');
      } finally {
        await client.close();
      }
    }
    expect(count(upstream.received, 'tools/list')).toBe(1);
  });
});
