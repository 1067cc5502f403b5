// A 2026-07-28 client calling a 2025-11-25 upstream that asks for input mid-call (sampling,
// elicitation, roots on the tools/call or prompts/get POST stream): the gateway suspends the
// upstream call and answers the client input_required with a sealed requestState; the
// client's retry carries the answers, which go upstream as the responses to the upstream's
// own request ids, and the same upstream call finishes (README, Protocol eras: bridging).
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { connectModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { useOneUpstreamBed } from '../harness/gateway-bed.ts';

let upstream: LegacyUpstream;
let gw: TestGateway;
useOneUpstreamBed('l', () => startLegacyUpstream({ name: 'l', askClient: true }), (bed) => ({ upstream, gw } = bed));

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(JSON.parse(readFileSync(new URL('../spec/2026-07-28/schema.json', import.meta.url), 'utf8')), 'modern');
function expectSchema(def: string, value: unknown): void {
  const validate = ajv.getSchema(`modern#/$defs/${def}`)!;
  expect(validate(value) ? [] : validate.errors).toEqual([]);
}

const ALL = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

/** The responses the gateway POSTed upstream: its answers to the upstream's requests. */
function answersUpstreamGot(): Array<{ id: unknown; result?: any; error?: { code: number; message: string } }> {
  return upstream.received
    .map((q) => q.body as any)
    .filter((b) => b && b.method === undefined && b.id !== undefined && (b.result !== undefined || b.error !== undefined));
}

function upstreamCalls(): number {
  return upstream.received.filter((q) => (q.body as any)?.method === 'tools/call').length;
}

function texts(r: object): string[] {
  return (r as { content: Array<{ text: string }> }).content.map((c) => c.text);
}

function callTool(id: number, what: string, extra: Record<string, unknown> = {}, caps: Record<string, unknown> = ALL) {
  return postJson(gw.url, modernBody(id, 'tools/call', { name: 'l__ask_client', arguments: { what }, ...extra }, caps), modernHeaders('tools/call', 'l__ask_client'));
}

describe('a legacy upstream asking a 2026-07-28 client, through the official 2.x client', () => {
  it('sampling, elicitation and roots each reach the client as input_required, and the answers finish the same upstream call', async () => {
    const client = await connectModernClient(gw.url, { capabilities: ALL });
    const asked: string[] = [];
    client.setRequestHandler('sampling/createMessage', async (req) => {
      asked.push(`sampling:${req.params.maxTokens}`);
      return { role: 'assistant', content: { type: 'text', text: 'hi from the modern client' }, model: 'test-model' };
    });
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(`elicitation:${req.params.message}`);
      return { action: 'accept', content: { name: 'zoe' } };
    });
    client.setRequestHandler('roots/list', async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///modern', name: 'modern' }] };
    });
    const before = upstreamCalls();
    const sampled = await client.callTool({ name: 'l__ask_client', arguments: { what: 'sampling' } });
    expect(JSON.parse(texts(sampled)[0]!)).toMatchObject({ model: 'test-model', content: { text: 'hi from the modern client' } });
    const elicited = await client.callTool({ name: 'l__ask_client', arguments: { what: 'elicitation' } });
    expect(JSON.parse(texts(elicited)[0]!)).toEqual({ action: 'accept', content: { name: 'zoe' } });
    const roots = await client.callTool({ name: 'l__ask_client', arguments: { what: 'roots' } });
    expect(JSON.parse(texts(roots)[0]!)).toEqual({ roots: [{ uri: 'file:///modern', name: 'modern' }] });
    expect(asked).toEqual(['sampling:20', 'elicitation:Your name?', 'roots']);
    // One upstream call each: the retries continued the suspended calls, none was sent again.
    expect(upstreamCalls() - before).toBe(3);
    await client.close();
  });

  it('two questions in sequence take two rounds; a prompt can ask too', async () => {
    const client = await connectModernClient(gw.url, { capabilities: ALL });
    client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'second' }, model: 'm' }));
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'first' } }));
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///p' }] }));
    const r = await client.callTool({ name: 'l__ask_client', arguments: { what: 'sequence' } });
    expect(texts(r).map((t) => JSON.parse(t))).toMatchObject([{ content: { name: 'first' } }, { content: { text: 'second' } }]);
    const prompt = await client.getPrompt({ name: 'l__ask_prompt' });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'roots: file:///p' });
    await client.close();
  });
});

