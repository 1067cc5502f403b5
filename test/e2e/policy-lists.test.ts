// Policy in lists and in the errors of hidden tools, end to end: each principal sees exactly
// what the policy lets it use, through a modern (2.x SDK) and a legacy (1.x SDK) client;
// approve-effect tools are listed; a filtered list is private to its caller (MCP 2026-07-28, server/utilities/caching);
// and a denied or hidden tool called by name gets exactly the error a tool that does not
// exist gets, in code, message, data and HTTP status (docs/architecture.md §5), in both eras.
import { describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, legacySession, modernCall, modernList, usePolicyBed, toolNames, type PolicyBed, type RawReply } from '../harness/policy-env.ts';

const POLICY = `
rules:
  - id: everyone-echo
    effect: allow
    when: { tool: up__echo }
  - id: analysts-tools
    effect: allow
    when:
      principal: [{ groups: [analysts] }]
      tool: [up__add, up__query, up__fail]
  - id: slow-needs-approval
    description: slow holds a worker; a person must agree
    effect: approve
    when: { principal: [{ groups: [analysts] }], tool: up__slow }
    approval: { approver: console }
  - id: nobody-fails
    effect: deny
    when: { tool: up__fail }
  - id: analysts-greet
    effect: allow
    when: { principal: [{ groups: [analysts] }], prompt: up__greet, resource: "mem://modern/*" }
`;

// The fixture's tools in the upstream's order: echo, add, slow, fail, query, elicit.
const ALICE_TOOLS = ['up__echo', 'up__add', 'up__slow', 'up__query'];
const BOB_TOOLS = ['up__echo'];

let bed: PolicyBed;
let gw: TestGateway;

usePolicyBed(POLICY, (b) => {
  bed = b;
  gw = b.gw;
});

const upstreamCalls = (): number => bed.sent('tools/call');

describe('per-principal lists', () => {
  it('gives a modern client exactly the tools its principal may use, approve-effect ones included', async () => {
    for (const [who, expected] of [[ALICE, ALICE_TOOLS], [BOB, BOB_TOOLS]] as const) {
      const client = await connectModernClient(gw.url, { headers: who });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expected);
      await client.close();
    }
  });

  it('gives a legacy client the same lists', async () => {
    for (const [who, expected] of [[ALICE, ALICE_TOOLS], [BOB, BOB_TOOLS]] as const) {
      const client = await connectLegacyClient(gw.url, { headers: who });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expected);
      await client.close();
    }
  });

  it('filters prompts by the same rules', async () => {
    const alice = await connectLegacyClient(gw.url, { headers: ALICE });
    const bob = await connectLegacyClient(gw.url, { headers: BOB });
    expect((await alice.listPrompts()).prompts.map((p) => p.name)).toEqual(['up__greet']);
    expect((await bob.listPrompts()).prompts).toEqual([]);
    await Promise.all([alice.close(), bob.close()]);
  });

  it('marks a filtered modern tools/list private, whatever the upstream said', async () => {
    const r = await modernList(gw.url, BOB);
    expect(r.status).toBe(200);
    expect(toolNames(r)).toEqual(BOB_TOOLS);
    expect(r.json.result.cacheScope).toBe('private');
    expect(r.json.result.ttlMs).toBeGreaterThanOrEqual(0);
  });
});

/** The error with the tool's name taken out, so a hidden and a missing tool can be compared. */
function shape(r: RawReply, name: string): unknown {
  return { status: r.status, contentType: r.headers.get('content-type'), error: JSON.parse(JSON.stringify(r.json.error).replaceAll(name, '<name>')), hasResult: 'result' in r.json };
}

