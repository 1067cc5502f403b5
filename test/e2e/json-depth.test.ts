// JSON nesting is bounded (limits.maxJsonDepth) wherever it could stop the audit trail or
// the gateway: a request nested too deep is refused before it is forwarded, with an audit
// record; an upstream result nested too deep was executed, so it leaves a record that says
// why it holds no result, and is not passed on. Real gateway, raw upstream over HTTP, the
// audit trail read from disk and checked with `gatehouse audit verify`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRawModernUpstream, type RawModernUpstream } from '../fixtures/raw-modern-upstream.ts';
import { modernBody, modernHeaders, postJson, REPO_ROOT, startTestGateway, type TestGateway } from '../harness/gateway.ts';

/** `levels` of nested arrays: `nest(1)` is `[]`. */
const nest = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
const OBJECT = { type: 'object' };

let upstream: RawModernUpstream;
let gw: TestGateway;
let strict: TestGateway;
let auditDir: string;

beforeAll(async () => {
  upstream = await startRawModernUpstream([
    { definition: { name: 'echo', inputSchema: OBJECT }, call: () => ({ content: [{ type: 'text', text: 'ran' }] }) },
    { definition: { name: 'deep', inputSchema: OBJECT }, call: () => ({ content: [], structuredContent: { value: nest(600) } }) },
    { definition: { name: 'deep_error', inputSchema: OBJECT }, call: () => ({ jsonrpcError: { code: -32000, message: 'failed', data: nest(600) } }) },
  ]);
  auditDir = mkdtempSync(join(tmpdir(), 'gatehouse-depth-'));
  gw = await startTestGateway(`
audit: { dir: "${auditDir}" }
validation: { arguments: false }
upstreams:
  - { name: raw, url: "${upstream.url}" }
`);
  strict = await startTestGateway(`
limits: { maxJsonDepth: 16 }
audit: { enabled: false }
upstreams:
  - { name: raw, url: "${upstream.url}" }
`);
  await Promise.all([gw.waitUp(), strict.waitUp()]);
});

afterAll(async () => {
  await gw?.close();
  await strict?.close();
  await upstream?.close();
});

let nextId = 100;
const callTool = (g: TestGateway, name: string, args: unknown) => {
  const id = nextId++;
  return { id, res: postJson(g.url, modernBody(id, 'tools/call', { name, arguments: args }), modernHeaders('tools/call', name)) };
};
const records = (): Record<string, any>[] => readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const executed = (): number => upstream.received.filter((r) => r.method === 'tools/call').length;

async function limitHits(g: TestGateway): Promise<number> {
  const text = await (await fetch(new URL('/metrics', g.url))).text();
  return Number(/^gatehouse_limit_hits_total\{limit="maxJsonDepth"\} (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

describe('a request nested deeper than limits.maxJsonDepth', () => {
  it('is refused with 400 / -32600 naming the limit, never reaches the upstream, and leaves an audit record', async () => {
    const before = { executed: executed(), hits: await limitHits(gw) };
    const { id, res } = callTool(gw, 'raw__echo', { a: nest(511) });
    const r = await res;
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request: JSON nested deeper than 64 levels (limits.maxJsonDepth)' } });
    expect(executed()).toBe(before.executed);
    expect(await limitHits(gw)).toBe(before.hits + 1);
    await expect.poll(() => records().find((rec) => rec.rpcId === id)).toMatchObject({ type: 'request', outcome: 'error', errorCode: -32600 });
  });

  it('is forwarded when it stays within the limit (the message itself is level 1)', async () => {
    // The message, params and arguments are three levels; the value of `a` adds 61: 64 in all.
    const { res } = callTool(gw, 'raw__echo', { a: nest(61) });
    expect((await res).json.result.content).toEqual([{ type: 'text', text: 'ran' }]);
  });

  it('follows the configured limit', async () => {
    const { res } = callTool(strict, 'raw__echo', { a: nest(14) });
    expect((await res).json.error.message).toBe('Invalid request: JSON nested deeper than 16 levels (limits.maxJsonDepth)');
    const { res: within } = callTool(strict, 'raw__echo', { a: nest(13) });
    expect((await within).json.result.content[0].text).toBe('ran');
  });
});

describe('an upstream result nested deeper than limits.maxJsonDepth', () => {
  it('is not forwarded; the call it answered leaves a record that says why it holds no result', async () => {
    const before = { executed: executed(), hits: await limitHits(gw) };
    const { id, res } = callTool(gw, 'raw__deep', {});
    const r = await res;
    expect(r.json.error).toEqual({
      code: -31001,
      message: 'Upstream "raw" answered with JSON nested deeper than 64 levels (limits.maxJsonDepth); Gatehouse did not forward it',
      data: { upstream: 'raw' },
    });
    expect(executed()).toBe(before.executed + 1);
    expect(await limitHits(gw)).toBe(before.hits + 1);
    await expect.poll(() => records().find((rec) => rec.rpcId === id)).toMatchObject({
      type: 'request',
      upstream: 'raw',
      name: 'raw__deep',
      outcome: 'error',
      errorCode: -31001,
      result: { unrecorded: 'nested deeper than 64 levels (limits.maxJsonDepth); not forwarded' },
    });
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream answer nested too deep, not forwarded', upstream: 'raw', limit: 64 }));
  });

  it('is not forwarded either when it is the data of an upstream error', async () => {
    const { res } = callTool(gw, 'raw__deep_error', {});
    expect((await res).json.error.message).toBe('Upstream "raw" answered with JSON nested deeper than 64 levels (limits.maxJsonDepth); Gatehouse did not forward it');
  });

  it('leaves a chain that gatehouse audit verify accepts', () => {
    const verify = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/gatehouse.js'), 'audit', 'verify', auditDir], { encoding: 'utf8' });
    expect(verify.status).toBe(0);
  });
});
