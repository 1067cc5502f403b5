// The upstream answers the gateway holds while it reads them share one memory budget
// (limits.maxInflightAnswerBytes): an answer that does not fit beside the ones in flight fails
// its call at once with 503, Retry-After and a JSON-RPC error naming the limit, audited and
// counted; the one in flight completes, and what it held goes back to the budget. Stdio
// upstreams share the same budget: a line being read is charged to it like an HTTP body.
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { modernCall } from '../harness/policy-env.ts';
import { defaultResult, SSE_HEADERS, startScriptedServer, type ScriptedServer } from '../upstream/scripted-server.ts';

const PART = 3 * 1024 * 1024;

let upstream: ScriptedServer | undefined;
let gw: TestGateway | undefined;
const held = new Map<string, ServerResponse>();

afterEach(async () => {
  for (const res of held.values()) res.destroy();
  held.clear();
  await gw?.close();
  await upstream?.close();
  gw = undefined;
  upstream = undefined;
});

describe('memory budget of answers in flight', () => {
  it('fails an answer that does not fit beside those in flight, and lets them finish', async () => {
    // Answers `hold` with the first 3 MiB of a big result and keeps the rest until released;
    // anything else it answers whole.
    upstream = await startScriptedServer({
      script: (r, res) => {
        const message = (r.body.params as { arguments?: { message?: string } } | undefined)?.arguments?.message ?? '';
        if (r.method !== 'tools/call' || !message.startsWith('hold')) return defaultResult(r);
        res.writeHead(200, SSE_HEADERS);
        res.write(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":{"content":[{"type":"text","text":"${'x'.repeat(PART)}`);
        held.set(message, res);
        return undefined;
      },
    });
    gw = await startTestGateway(`
limits: { maxInflightAnswerBytes: ${4 * 1024 * 1024} }
upstreams:
  - { name: big, url: "${upstream.url}" }
`);
    await gw.waitUp();
    const first = modernCall(gw.url, {}, 'big__echo', { message: 'hold-1' });
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_answer_bytes'), { timeout: 10_000 }).toBeGreaterThanOrEqual(PART);
    const second = modernCall(gw.url, {}, 'big__echo', { message: 'hold-2' });
    const refused = await second;
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.json.error).toMatchObject({ code: -31030, data: { limit: 'maxInflightAnswerBytes' } });
    expect(refused.json.error.message).toContain('limits.maxInflightAnswerBytes');
    // The answer in flight completes, whole.
    held.get('hold-1')!.end('"}]}}\n\n');
    const done = await first;
    expect(done.json.result.content[0].text).toHaveLength(PART);
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_answer_bytes')).toBe(0);
    // Room again: a small call goes through, and the refusal was counted once.
    expect((await modernCall(gw.url, {}, 'big__echo', { message: 'small' })).json.result.content[0].text).toBe('Echo: small');
    expect(await metricValue(gw.url, 'gatehouse_limit_hits_total', { limit: 'maxInflightAnswerBytes' })).toBe(1);
  });
});

describe('stdio answers and the same budget', () => {
  const SERVER = join(REPO_ROOT, 'test/fixtures/scripted-stdio-server.mjs');

  it('charges a stdio line being read, so that an HTTP answer that does not fit beside it fails, and the other way round', async () => {
    // `hold` as above; `big` answers 3 MiB at once.
    upstream = await startScriptedServer({
      script: (r, res) => {
        const message = (r.body.params as { arguments?: { message?: string } } | undefined)?.arguments?.message ?? '';
        if (r.method !== 'tools/call' || (message !== 'big' && message !== 'hold')) return defaultResult(r);
        const head = `{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":{"content":[{"type":"text","text":"${'y'.repeat(PART)}`;
        res.writeHead(200, SSE_HEADERS);
        res.write(`event: message\ndata: ${head}`);
        if (message === 'big') res.end('"}]}}\n\n');
        else held.set(message, res);
        return undefined;
      },
    });
    gw = await startTestGateway(`
limits: { maxInflightAnswerBytes: ${4 * 1024 * 1024} }
upstreams:
  - { name: http, url: "${upstream.url}" }
  - { name: pipe, command: node, args: ["${SERVER}"] }
`);
    await gw.waitUp();
    // The stdio child writes the first 3 MiB of an answer and keeps its line open.
    const open = modernCall(gw.url, {}, 'pipe__part', { bytes: PART });
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_answer_bytes'), { timeout: 10_000 }).toBeGreaterThanOrEqual(PART);
    const refused = await modernCall(gw.url, {}, 'http__echo', { message: 'big' });
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatchObject({ code: -31030, data: { limit: 'maxInflightAnswerBytes' } });
    // The stdio line ends: its call is answered whole, and the budget is free again.
    expect((await modernCall(gw.url, {}, 'pipe__finish', {})).status).toBe(200);
    expect((await open).json.result.content[0].text).toHaveLength(PART);
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_answer_bytes')).toBe(0);
    expect((await modernCall(gw.url, {}, 'http__echo', { message: 'big' })).json.result.content[0].text).toHaveLength(PART);

    // The other way round: an HTTP answer holds 3 MiB, and a 2 MiB stdio line no longer fits.
    const holding = modernCall(gw.url, {}, 'http__echo', { message: 'hold' });
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_answer_bytes'), { timeout: 10_000 }).toBeGreaterThanOrEqual(PART);
    const huge = await modernCall(gw.url, {}, 'pipe__huge', { bytes: 2 * 1024 * 1024 });
    expect(huge.status).toBe(503);
    expect(Number(huge.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(huge.json.error).toMatchObject({ code: -31030, data: { limit: 'maxInflightAnswerBytes' } });
    expect(huge.json.error.message).toBe(`Upstream "pipe": the answers in flight hold all of the ${4 * 1024 * 1024}-byte memory budget (limits.maxInflightAnswerBytes); try again shortly`);
    held.get('hold')!.end('"}]}}\n\n');
    expect((await holding).json.result.content[0].text).toHaveLength(PART);
    // The child reads on: its next answer comes through whole, and each refusal was counted.
    expect((await modernCall(gw.url, {}, 'pipe__huge', { bytes: 2 * 1024 * 1024 })).json.result.content[0].text).toHaveLength(2 * 1024 * 1024);
    expect(await metricValue(gw.url, 'gatehouse_limit_hits_total', { limit: 'maxInflightAnswerBytes' })).toBe(2);
    expect(gw.upstreams.find((u) => u.name === 'pipe')!.status().state).toBe('up');
  });
});
