// Argument validation end to end for a tool whose inputSchema carries an `$id`. Every
// tools/list from the upstream gives the gateway fresh schema objects, and each copy must be
// checked as the first one was: an invalid call never reaches the upstream, however many
// times the list has been refreshed. The raw upstream answers lists with ttlMs 0, so each
// tools/list through the gateway fetches it again.
import { describe, expect, it } from 'vitest';
import { startRawModernUpstream, type RawModernUpstream } from '../fixtures/raw-modern-upstream.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { modernCall, modernList } from '../harness/policy-env.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';

const WITH_ID = {
  definition: {
    name: 'resize',
    inputSchema: {
      $id: 'https://tools.example.com/resize.input.json',
      type: 'object',
      properties: { width: { type: 'integer', maximum: 4096 } },
      required: ['width'],
      additionalProperties: false,
    },
  },
  call: (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: `resized to ${String(args.width)}` }] }),
};
const NETWORK_REF = {
  definition: {
    name: 'remote',
    inputSchema: { type: 'object', properties: { spec: { $ref: 'https://schemas.example.com/spec.json' } } },
  },
  call: () => ({ content: [{ type: 'text', text: 'done' }] }),
};
const NOBODY = {};

let upstream: RawModernUpstream;
let gw: TestGateway;

useGatewayBed({
  upstream: () => startRawModernUpstream([WITH_ID, NETWORK_REF]),
  config: (up) => `
upstreams:
  - { name: raw, url: "${up.url}" }
`,
  ready: (bed) => ({ upstream, gw } = bed),
});

const upstreamCalls = (): number => upstream.received.filter((m) => m.method === 'tools/call').length;

describe('argument validation of a schema with an $id', () => {
  it('refuses invalid arguments after every refresh of the tool list, not only the first time', async () => {
    for (let round = 0; round < 3; round++) {
      const list = await modernList(gw.url, NOBODY);
      expect(list.json.result.tools.map((t: { name: string }) => t.name)).toContain('raw__resize');
      const before = upstreamCalls();
      const bad = await modernCall(gw.url, NOBODY, 'raw__resize', { width: 100_000, extra: 'x' });
      expect(bad.json.error, `round ${round}`).toMatchObject({ code: -32602 });
      expect(bad.json.error.message).toContain('Invalid arguments for tool raw__resize');
      expect(upstreamCalls(), `round ${round}: the invalid call reached the upstream`).toBe(before);
      const good = await modernCall(gw.url, NOBODY, 'raw__resize', { width: 640 });
      expect(good.json.result).toMatchObject({ content: [{ type: 'text', text: 'resized to 640' }] });
    }
  });
});

describe('a schema the gateway cannot use', () => {
  it('leaves the call to the upstream and says so in the log, once per schema', async () => {
    await modernList(gw.url, NOBODY);
    for (let i = 0; i < 2; i++) {
      const res = await modernCall(gw.url, NOBODY, 'raw__remote', { spec: { anything: i } });
      expect(res.json.result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    }
    const warnings = gw.logs.filter((l) => l.msg === 'tool arguments not checked: its inputSchema cannot be used; the upstream judges them');
    // Two calls, one schema object: one line.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ tool: 'raw__remote', upstream: 'raw', reason: expect.stringContaining('schema does not compile') });
  });
});
