// Call-time policy end to end: `params` rules on Mcp-Param-* values (modern clients send the
// headers, which the gateway checks against the body first; for legacy clients the gateway
// takes the same values from the arguments), `arguments` predicates on allow and deny rules,
// and argument validation against the tool's inputSchema: an invalid call never reaches the
// upstream and gets -32602 naming the problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream, type ReceivedRequest } from '../fixtures/modern-upstream.ts';
import { auditRequests, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML, legacySession, modernCall, policyDir } from '../harness/policy-env.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';

const POLICY = `
rules:
  - id: eu-query
    description: EU analysts may query EU regions, at most ten rows
    effect: allow
    when:
      principal: [{ groups: [eu-analysts] }]
      tool: up__query
      params: { Region: "eu-*" }
      arguments: { properties: { limit: { maximum: 10 } } }
  - id: everyone-add
    effect: allow
    when: { tool: [up__add, up__echo] }
  - id: no-big-sums
    effect: deny
    when:
      tool: up__add
      arguments: { properties: { a: { minimum: 1000 } }, required: [a] }
`;

let upstream: ModernUpstream;
let gw: TestGateway;
let modern: ModernClient;
let legacy: LegacyClient;

useGatewayBed({
  upstream: () => startModernUpstream({ name: 'up' }),
  config: (up) => `
${IDENTITY_YAML}
policy: { dir: "${policyDir({ 'rules.yaml': POLICY })}", watch: false }
upstreams:
  - { name: up, url: "${up.url}" }
`,
  ready: (bed) => ({ upstream, gw } = bed),
});

beforeAll(async () => {
  modern = await connectModernClient(gw.url, { headers: ALICE });
  legacy = await connectLegacyClient(gw.url, { headers: ALICE });
  // The 2.x client sends Mcp-Param-* only for tools whose schema it holds (SDK-NOTES.md).
  await modern.listTools();
});
afterAll(async () => {
  await Promise.all([modern?.close(), legacy?.close()]);
});

const toolCalls = (): ReceivedRequest[] => upstream.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call');
const text = (r: unknown): string => ((r as { content: { text: string }[] }).content[0]!).text;

async function refusal(p: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  const e = (await p.then(() => undefined, (x: unknown) => x)) as { code: unknown; message: string } | undefined;
  if (!e) throw new Error('the call was expected to fail');
  return { code: e.code, message: e.message };
}

