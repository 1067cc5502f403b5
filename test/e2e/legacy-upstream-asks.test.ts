// A 2025-11-25 upstream that asks the calling client mid-call (sampling/createMessage,
// elicitation/create, roots/list on the tools/call POST stream): the gateway relays the
// request to the 2025-11-25 client that made the call, on that call's SSE stream under its
// own id, and the client's answer goes back upstream as the response to the upstream's id.
// A client that did not declare the capability gets a clean error upstream at once (README,
// Protocol eras); 2026-07-28 clients are asked through input_required (mrtr-legacy-upstream.test.ts).
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { useOneUpstreamBed } from '../harness/gateway-bed.ts';

let upstream: LegacyUpstream;
let gw: TestGateway;
useOneUpstreamBed('l', () => startLegacyUpstream({ name: 'l', askClient: true }), (bed) => ({ upstream, gw } = bed));

/** The JSON-RPC responses the client POSTed to the upstream (the gateway relaying answers). */
function answersUpstreamGot(): Array<{ id: unknown; result?: unknown; error?: { code: number; message: string } }> {
  return upstream.received
    .map((q) => q.body as { id?: unknown; method?: unknown; result?: unknown; error?: { code: number; message: string } } | undefined)
    .filter((b): b is NonNullable<typeof b> => b !== undefined && b !== null && b.method === undefined && b.id !== undefined && (b.result !== undefined || b.error !== undefined))
    .map((b) => ({ id: b.id, ...(b.result !== undefined ? { result: b.result } : {}), ...(b.error ? { error: b.error } : {}) }));
}

function textOf(r: object): string {
  return ((r as { content: Array<{ text: string }> }).content)[0]!.text;
}

describe('a legacy upstream asking the legacy client that made the call', () => {
  it('relays sampling, elicitation and roots to the client and its answers back upstream', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
    const seenIds: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
      seenIds.push(extra.requestId);
      expect(req.params.maxTokens).toBe(20);
      return { role: 'assistant', content: { type: 'text', text: 'hi from the client' }, model: 'test-model' };
    });
    client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
      seenIds.push(extra.requestId);
      expect(req.params.message).toBe('Your name?');
      return { action: 'accept', content: { name: 'lee' } };
    });
    client.setRequestHandler(ListRootsRequestSchema, async (_req, extra) => {
      seenIds.push(extra.requestId);
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });

    const sampled = await client.callTool({ name: 'l__ask_client', arguments: { what: 'sampling' } });
    expect(sampled.isError).toBeFalsy();
    expect(JSON.parse(textOf(sampled))).toMatchObject({ model: 'test-model', content: { text: 'hi from the client' } });
    const elicited = await client.callTool({ name: 'l__ask_client', arguments: { what: 'elicitation' } });
    expect(JSON.parse(textOf(elicited))).toEqual({ action: 'accept', content: { name: 'lee' } });
    const roots = await client.callTool({ name: 'l__ask_client', arguments: { what: 'roots' } });
    expect(JSON.parse(textOf(roots))).toEqual({ roots: [{ uri: 'file:///work', name: 'work' }] });

    // The client saw the gateway's ids, never the upstream's; the upstream got its own ids back.
    expect(seenIds).toHaveLength(3);
    for (const id of seenIds) expect(String(id)).toMatch(/^gatehouse-/);
    const answers = answersUpstreamGot().filter((a) => a.result !== undefined);
    expect(answers.map((a) => typeof a.id)).toEqual(['number', 'number', 'number']);
    expect(answers[0]!.result).toMatchObject({ model: 'test-model' });
    await client.close();
  });

  it('relays the client\'s own JSON-RPC error upstream as it came', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      throw Object.assign(new Error('the user said no'), { code: -1 });
    });
    const r = await client.callTool({ name: 'l__ask_client', arguments: { what: 'sampling' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^error -1: .*the user said no/);
    await client.close();
  });

  it('a client that did not declare the capability is never asked: the upstream gets -32601 at once', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'decline' };
    });
    // `elicitation: {}` is form mode alone (MCP 2025-11-25, client/elicitation): a URL-mode one is not asked either.
    for (const what of ['sampling', 'roots', 'url'] as const) {
      const r = await client.callTool({ name: 'l__ask_client', arguments: { what } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/^error -32601: .*did not declare/);
    }
    expect(asked).toBe(0);
    await client.close();
  });

  it('a 2026-07-28 client that declared nothing on the call: the upstream gets a clean error at once, the call completes', async () => {
    const client = await connectModernClient(gw.url, { capabilities: {} });
    const r = await client.callTool({ name: 'l__ask_client', arguments: { what: 'elicitation' } });
    expect(r.isError).toBe(true);
    expect((r.content as Array<{ text: string }>)[0]!.text).toMatch(/^error -32601: .*2026-07-28 client did not declare/);
    await client.close();
  });
});

describe('cancelling the call while the client is being asked', () => {
  it('ends the wait: the upstream gets an error for its request, nothing is left waiting', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked();
      return new Promise(() => undefined);
    });
    const abort = new AbortController();
    const before = answersUpstreamGot().length;
    const call = client.callTool({ name: 'l__ask_client', arguments: { what: 'elicitation' } }, undefined, { signal: abort.signal });
    await wasAsked;
    abort.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => answersUpstreamGot().slice(before).map((a) => a.error?.code)).toEqual([-32603]);
    expect(answersUpstreamGot().at(-1)!.error!.message).toMatch(/cancelled while waiting/);
    await client.close();
  });
});

describe('a legacy upstream asking outside any call (on its GET stream)', () => {
  it('gets a clean error at once, so its tool answers instead of hanging', async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { elicitation: {} } });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'accept', content: { name: 'lee' } };
    });
    // The fixture's `elicit` tool asks with no related request: the SDK sends it on the GET stream.
    const r = await client.callTool({ name: 'l__elicit', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/cannot relay elicitation\/create/);
    expect(asked).toBe(0);
    await client.close();
  });
});
