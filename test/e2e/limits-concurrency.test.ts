// One principal cannot hold an upstream: its calls run up to maxConcurrentPerPrincipal at
// once, as many again wait, and the rest are refused at once (503, Retry-After, a JSON-RPC error
// naming the limit, an audit record); another principal's quick call runs meanwhile. An
// upstream's own maxConcurrent queues calls, bounded by limits.maxQueuedCalls and queueTimeout.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { ALICE, BOB, IDENTITY_YAML, modernCall } from '../harness/policy-env.ts';

let upstream: ModernUpstream | undefined;
let gw: TestGateway | undefined;
let auditDir = '';
const inflight: AbortController[] = [];

afterEach(async () => {
  for (const a of inflight.splice(0)) a.abort();
  await gw?.close();
  await upstream?.close();
  gw = undefined;
  upstream = undefined;
});

function configYaml(limits: string, upstreamKeys: string): string {
  return `
${IDENTITY_YAML}
limits: ${limits}
audit: { dir: "${auditDir}" }
upstreams:
  - { name: up, url: "${upstream!.url}"${upstreamKeys} }
`;
}

async function start(limits: string, upstreamKeys = '', opts: { reload?: boolean } = {}): Promise<void> {
  upstream = await startModernUpstream({ name: 'up' });
  auditDir = join(mkdtempSync(join(tmpdir(), 'gatehouse-concurrency-')), 'trail');
  gw = await startTestGateway(configYaml(limits, upstreamKeys), process.env, opts);
  await gw.waitUp();
}

let nextId = 1;

/** A slow call that stays open until it ends or the test aborts it. */
function slowCall(who: Record<string, string>, ms: number): Promise<{ status: number; headers: Headers; json: any }> {
  const abort = new AbortController();
  inflight.push(abort);
  const body = modernBody(`slow-${nextId++}`, 'tools/call', { name: 'up__slow', arguments: { ms } });
  return fetch(gw!.url, { method: 'POST', headers: modernHeaders('tools/call', 'up__slow', who), body: JSON.stringify(body), signal: abort.signal }).then(
    async (res) => ({ status: res.status, headers: res.headers, json: JSON.parse(await res.text()) }),
    () => ({ status: 0, headers: new Headers(), json: undefined }),
  );
}

function records(): Record<string, any>[] {
  return readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

describe('per-principal concurrency', () => {
  it("keeps one principal's flood of slow calls from holding up another principal's quick call", async () => {
    await start('{ maxConcurrentPerPrincipal: 4, queueTimeout: 1m }');
    // Seventy slow calls: more than the upstream's whole connection pool (64).
    const flood = Array.from({ length: 70 }, () => slowCall(ALICE, 60_000));
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_calls_queued', { upstream: 'up' })).toBe(4);
    expect(await metricValue(gw!.url, 'gatehouse_upstream_calls_running', { upstream: 'up' })).toBe(4);
    // Bob's quick call is answered while every one of Alice's is still running or waiting.
    const quick = await modernCall(gw!.url, BOB, 'up__echo', { message: 'quick' });
    expect(quick.json.result.content[0].text).toBe('quick');
    // The ones past the running four and the waiting four were refused at once.
    for (const r of await Promise.all(flood.slice(8))) {
      expect(r.status).toBe(503);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.json.error).toMatchObject({ code: -31030, data: { limit: 'maxConcurrentPerPrincipal' } });
    }
    expect(upstream!.received.filter((r) => (r.body as any)?.params?.name === 'slow')).toHaveLength(4);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxConcurrentPerPrincipal' })).toBe(62);
    const audited = records().filter((r) => r.type === 'request' && r.errorCode === -31030);
    expect(audited).toHaveLength(62);
    expect(audited[0]).toMatchObject({ method: 'tools/call', name: 'up__slow', principal: { subject: 'alice' }, outcome: 'error', limit: 'maxConcurrentPerPrincipal' });
  });
});

describe("an upstream's own maxConcurrent", () => {
  it('queues calls past it, counts each wait, runs them as places free, and refuses past the queue bound or timeout, audited with the limit', async () => {
    await start('{ maxQueuedCalls: 1, queueTimeout: 1s }', ', maxConcurrent: 1');
    const first = slowCall(ALICE, 300);
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_calls_running', { upstream: 'up' })).toBe(1);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxConcurrent' })).toBe(0);
    const waiting = modernCall(gw!.url, BOB, 'up__echo', { message: 'after' });
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_calls_queued', { upstream: 'up' })).toBe(1);
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxConcurrent' })).toBe(1);
    const full = await modernCall(gw!.url, BOB, 'up__echo', { message: 'too many' });
    expect(full.status).toBe(503);
    expect(full.json.error.data.limit).toBe('maxQueuedCalls');
    expect((await first).json.result.content[0].text).toBe('slept 300ms');
    expect((await waiting).json.result.content[0].text).toBe('after');
    // A call that cannot get a place within queueTimeout is refused, not left hanging.
    void slowCall(ALICE, 60_000);
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_calls_running', { upstream: 'up' })).toBe(1);
    const late = await modernCall(gw!.url, BOB, 'up__echo', { message: 'late' });
    expect(late.status).toBe(503);
    expect(late.json.error.data.limit).toBe('queueTimeout');
    expect(late.json.error.message).toContain('maxConcurrent');
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'queueTimeout' })).toBe(1);
    // Two calls waited at the full upstream (the one that got in later, the one that timed
    // out; the one the queue bound refused counts as maxQueuedCalls); both refusals say why in the trail.
    expect(await metricValue(gw!.url, 'gatehouse_limit_hits_total', { limit: 'maxConcurrent' })).toBe(2);
    await expect.poll(() => records().filter((r) => r.type === 'request' && r.limit !== undefined).map((r) => r.limit)).toEqual(['maxQueuedCalls', 'queueTimeout']);
    const refusal = records().find((r) => r.limit === 'queueTimeout');
    expect(refusal).toMatchObject({ method: 'tools/call', name: 'up__echo', principal: { subject: 'bob' }, outcome: 'error', errorCode: -31030 });
  });

  it('keeps counting the calls running and waiting across a reload that changes the queue limits', async () => {
    await start('{ maxQueuedCalls: 5, queueTimeout: 30s }', ', maxConcurrent: 1', { reload: true });
    const first = slowCall(ALICE, 1500).then((r) => ({ ...r, at: performance.now() }));
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_calls_running', { upstream: 'up' })).toBe(1);
    writeFileSync(gw!.config.file, configYaml('{ maxQueuedCalls: 6, queueTimeout: 30s }', ', maxConcurrent: 1'));
    await expect.poll(() => records().filter((r) => r.type === 'event' && r.event === 'config_reload').map((r) => r.detail.result), { timeout: 10_000 }).toEqual(['applied']);
    // The upstream still runs the first call: the next one waits for it, under the new limits.
    expect(await metricValue(gw!.url, 'gatehouse_upstream_calls_running', { upstream: 'up' })).toBe(1);
    const second = modernCall(gw!.url, BOB, 'up__echo', { message: 'after the reload' }).then((r) => ({ ...r, at: performance.now() }));
    await expect.poll(() => metricValue(gw!.url, 'gatehouse_upstream_calls_queued', { upstream: 'up' })).toBe(1);
    const [a, b] = await Promise.all([first, second]);
    expect(a.json.result.content[0].text).toBe('slept 1500ms');
    expect(b.json.result.content[0].text).toBe('after the reload');
    expect(b.at).toBeGreaterThan(a.at);
  });
});
