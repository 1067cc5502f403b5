// A legacy (2025-11-25) client calling a tool of a modern upstream that answers
// input_required: the gateway asks the client with elicitation/create on the call's stream
// and retries upstream with the answer and the upstream's requestState (README, Protocol eras: bridging).
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { useOneUpstreamBed } from '../harness/gateway-bed.ts';

let upstream: ModernUpstream;
let gw: TestGateway;
useOneUpstreamBed('m', () => startModernUpstream({ name: 'm', askMore: true }), (bed) => ({ upstream, gw } = bed));

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

  it('asks for sampling and roots too, in one round, and retries upstream with both answers', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { sampling: {}, roots: {} } });
    const asked: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
      asked.push(`sampling:${req.params.maxTokens}:${String(extra.requestId).startsWith('gatehouse-')}`);
      return { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'legacy-model' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///legacy', name: 'l' }] };
    });
    const r = await client.callTool({ name: 'm__sample_and_roots', arguments: {} });
    expect(r.isError).toBeFalsy();
    const both = JSON.parse((r.content as Array<{ text: string }>)[0]!.text);
    expect(both).toEqual({ s: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'legacy-model' }, r: { roots: [{ uri: 'file:///legacy', name: 'l' }] } });
    expect(asked.sort()).toEqual(['roots', 'sampling:10:true']);
    await client.close();
  });

  it('a legacy client that declared elicitation only: the upstream is told only that, and its -32021 reaches the client', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    await expect(client.callTool({ name: 'm__sample_and_roots', arguments: {} })).rejects.toThrow(/-32021/);
    const call = upstream.received.filter((q) => (q.body as any)?.params?.name === 'sample_and_roots').at(-1)!;
    expect((call.body as any).params._meta['io.modelcontextprotocol/clientCapabilities']).toEqual({ elicitation: {} });
    await client.close();
  });
});
