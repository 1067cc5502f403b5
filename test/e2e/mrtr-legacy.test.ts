// A legacy (2025-11-25) client calling a tool of a modern upstream that answers
// input_required: the gateway asks the client with elicitation/create on the call's stream
// and retries upstream with the answer and the upstream's requestState (README, Protocol eras: bridging).
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';

let upstream: ModernUpstream;
let gw: TestGateway;
useGatewayBed({
  upstream: () => startModernUpstream({ name: 'm' }),
  config: (up) => `upstreams:\n  - { name: m, url: "${up.url}" }\n`,
  ready: (bed) => ({ upstream, gw } = bed),
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
