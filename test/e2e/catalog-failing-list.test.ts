// One upstream whose tools/list fails at once (an error answer, not a hang): each failure
// costs no wait, but without a circuit every list request and every new principal's first
// call would ask it again. After listRetry.afterErrors failures in a row the gateway stops
// asking, answers without it, says so in /readyz and the metrics, retries it in the
// background with a growing delay, and takes it back once a retry answers.
import { afterEach, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { ALICE, BOB, IDENTITY_YAML, logged, modernCall, modernList, toolNames } from '../harness/policy-env.ts';
import { defaultResult, startScriptedServer, type ScriptedServer } from '../upstream/scripted-server.ts';

let healthy: ModernUpstream | undefined;
let broken: ScriptedServer | undefined;
let gw: TestGateway | undefined;
let failing = true;

afterEach(async () => {
  await gw?.close();
  await broken?.close();
  await healthy?.close();
  gw = undefined;
  broken = undefined;
  healthy = undefined;
  failing = true;
});

interface ReadyUpstream {
  name: string;
  failingLists?: { kind: string; cause: string; failures: number; since: string; retryAt: string }[];
}

async function brokenState(): Promise<ReadyUpstream | undefined> {
  const ready = (await (await fetch(new URL('/readyz', gw!.url))).json()) as { upstreams: ReadyUpstream[] };
  return ready.upstreams.find((u) => u.name === 'broken');
}

async function start(retry: string): Promise<void> {
  healthy = await startModernUpstream({ name: 'ok' });
  // Answers everything but tools/list, which gets a JSON-RPC error while `failing` is set.
  broken = await startScriptedServer({
    script: (r) => (r.method === 'tools/list' && failing ? { jsonrpc: '2.0', id: r.id, error: { code: -32603, message: 'list store offline' } } : defaultResult(r)),
  });
  gw = await startTestGateway(`
${IDENTITY_YAML}
listRetry: ${retry}
upstreams:
  - { name: ok, url: "${healthy.url}" }
  - { name: broken, url: "${broken.url}" }
`);
  await gw.waitUp();
}

describe('an upstream whose list fails at once, again and again', () => {
  it('is asked afterErrors times, then left out of every list and new principal without being asked again', async () => {
    await start('{ initialDelay: 1h, maxDelay: 1h, afterErrors: 3 }');
    const asked = (): number => broken!.count('tools/list');
    // Each list request asks it (nothing is cached from a failure) until the third failure in a row.
    for (let i = 0; i < 10 && asked() < 3; i++) {
      const names = toolNames(await modernList(gw!.url, ALICE));
      expect(names).toContain('ok__echo');
      expect(names.some((n) => n.startsWith('broken__'))).toBe(false);
    }
    expect(asked()).toBe(3);
    for (const who of [ALICE, BOB, ALICE, BOB]) expect(toolNames(await modernList(gw!.url, who))).toContain('ok__echo');
    expect((await modernCall(gw!.url, BOB, 'ok__echo', { message: 'hi' })).json.result.content[0].text).toBe('hi');
    // Not asked again: the circuit is open, and its retry is an hour away.
    expect(asked()).toBe(3);
    expect((await brokenState())?.failingLists).toEqual([expect.objectContaining({ kind: 'tools', cause: 'errors', failures: 3 })]);
    expect(await metricValue(gw!.url, 'gatehouse_upstream_list_failing', { upstream: 'broken', kind: 'tools' })).toBe(1);
    expect(logged(gw!.logs, 'upstream list failed, answering without it')).toHaveLength(3);
  });

  it('is retried in the background with backoff and comes back in lists once it answers', async () => {
    await start('{ initialDelay: 100ms, maxDelay: 200ms, afterErrors: 2 }');
    // Lists asked for drive the fetches (and, once the circuit is open, its retries).
    const causeAfterList = async (): Promise<string | undefined> => {
      await modernList(gw!.url, ALICE);
      return (await brokenState())?.failingLists?.[0]?.cause;
    };
    await expect.poll(causeAfterList, { timeout: 10_000, interval: 20 }).toBe('errors');
    // Retried while it keeps failing: the count of failures grows with each retry.
    await expect.poll(async () => (await causeAfterList(), (await brokenState())?.failingLists?.[0]?.failures), { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(3);
    failing = false;
    await expect.poll(async () => toolNames(await modernList(gw!.url, ALICE)), { timeout: 10_000, interval: 50 }).toContain('broken__echo');
    expect((await brokenState())?.failingLists).toBeUndefined();
    expect(logged(gw!.logs, 'upstream answers lists again')).toHaveLength(1);
    expect(await metricValue(gw!.url, 'gatehouse_upstream_list_failing', { upstream: 'broken', kind: 'tools' })).toBeUndefined();
  });
});