describe('the input_required result and its retry, on the wire', () => {
  it('is a valid 2026-07-28 InputRequiredResult; questions asked at once come in one round; elicitationId is not shown', async () => {
    const first = await callTool(1, 'parallel');
    expect(first.status).toBe(200);
    const result = first.json.result;
    expect(result.resultType).toBe('input_required');
    expectSchema('InputRequiredResult', result);
    const entries = Object.entries(result.inputRequests as Record<string, { method: string; params?: any }>);
    expect(entries.map(([, r]) => r.method).sort()).toEqual(['elicitation/create', 'roots/list']);
    expect(result.requestState).toMatch(/^gh1\./);
    const responses = Object.fromEntries(entries.map(([k, r]) => [k, r.method === 'roots/list' ? { roots: [{ uri: 'file:///x' }] } : { action: 'accept', content: { name: 'pat' } }]));
    const retry = await callTool(2, 'parallel', { inputResponses: responses, requestState: result.requestState });
    expect(retry.json.result.resultType).toBe('complete');
    expect(texts(retry.json.result).map((t) => JSON.parse(t))).toEqual([{ action: 'accept', content: { name: 'pat' } }, { roots: [{ uri: 'file:///x' }] }]);

    const url = await callTool(3, 'url');
    const [key, req] = Object.entries(url.json.result.inputRequests as Record<string, any>)[0]!;
    expect(req.params).toEqual({ mode: 'url', message: 'Sign in, please', url: 'https://example.com/sign-in' });
    const done = await callTool(4, 'url', { inputResponses: { [key!]: { action: 'accept' } }, requestState: url.json.result.requestState });
    expect(JSON.parse(texts(done.json.result)[0]!)).toEqual({ action: 'accept' });
    // The upstream got its own ids back, each answered once.
    const ids = answersUpstreamGot().filter((a) => a.result !== undefined).map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a retry that leaves a question unanswered is asked it again', async () => {
    const first = await callTool(10, 'elicitation');
    const again = await callTool(11, 'elicitation', { inputResponses: {}, requestState: first.json.result.requestState });
    expect(again.json.result.resultType).toBe('input_required');
    const [key] = Object.keys(again.json.result.inputRequests);
    const done = await callTool(12, 'elicitation', { inputResponses: { [key!]: { action: 'decline' } }, requestState: again.json.result.requestState });
    expect(JSON.parse(texts(done.json.result)[0]!)).toEqual({ action: 'decline' });
  });

  it('the same state twice, an altered one, other arguments: -32602, and the upstream call still waits for a good retry', async () => {
    const first = await callTool(20, 'elicitation');
    const state: string = first.json.result.requestState;
    const [key] = Object.keys(first.json.result.inputRequests);
    const answer = { inputResponses: { [key!]: { action: 'accept', content: { name: 'kim' } } } };

    const altered = await callTool(21, 'elicitation', { ...answer, requestState: `${state.slice(0, -4)}AAAA` });
    expect(altered.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/not issued by this gateway|altered/) });
    const other = await callTool(22, 'roots', { ...answer, requestState: state });
    expect(other.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/arguments changed/) });
    const malformed = await callTool(23, 'elicitation', { inputResponses: { [key!]: 'yes' }, requestState: state });
    expect(malformed.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/must be an object/) });

    const good = await callTool(24, 'elicitation', { ...answer, requestState: state });
    expect(JSON.parse(texts(good.json.result)[0]!)).toEqual({ action: 'accept', content: { name: 'kim' } });
    const replayed = await callTool(25, 'elicitation', { ...answer, requestState: state });
    expect(replayed.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/no longer waiting|already used/) });
  });

  it('what the client did not declare on this request is refused upstream at once with -32601', async () => {
    const r = await callTool(30, 'sampling', {}, { elicitation: {} });
    expect(r.json.result.resultType).toBe('complete');
    expect(texts(r.json.result)[0]).toMatch(/^error -32601: .*did not declare/);
    const url = await callTool(31, 'url', {}, { elicitation: {} });
    expect(texts(url.json.result)[0]).toMatch(/^error -32601/);
  });

  it('a client that closes its retry while the upstream works cancels the upstream call', async () => {
    const cancels = (): number => upstream.received.filter((q) => (q.body as any)?.method === 'notifications/cancelled').length;
    const before = cancels();
    const answered = answersUpstreamGot().length;
    const first = await callTool(40, 'elicit_then_wait');
    const [key] = Object.keys(first.json.result.inputRequests);
    const abort = new AbortController();
    const retry = fetch(gw.url, {
      method: 'POST',
      headers: modernHeaders('tools/call', 'l__ask_client'),
      body: JSON.stringify(modernBody(41, 'tools/call', { name: 'l__ask_client', arguments: { what: 'elicit_then_wait' }, inputResponses: { [key!]: { action: 'accept', content: { name: 'x' } } }, requestState: first.json.result.requestState }, ALL)),
      signal: abort.signal,
    }).catch((e: unknown) => e);
    // The answer reached the upstream, which now works until it is cancelled.
    await expect.poll(() => answersUpstreamGot().length).toBe(answered + 1);
    expect(cancels()).toBe(before);
    abort.abort();
    await expect.poll(cancels).toBe(before + 1);
    expect(await retry).toBeInstanceOf(Error);
  });
});
