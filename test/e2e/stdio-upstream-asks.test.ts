// A 2025-11-25 stdio upstream asking its client during a call: stdio says nothing of which
// call a request belongs to, so the gateway relays it when exactly one call is in flight on
// the process (the legacy client is asked on its call's stream; a 2026-07-28 client gets
// input_required), and refuses it (-32601) when two are (README, Protocol eras: requests
// outside a call). The upstream is a real SDK 1.x server over stdio.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { REPO_ROOT, startTestGateway, type TestGateway } from '../harness/gateway.ts';

const SERVER = join(REPO_ROOT, 'test/fixtures/legacy-stdio-asker.ts');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway(`upstreams:\n  - { name: s, command: "${process.execPath}", args: ["--import", "tsx", "${SERVER}"], cwd: "${REPO_ROOT}" }\n`);
  await gw.waitUp(20_000);
});

afterAll(async () => {
  await gw?.close();
});

const texts = (r: unknown): string[] => (r as { content: Array<{ text: string }> }).content.map((c) => c.text);

describe('a 2025-11-25 stdio upstream that asks during a call', () => {
  it('reaches the 2025-11-25 client of the one call in flight, and its answer goes back', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
    const r = await client.callTool({ name: 's__ask_client', arguments: { what: 'elicitation' } });
    expect(JSON.parse(texts(r)[0]!)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    await client.close();
  });

  it('reaches a 2026-07-28 client as input_required, and its retry answers the upstream', async () => {
    const client = await connectModernClient(gw.url, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
    const r = await client.callTool({ name: 's__ask_client', arguments: { what: 'elicitation' } });
    expect(JSON.parse(texts(r)[0]!)).toEqual({ action: 'accept', content: { name: 'Grace' } });
    await client.close();
  });

  it('is refused at once (-32601) while two calls are in flight, since either could have asked', async () => {
    const a = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    a.setRequestHandler(ElicitRequestSchema, async () => {
      asked();
      return { action: 'accept', content: { name: 'first' } };
    });
    const b = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    const bAsked: string[] = [];
    b.setRequestHandler(ElicitRequestSchema, async (req) => {
      bAsked.push(req.params.message);
      return { action: 'accept', content: {} };
    });
    // a's call asks (alone in flight: relayed), then keeps running until it is cancelled.
    const abort = new AbortController();
    const first = a.callTool({ name: 's__ask_client', arguments: { what: 'elicit_then_wait' } }, undefined, { signal: abort.signal }).catch(() => 'cancelled');
    await wasAsked;
    const second = await b.callTool({ name: 's__ask_client', arguments: { what: 'elicitation' } });
    expect(texts(second)[0]).toMatch(/^error -32601: .*2 calls are in flight/);
    expect(bAsked).toEqual([]);
    abort.abort();
    expect(await first).toBe('cancelled');
    await Promise.all([a.close(), b.close()]);
  });
});