describe('params rules (Mcp-Param-Region)', () => {
  it('modern client: eu-west is allowed and reaches the upstream with the header; us-east is refused as unknown', async () => {
    const ok = await modern.callTool({ name: 'up__query', arguments: { region: 'eu-west', query: 'rain', limit: 3 } });
    expect(text(ok)).toBe('eu-west:rain:3');
    expect(toolCalls().at(-1)!.headers['mcp-param-region']).toBe('eu-west');
    const before = toolCalls().length;
    const denied = await refusal(modern.callTool({ name: 'up__query', arguments: { region: 'us-east', query: 'rain', limit: 3 } }));
    expect(denied.code).toBe(-32602);
    expect(denied.message).toContain('Unknown tool: up__query');
    expect(toolCalls().length).toBe(before);
  });

  it('legacy client: the gateway reads Region from the arguments, with the same outcome', async () => {
    const ok = await legacy.callTool({ name: 'up__query', arguments: { region: 'eu-north', query: 'snow' } });
    expect(text(ok)).toBe('eu-north:snow:none');
    expect(toolCalls().at(-1)!.headers['mcp-param-region']).toBe('eu-north');
    const denied = await refusal(legacy.callTool({ name: 'up__query', arguments: { region: 'us-east', query: 'snow' } }));
    expect(denied).toEqual({ code: -32602, message: 'MCP error -32602: Unknown tool: up__query' });
  });

  it('a modern header that disagrees with the body is -32020 before any policy runs', async () => {
    const before = toolCalls().length;
    const lying = await modernCall(gw.url, ALICE, 'up__query', { region: 'us-east', query: 'q' }, { 'mcp-param-region': 'eu-west' });
    expect(lying.status).toBe(400);
    expect(lying.json.error.code).toBe(-32020);
    const missing = await modernCall(gw.url, ALICE, 'up__query', { region: 'eu-west', query: 'q' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.code).toBe(-32020);
    expect(toolCalls().length).toBe(before);
  });

  it('a caller who may not see the tool hears "unknown tool" for a bad header too, not its header parameters', async () => {
    const before = toolCalls().length;
    const missing = await modernCall(gw.url, BOB, 'up__query', { region: 'eu-west', query: 'q' });
    expect(missing.status).toBe(200);
    expect(missing.json.error).toEqual({ code: -32602, message: 'Unknown tool: up__query' });
    const lying = await modernCall(gw.url, BOB, 'up__query', { region: 'us-east', query: 'q' }, { 'mcp-param-region': 'eu-west' });
    expect(lying.json.error).toEqual({ code: -32602, message: 'Unknown tool: up__query' });
    expect(JSON.stringify([missing.json, lying.json])).not.toMatch(/Mcp-Param|region/i);
    expect(toolCalls().length).toBe(before);
    // The record names it a hidden tool, not a rule's deny.
    await expect.poll(() => auditRequests(gw).find((r) => r.rpcId === lying.json.id)).toMatchObject({ outcome: 'denied', errorCode: -32602, decision: { effect: 'hidden', ruleId: 'visibility' } });
  });

  it('a principal outside the rule is refused even in an EU region', async () => {
    const bob = await modernCall(gw.url, BOB, 'up__query', { region: 'eu-west', query: 'q' }, { 'mcp-param-region': 'eu-west' });
    expect(bob.json.error).toEqual({ code: -32602, message: 'Unknown tool: up__query' });
  });
});

describe('arguments predicates', () => {
  it('allow rule: limit 10 passes, limit 11 is refused as unknown (modern and legacy)', async () => {
    const ten = await modern.callTool({ name: 'up__query', arguments: { region: 'eu-west', query: 'q', limit: 10 } });
    expect(text(ten)).toBe('eu-west:q:10');
    const eleven = await refusal(modern.callTool({ name: 'up__query', arguments: { region: 'eu-west', query: 'q', limit: 11 } }));
    expect(eleven.code).toBe(-32602);
    expect(eleven.message).toContain('Unknown tool: up__query');
    const legacyEleven = await refusal(legacy.callTool({ name: 'up__query', arguments: { region: 'eu-west', query: 'q', limit: 11 } }));
    expect(legacyEleven.message).toBe('MCP error -32602: Unknown tool: up__query');
  });

  it('deny rule: a = 999 is added, a = 1000 is refused without reaching the upstream', async () => {
    expect(text(await modern.callTool({ name: 'up__add', arguments: { a: 999, b: 1 } }))).toBe('1000');
    const before = toolCalls().length;
    const r = await modernCall(gw.url, BOB, 'up__add', { a: 1000, b: 1 });
    expect(r.status).toBe(200);
    expect(r.json.error).toEqual({ code: -32602, message: 'Unknown tool: up__add' });
    expect(toolCalls().length).toBe(before);
  });
});

describe('argument validation against inputSchema', () => {
  it('a wrong type never reaches the upstream and is -32602 naming the argument', async () => {
    const before = toolCalls().length;
    // (Not `a`: the deny rule's `required: [a]` plus `minimum` matches any non-number a.)
    const r = await modernCall(gw.url, BOB, 'up__add', { a: 1, b: 'two' });
    expect(r.status).toBe(200);
    expect(r.json.error.code).toBe(-32602);
    expect(r.json.error.message).toMatch(/^Invalid arguments for tool up__add: \/b must be (integer|number)/);
    expect(toolCalls().length).toBe(before);
  });

  it('a missing required argument is named, for a legacy client too', async () => {
    const before = toolCalls().length;
    const session = await legacySession(gw.url, BOB);
    const r = await session('tools/call', { name: 'up__add', arguments: { a: 1 } });
    expect(r.json.error.code).toBe(-32602);
    expect(r.json.error.message).toBe("Invalid arguments for tool up__add: (root) must have required property 'b'");
    const noArgs = await session('tools/call', { name: 'up__echo' });
    expect(noArgs.json.error.message).toBe("Invalid arguments for tool up__echo: (root) must have required property 'message'");
    expect(toolCalls().length).toBe(before);
  });

  it('a valid call after invalid ones goes through unchanged', async () => {
    const before = toolCalls().length;
    const r = await modernCall(gw.url, BOB, 'up__echo', { message: 'fine' });
    expect(r.json.result.structuredContent).toEqual({ message: 'fine' });
    expect(toolCalls().length).toBe(before + 1);
    expect((toolCalls().at(-1)!.body as { params: { arguments: unknown } }).params.arguments).toEqual({ message: 'fine' });
  });
});
