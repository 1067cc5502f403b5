// The upstream answers the gateway holds while it reads them share one memory budget
// (limits.maxInflightAnswerBytes): an answer that does not fit beside the ones in flight fails
// its call at once with 503, Retry-After and a JSON-RPC error naming the limit, audited and
// counted; the one in flight completes, and what it held goes back to the budget.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
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
