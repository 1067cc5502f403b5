// SIGTERM with a 2025-11-25 session's GET stream open while a slow call is in flight: the
// stream is ended at once, like a listen stream, and when the client opens it again (as a
// 2025-11-25 client does when its stream ends), on the connection it kept alive, it is
// refused with 503 and Retry-After instead of holding the drain until shutdown.deadline once
// the slow call has finished.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { killStarted, runCli, waitForHttp, type CliRun } from '../harness/cli-process.ts';
import { freePort } from '../harness/free-port.ts';
import { modernBody, modernHeaders, postJson } from '../harness/gateway.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-drain-legacy-'));
let upstream: ModernUpstream;
let gateway: CliRun;
let base: string;
// One kept-alive connection for the session, as a client holds it.
const agent = new Agent({ connections: 1, pipelining: 1 });

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const file = join(dir, 'gatehouse.yaml');
  // A deadline longer than the test's own timeout: waiting it out fails the test.
  writeFileSync(file, `shutdown: { drainDelay: 0s, deadline: 120s }\naudit: { dir: "${join(dir, 'audit')}" }\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
  gateway = runCli(['serve', '--config', file, '--port', String(port)], { cwd: dir });
  await waitForHttp(gateway, `${base}/readyz`);
}, 30_000);

afterAll(async () => {
  killStarted();
  await agent.close().catch(() => undefined);
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('drain with a 2025-11-25 session open', () => {
  it('ends its GET stream at once, refuses it again, and does not wait for the deadline', async () => {
    const mcp = `${base}/mcp`;
    const init = await undiciFetch(mcp, {
      dispatcher: agent,
      method: 'POST',
      headers: LEGACY,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const stream = { ...LEGACY, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', accept: 'text/event-stream' };
    const initialized = await undiciFetch(mcp, { dispatcher: agent, method: 'POST', headers: { ...stream, accept: LEGACY.accept }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    await initialized.text();
    const first = await undiciFetch(mcp, { dispatcher: agent, method: 'GET', headers: stream });
    expect(first.status).toBe(200);

    // The drain waits on this call; the session comes back for its stream meanwhile.
    const slow = postJson(mcp, modernBody('slow-1', 'tools/call', { name: 'up__slow', arguments: { ms: 3000 } }), modernHeaders('tools/call', 'up__slow'));
    await expect.poll(() => upstream.received.some((r) => (r.body as { params?: { name?: string } })?.params?.name === 'slow'), { timeout: 10_000 }).toBe(true);
    gateway.child.kill('SIGTERM');
    // Ended by the server, not cut: the body reads to its end.
    await expect(first.text()).resolves.toBeTypeOf('string');
    const again = await undiciFetch(mcp, { dispatcher: agent, method: 'GET', headers: stream });
    expect(again.status).toBe(503);
    expect(again.headers.get('retry-after')).not.toBeNull();
    await again.text();

    expect((await slow).status).toBe(200);
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(gateway.stderr()).not.toContain('drain deadline passed');
    expect(gateway.stderr()).toContain('"msg":"drained"');
  }, 60_000);
});
