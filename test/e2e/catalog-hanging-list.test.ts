// One upstream that never answers tools/list: the gateway waits listDeadline for it once,
// then answers lists and new principals' first calls without it and without waiting, retries
// it in the background with a growing delay, says so in /readyz, and takes it back as soon as
// a retry answers.
import { afterEach, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { ALICE, BOB, IDENTITY_YAML, logged, modernCall, modernList, toolNames } from '../harness/policy-env.ts';
import { defaultResult, startScriptedServer, type ScriptedServer } from '../upstream/scripted-server.ts';

let healthy: ModernUpstream | undefined;
let slow: ScriptedServer | undefined;
let gw: TestGateway | undefined;
let hang = true;

afterEach(async () => {
  await gw?.close();
  await slow?.close();
  await healthy?.close();
  gw = undefined;
  slow = undefined;
  healthy = undefined;
  hang = true;
});

interface ReadyUpstream {
  name: string;
  failingLists?: { kind: string; failures: number; since: string; retryAt: string }[];
}

async function readyUpstreams(): Promise<ReadyUpstream[]> {
  return ((await (await fetch(new URL('/readyz', gw!.url))).json()) as { upstreams: ReadyUpstream[] }).upstreams;
}

async function start(retry: string, slowTimeout: string): Promise<void> {
  healthy = await startModernUpstream({ name: 'ok' });
  // Answers everything but tools/list, which it holds open while `hang` is set.
  slow = await startScriptedServer({ script: (r) => (r.method === 'tools/list' && hang ? new Promise<undefined>(() => undefined) : defaultResult(r)) });
  gw = await startTestGateway(`
${IDENTITY_YAML}
listDeadline: 300ms
listRetry: ${retry}
upstreams:
  - { name: ok, url: "${healthy.url}" }
  - { name: slow, url: "${slow.url}", timeout: ${slowTimeout} }
`);
  await gw.waitUp();
}

describe('an upstream that never answers tools/list', () => {
  it('is waited for once, then left out of every list and from the first call of a new principal, without a wait', async () => {
    await start('{ initialDelay: 1h, maxDelay: 1h }', '10m');
    const first = toolNames(await modernList(gw!.url, ALICE));
    expect(first).toContain('ok__echo');
    expect(first.some((n) => n.startsWith('slow__'))).toBe(false);
    for (const who of [ALICE, BOB, ALICE, BOB]) expect(toolNames(await modernList(gw!.url, who))).toEqual(first);
    // Bob's first call needs a merged view of his own: it is built without the silent upstream.
    const call = await modernCall(gw!.url, BOB, 'ok__echo', { message: 'hi' });
    expect(call.json.result.content[0].text).toBe('hi');
    // Waited on once only: every later request was answered without it.
    expect(logged(gw!.logs, 'upstream too slow for list')).toHaveLength(1);
    expect(slow!.count('tools/list')).toBe(1);
    const state = (await readyUpstreams()).find((u) => u.name === 'slow');
    expect(state?.failingLists).toEqual([expect.objectContaining({ kind: 'tools', failures: 1 })]);
    expect((await readyUpstreams()).find((u) => u.name === 'ok')?.failingLists).toBeUndefined();
    expect(await metricValue(gw!.url, 'gatehouse_upstream_list_failing', { upstream: 'slow', kind: 'tools' })).toBe(1);
  });

  it('is retried in the background with backoff and comes back in lists once it answers', async () => {
    await start('{ initialDelay: 100ms, maxDelay: 200ms }', '1s');
    expect(toolNames(await modernList(gw!.url, ALICE)).some((n) => n.startsWith('slow__'))).toBe(false);
    // The held request times out upstream; retries follow, one at a time, until one answers.
    await expect.poll(async () => (await readyUpstreams()).find((u) => u.name === 'slow')?.failingLists?.[0]?.failures, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    hang = false;
    await expect.poll(async () => toolNames(await modernList(gw!.url, ALICE)), { timeout: 10_000, interval: 50 }).toContain('slow__echo');
    expect((await readyUpstreams()).find((u) => u.name === 'slow')?.failingLists).toBeUndefined();
    expect(logged(gw!.logs, 'upstream answers lists again')).toHaveLength(1);
    expect(await metricValue(gw!.url, 'gatehouse_upstream_list_failing', { upstream: 'slow', kind: 'tools' })).toBeUndefined();
    // Never more than one list request in flight to it at a time: the held one, then one per retry.
    const lists = slow!.received.filter((r) => r.method === 'tools/list').length;
    expect(lists).toBeGreaterThanOrEqual(2);
    expect(logged(gw!.logs, 'upstream too slow for list')).toHaveLength(1);
  });
});
