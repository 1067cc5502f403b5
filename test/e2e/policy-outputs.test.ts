// Output validation end to end: a tool whose structuredContent breaks its own outputSchema
// (MCP 2026-07-28, server/tools (tools/call): the server MUST conform, clients SHOULD validate). With `validation.outputs:
// block` the client gets an isError result with the gateway's message instead of the bad
// data; with `warn` the result passes untouched and a warning is logged. The SDK servers
// check their own outputs, so the upstream is a raw one (test/fixtures/raw-modern-upstream.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRawModernUpstream, type RawModernUpstream } from '../fixtures/raw-modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { legacySession, logged, modernCall } from '../harness/policy-env.ts';

const COUNT_TOOL = {
  definition: {
    name: 'count',
    description: 'Counts things; with bad: true it answers with a string instead of an integer',
    inputSchema: { type: 'object', properties: { bad: { type: 'boolean' } } },
    outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
  },
  call: (args: Record<string, unknown>) => {
    const structured = args.bad === true ? { count: 'many' } : { count: 3 };
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  },
};
const BLOCKED_TEXT = "The tool's result did not match its declared outputSchema (/count must be integer); Gatehouse withheld it.";
const NOBODY = {};

let upstream: RawModernUpstream;
let block: TestGateway;
let warn: TestGateway;

beforeAll(async () => {
  upstream = await startRawModernUpstream([COUNT_TOOL]);
  const yaml = (mode: string): string => `
validation: { outputs: ${mode} }
upstreams:
  - { name: raw, url: "${upstream.url}" }
`;
  [block, warn] = await Promise.all([startTestGateway(yaml('block')), startTestGateway(yaml('warn'))]);
  await Promise.all([block.waitUp(), warn.waitUp()]);
});

afterAll(async () => {
  await Promise.all([block?.close(), warn?.close()]);
  await upstream?.close();
});

const mismatchLogs = (gw: TestGateway) => logged(gw.logs, 'tool result does not match its outputSchema');

describe('validation.outputs: block', () => {
  it('replaces a non-conforming result with an isError result carrying the gateway message', async () => {
    const r = await modernCall(block.url, NOBODY, 'raw__count', { bad: true });
    expect(r.status).toBe(200);
    expect(r.json.error).toBeUndefined();
    expect(r.json.result).toMatchObject({ resultType: 'complete', isError: true, content: [{ type: 'text', text: BLOCKED_TEXT }] });
    expect(r.json.result.structuredContent).toBeUndefined();
    expect(JSON.stringify(r.json.result)).not.toContain('many');
    expect(upstream.received.filter((m) => m.method === 'tools/call').length).toBeGreaterThan(0);
    expect(mismatchLogs(block).at(-1)).toMatchObject({ level: 'warn', tool: 'raw__count', problem: '/count must be integer', blocked: true });
  });

  it('blocks for a legacy client the same way', async () => {
    const call = await legacySession(block.url, NOBODY);
    const r = await call('tools/call', { name: 'raw__count', arguments: { bad: true } });
    expect(r.json.result).toEqual({ content: [{ type: 'text', text: BLOCKED_TEXT }], isError: true });
  });

  it('passes a conforming result through untouched', async () => {
    const r = await modernCall(block.url, NOBODY, 'raw__count', {});
    expect(r.json.result).toMatchObject({ structuredContent: { count: 3 }, content: [{ type: 'text', text: '{"count":3}' }] });
    expect(r.json.result.isError).toBeUndefined();
  });
});

describe('validation.outputs: warn', () => {
  it('passes the non-conforming result through and logs a warning', async () => {
    const before = mismatchLogs(warn).length;
    const r = await modernCall(warn.url, NOBODY, 'raw__count', { bad: true });
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({ structuredContent: { count: 'many' }, content: [{ type: 'text', text: '{"count":"many"}' }] });
    expect(r.json.result.isError).toBeUndefined();
    expect(mismatchLogs(warn).length).toBe(before + 1);
    expect(mismatchLogs(warn).at(-1)).toMatchObject({ level: 'warn', tool: 'raw__count', problem: '/count must be integer', blocked: false });
  });

  it('logs nothing for a conforming result', async () => {
    const before = mismatchLogs(warn).length;
    expect((await modernCall(warn.url, NOBODY, 'raw__count', {})).json.result.structuredContent).toEqual({ count: 3 });
    expect(mismatchLogs(warn).length).toBe(before);
  });
});
