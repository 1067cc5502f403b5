// One hostile upstream cannot break the gateway for the others by nesting what it sends:
// a tool whose `_meta`, `outputSchema` or `annotations` nests 3,000 levels used to make
// tools/list fail for every caller (the list version's own recursive canonical JSON); now
// that tool is left out with a warning naming the upstream and the tool, and everything else
// is listed and callable. A stdio upstream's notification nested 10,000 levels used to end
// the gateway from inside its stdout reader (the log line's JSON.stringify); now it is
// dropped with a warning. Real upstreams: a raw HTTP one, an SDK 2.x server, a stdio child.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startRawModernUpstream, type RawModernUpstream } from '../fixtures/raw-modern-upstream.ts';
import { modernBody, modernHeaders, postJson, REPO_ROOT, startTestGateway, type TestGateway } from '../harness/gateway.ts';

const DEEP = 3000;
const nest = (levels: number): Record<string, unknown> => JSON.parse('{"a":'.repeat(levels) + '{}' + '}'.repeat(levels)) as Record<string, unknown>;
const OBJECT = { type: 'object' };
const SERVER = join(REPO_ROOT, 'test/fixtures/scripted-stdio-server.mjs');

let hostile: RawModernUpstream;
let healthy: ModernUpstream;
let gw: TestGateway;

beforeAll(async () => {
  hostile = await startRawModernUpstream([
    { definition: { name: 'fine', inputSchema: OBJECT }, call: () => ({ content: [{ type: 'text', text: 'fine' }] }) },
    { definition: { name: 'deep_meta', inputSchema: OBJECT, _meta: nest(DEEP) }, call: () => ({ content: [] }) },
    { definition: { name: 'deep_output', inputSchema: OBJECT, outputSchema: nest(DEEP) }, call: () => ({ content: [] }) },
    { definition: { name: 'deep_annotations', inputSchema: OBJECT, annotations: nest(DEEP) }, call: () => ({ content: [] }) },
  ]);
  healthy = await startModernUpstream({ name: 'healthy' });
  gw = await startTestGateway(`
upstreams:
  - { name: bad, url: "${hostile.url}" }
  - { name: good, url: "${healthy.url}" }
  - { name: kid, command: node, args: ["${SERVER}"] }
`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await hostile?.close();
  await healthy?.close();
});

let nextId = 1;
const post = (method: string, params: Record<string, unknown> = {}, name?: string) => postJson(gw.url, modernBody(nextId++, method, params), modernHeaders(method, name));

async function limitHits(): Promise<number> {
  const text = await (await fetch(new URL('/metrics', gw.url))).text();
  return Number(/^gatehouse_limit_hits_total\{limit="maxJsonDepth"\} (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

describe('a tool nested deeper than limits.maxJsonDepth in one upstream\'s list', () => {
  it('is left out; the lists of that upstream and every other are served', async () => {
    const res = await post('tools/list');
    expect(res.status).toBe(200);
    const names: string[] = res.json.result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain('bad__fine');
    expect(names).toContain('good__echo');
    expect(names.filter((n) => n.startsWith('bad__deep'))).toEqual([]);
  });

  it('is named, with its upstream and the limit, in one warning per tool', () => {
    const warned = gw.logs.filter((l) => l.msg === 'tool left out of tools/list' && l.upstream === 'bad');
    expect(warned.map((l) => l.tool).sort()).toEqual(['deep_annotations', 'deep_meta', 'deep_output']);
    expect(warned.every((l) => l.reason === 'nested deeper than 64 levels (limits.maxJsonDepth)')).toBe(true);
  });

  it('leaves calls to the other upstreams and to the rest of its own list working', async () => {
    const good = await post('tools/call', { name: 'good__echo', arguments: { message: 'hi' } }, 'good__echo');
    expect(good.json.result.content).toEqual([{ type: 'text', text: 'hi' }]);
    const fine = await post('tools/call', { name: 'bad__fine', arguments: {} }, 'bad__fine');
    expect(fine.json.result.content).toEqual([{ type: 'text', text: 'fine' }]);
    const gone = await post('tools/call', { name: 'bad__deep_meta', arguments: {} }, 'bad__deep_meta');
    expect(gone.json.error.code).toBe(-32602);
  });

  it('counts each item it leaves out in gatehouse_limit_hits_total{limit="maxJsonDepth"}', async () => {
    expect(await limitHits()).toBeGreaterThanOrEqual(3);
  });
});

describe('a stdio upstream notification nested deeper than limits.maxJsonDepth', () => {
  it('is dropped with a warning, and the call it came with is answered', async () => {
    const before = await limitHits();
    const res = await post('tools/call', { name: 'kid__notify_deep', arguments: { levels: 10_000 } }, 'kid__notify_deep');
    expect(res.json.result.content).toEqual([{ type: 'text', text: '' }]);
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream notification nested too deep, dropped', upstream: 'kid', method: 'notifications/message', limit: 64 }));
    expect(await limitHits()).toBe(before + 1);
    expect(gw.upstreams.find((u) => u.name === 'kid')!.status().state).toBe('up');
  });
});