describe('a hidden or denied tool is indistinguishable from a missing one', () => {
  it('modern: default-denied, explicitly denied and missing tools get the same error and status', async () => {
    const missing = await modernCall(gw.url, BOB, 'up__no_such_tool', { a: 1 });
    expect(missing.json.error).toEqual({ code: -32602, message: 'Unknown tool: up__no_such_tool' });
    const before = upstreamCalls();
    const hidden = await modernCall(gw.url, BOB, 'up__add', { a: 1, b: 2 });
    const denied = await modernCall(gw.url, ALICE, 'up__fail');
    expect(hidden.json.error.message).toBe('Unknown tool: up__add');
    expect(shape(hidden, 'up__add')).toEqual(shape(missing, 'up__no_such_tool'));
    expect(shape(denied, 'up__fail')).toEqual(shape(missing, 'up__no_such_tool'));
    expect(upstreamCalls()).toBe(before);
  });

  it('legacy: the same, inside a 2025-11-25 session', async () => {
    const bob = await legacySession(gw.url, BOB);
    const alice = await legacySession(gw.url, ALICE);
    const missing = await bob('tools/call', { name: 'up__no_such_tool', arguments: {} });
    const hidden = await bob('tools/call', { name: 'up__add', arguments: { a: 1, b: 2 } });
    const denied = await alice('tools/call', { name: 'up__fail', arguments: {} });
    expect(missing.json.error).toEqual({ code: -32602, message: 'Unknown tool: up__no_such_tool' });
    expect(shape(hidden, 'up__add')).toEqual(shape(missing, 'up__no_such_tool'));
    expect(shape(denied, 'up__fail')).toEqual(shape(missing, 'up__no_such_tool'));
  });

  it('the SDK clients surface the same error for hidden and missing tools', async () => {
    const modern = await connectModernClient(gw.url, { headers: BOB });
    const legacy = await connectLegacyClient(gw.url, { headers: BOB });
    const fail = async (p: Promise<unknown>): Promise<{ code: unknown; message: string }> => {
      const e = (await p.then(() => undefined, (x: unknown) => x)) as { code: unknown; message: string };
      expect(e).toBeInstanceOf(Error);
      return { code: e.code, message: e.message };
    };
    for (const client of [modern, legacy]) {
      const hidden = await fail(client.callTool({ name: 'up__add', arguments: { a: 1, b: 2 } }));
      const missing = await fail(client.callTool({ name: 'up__nope', arguments: { a: 1, b: 2 } }));
      expect(hidden.code).toBe(-32602);
      expect({ ...hidden, message: hidden.message.replace('up__add', 'X') }).toEqual({ ...missing, message: missing.message.replace('up__nope', 'X') });
    }
    await Promise.all([modern.close(), legacy.close()]);
  });

  it('a hidden resource gets the error of a resource that does not exist', async () => {
    const alice = await legacySession(gw.url, ALICE);
    const bob = await legacySession(gw.url, BOB);
    expect((await alice('resources/read', { uri: 'mem://modern/only' })).json.result.contents[0].text).toBe('only on the modern upstream');
    const hidden = await bob('resources/read', { uri: 'mem://modern/only' });
    const missing = await bob('resources/read', { uri: 'mem://modern/nothing-here' });
    expect(hidden.json.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri: 'mem://modern/only' } });
    expect(shape(hidden, 'mem://modern/only')).toEqual(shape(missing, 'mem://modern/nothing-here'));
  });

  it('a hidden prompt gets the unknown-prompt error', async () => {
    const bob = await legacySession(gw.url, BOB);
    const hidden = await bob('prompts/get', { name: 'up__greet', arguments: { name: 'x' } });
    const missing = await bob('prompts/get', { name: 'up__nope', arguments: { name: 'x' } });
    expect(hidden.json.error).toEqual({ code: -32602, message: 'Unknown prompt: up__greet' });
    expect(shape(hidden, 'up__greet')).toEqual(shape(missing, 'up__nope'));
  });
});

describe('approve', () => {
  it('answers -31010 naming the rule and the approver, and never calls the upstream', async () => {
    const before = upstreamCalls();
    const r = await modernCall(gw.url, ALICE, 'up__slow', { ms: 1 });
    expect(r.status).toBe(200);
    expect(r.json.error.code).toBe(-31010);
    expect(r.json.error.message).toMatch(/approval/);
    expect(r.json.error.data).toEqual({ rule: 'slow-needs-approval', approver: 'console' });
    expect(upstreamCalls()).toBe(before);
  });

  it('shows the approval error to a legacy client too, while bob cannot even see the tool', async () => {
    const alice = await legacySession(gw.url, ALICE);
    const r = await alice('tools/call', { name: 'up__slow', arguments: { ms: 1 } });
    expect(r.json.error).toMatchObject({ code: -31010, data: { rule: 'slow-needs-approval' } });
    const bob = await modernCall(gw.url, BOB, 'up__slow', { ms: 1 });
    expect(bob.json.error).toEqual({ code: -32602, message: 'Unknown tool: up__slow' });
  });
});
