// SIGTERM drains `gatehouse serve` under load: /readyz answers 503 at once while calls keep
// being served (with `Connection: close`) for shutdown.drainDelay; then the listener takes
// no new connections, the open subscriptions/listen stream ends cleanly, the call still in
// flight finishes with its result within shutdown.deadline, the audit trail is flushed
// (it verifies and holds that call), and the process exits 0.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { killStarted, runCli, runCliToEnd, waitForHttp, type CliRun } from '../harness/cli-process.ts';
import { modernBody, modernHeaders, postJson } from '../harness/gateway.ts';
import { freePort } from '../harness/free-port.ts';


const dir = mkdtempSync(join(tmpdir(), 'gatehouse-drain-'));
const auditDir = join(dir, 'audit');
let upstream: ModernUpstream;
let gateway: CliRun;
let base: string;

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const file = join(dir, 'gatehouse.yaml');
  writeFileSync(file, `shutdown: { drainDelay: 3s, deadline: 20s }\naudit: { dir: "${auditDir}" }\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
  gateway = runCli(['serve', '--config', file, '--port', String(port)], { cwd: dir });
  await waitForHttp(gateway, `${base}/readyz`);
}, 30_000);

afterAll(async () => {
  killStarted();
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('gatehouse serve on SIGTERM', () => {
  it('drains: not ready at once, still serving, streams ended, the call in flight finished, trail flushed', async () => {
    const mcp = `${base}/mcp`;
    const listen = await fetch(mcp, {
      method: 'POST',
      headers: modernHeaders('subscriptions/listen'),
      body: JSON.stringify(modernBody('listen-1', 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
    });
    expect(listen.status).toBe(200);
    // Read to its end: resolves when the server ends the stream, rejects if it is cut.
    const listenEnded = listen.text();

    const slowCall = postJson(mcp, modernBody('slow-1', 'tools/call', { name: 'up__slow', arguments: { ms: 5000 } }), modernHeaders('tools/call', 'up__slow'));
    await expect.poll(() => upstream.received.some((r) => (r.body as { params?: { name?: string } })?.params?.name === 'slow'), { message: 'the slow call to reach the upstream', timeout: 10_000 }).toBe(true);

    // Load: a few callers in a loop, until each has been served at least once after readiness went.
    let notReady = false;
    let stop = false;
    const servedWhileDraining: { status: number; connection: string | null }[] = [];
    const failures: string[] = [];
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; !stop && i < 10_000; i++) {
        // Only calls sent after readiness went count as served while draining.
        const sentWhileDraining = notReady;
        try {
          const r = await postJson(mcp, modernBody(`w${w}-${i}`, 'tools/call', { name: 'up__echo', arguments: { message: `w${w}-${i}` } }), modernHeaders('tools/call', 'up__echo'));
          if (r.status !== 200 || r.json?.result?.structuredContent?.message !== `w${w}-${i}`) failures.push(`${r.status} ${r.text.slice(0, 200)}`);
          if (sentWhileDraining) servedWhileDraining.push({ status: r.status, connection: r.headers.get('connection') });
        } catch (e) {
          failures.push(String((e as Error).cause ?? e));
          return;
        }
      }
    };
    const workers = [0, 1, 2].map(worker);
    await expect.poll(() => upstream.received.length > 10, { message: 'load to be served', timeout: 10_000 }).toBe(true);

    gateway.child.kill('SIGTERM');
    await expect.poll(async () => (await fetch(`${base}/readyz`)).status === 503, { message: '/readyz to answer 503', timeout: 2_000 }).toBe(true);
    notReady = true;
    expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ status: 'draining' });
    await expect.poll(() => servedWhileDraining.length >= 6, { message: 'calls to be served while draining', timeout: 10_000 }).toBe(true);
    stop = true;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    expect(servedWhileDraining.filter((r) => r.status !== 200 || r.connection !== 'close')).toEqual([]);

    const slow = await slowCall;
    expect(slow.status).toBe(200);
    expect(JSON.stringify(slow.json ?? slow.text)).toContain('slept 5000ms');
    // Ended by the server, not cut: the body reads to its end without an error.
    await expect(listenEnded).resolves.toContain('notifications/subscriptions/acknowledged');

    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    const logs = gateway.stderr();
    expect(logs).toContain('"msg":"draining: /readyz answers 503, still serving"');
    expect(logs).toContain('"msg":"drained"');
    expect(logs).not.toContain('drain deadline passed');

    const verify = await runCliToEnd(['audit', 'verify', auditDir]);
    expect(verify.code).toBe(0);
    const slowRecords = await runCliToEnd(['audit', 'query', '--dir', auditDir, '--tool', 'up__slow', '--json']);
    expect(slowRecords.stdout).toContain('"outcome":"ok"');
  });
});
