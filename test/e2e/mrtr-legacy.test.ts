// A legacy (2025-11-25) client calling a tool of a modern upstream that answers
// input_required: the gateway asks the client with elicitation/create on the call's stream
// and retries upstream with the answer and the upstream's requestState (README, Protocol eras: bridging).
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';

let upstream: ModernUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'm' });
  gw = await startTestGateway(`upstreams:\n  - { name: m, url: "${upstream.url}" }\n`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('MRTR bridged to a legacy client', () => {
  it('asks the legacy client on its stream and completes the call with its answer', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: { name: 'lee' } };
    });
    const r = await client.callTool({ name: 'm__elicit', arguments: {} });
    expect(r.content).toEqual([{ type: 'text', text: 'hello lee' }]);
    expect(asked).toEqual(['What is your name?']);
    const retries = upstream.received.filter((q) => (q.body as { params?: { inputResponses?: unknown } })?.params?.inputResponses !== undefined);
    expect(retries).toHaveLength(1);
    await client.close();
  });

  it('a legacy client that cannot elicit gets a clear error, not an invalid result', async () => {
    const client = await connectLegacyClient(gw.url);
    await expect(client.callTool({ name: 'm__elicit', arguments: {} })).rejects.toThrow(/client input|elicitation|input_required/i);
    await client.close();
  });
});
