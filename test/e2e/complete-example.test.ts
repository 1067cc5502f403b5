// examples/complete, as its README runs it: `gatehouse config check` and `gatehouse policy
// test` pass; `gatehouse serve` starts with it in front of the real weather example and
// server-everything; an SDK client with a demo key sees and calls what the policy allows,
// one without is refused; the approval rule holds a call until carol denies it on the
// console API; and the audit trail it wrote verifies.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { killStarted, runCli, runCliToEnd, waitForHttp, type CliRun } from '../harness/cli-process.ts';
import { REPO_ROOT } from '../harness/gateway.ts';
import { freePort } from '../harness/free-port.ts';


const CONFIG = join(REPO_ROOT, 'examples/complete/gatehouse.yaml');
const ALICE = { 'x-api-key': 'demo-alice-7f3c9a1e5b2d4f6a8c0e' };
const CAROL = 'demo-carol-2b4d6f8a0c1e3a5b7d9f';
const auditDir = mkdtempSync(join(tmpdir(), 'gatehouse-complete-audit-'));
let env: NodeJS.ProcessEnv;
let gateway: CliRun;
let base: string;

beforeAll(async () => {
  const [weatherPort, port] = [await freePort(), await freePort()];
  const weather = runCli(['--import', 'tsx', join(REPO_ROOT, 'examples/weather-server.ts')], { command: process.execPath, env: { PORT: String(weatherPort) } });
  await vi.waitUntil(() => weather.stderr().includes('weather example listening'), { timeout: 20_000, interval: 25 });
  base = `http://127.0.0.1:${port}`;
  env = {
    GATEHOUSE_APPROVAL_KEY: randomBytes(32).toString('hex'),
    GATEHOUSE_SESSION_SECRET: randomBytes(32).toString('hex'),
    GATEHOUSE_AUDIT_DIR: auditDir,
    GATEHOUSE_RESOURCE: `${base}/mcp`,
    WEATHER_URL: `http://127.0.0.1:${weatherPort}/mcp`,
  };
  gateway = runCli(['serve', '--config', CONFIG, '--port', String(port)], { env });
  await waitForHttp(gateway, `${base}/healthz`);
  await vi.waitUntil(async () => ((await (await fetch(`${base}/readyz`)).json()) as { upstreams: { state: string }[] }).upstreams.every((u) => u.state === 'up'), { timeout: 20_000, interval: 25 });
}, 60_000);

afterAll(() => {
  killStarted();
  rmSync(auditDir, { recursive: true, force: true });
});

describe('the complete example', () => {
  it('passes gatehouse config check and its policy tests', async () => {
    const check = await runCliToEnd(['config', 'check', '--config', CONFIG], { env });
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/identity +2 API keys/);
    expect(check.stdout).toMatch(/approvals +on/);
    const tests = await runCliToEnd(['policy', 'test', '--dir', join(REPO_ROOT, 'examples/complete/policies')]);
    expect(tests.code).toBe(0);
    expect(tests.stdout).toContain('6 passed, 0 failed');
  });

  it('serves a developer what the policy allows, and nothing else', async () => {
    const client = await connectModernClient(`${base}/mcp`, { headers: ALICE });
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(['everything__echo', 'everything__get-sum', 'everything__get-tiny-image', 'everything__gzip-file-as-resource', 'weather__forecast']);
    const forecast = await client.callTool({ name: 'weather__forecast', arguments: { region: 'eu-west', days: 2 } });
    expect(JSON.stringify(forecast.content)).toContain('day 2');
    await expect(client.callTool({ name: 'everything__get-env', arguments: {} })).rejects.toThrow();
    await client.close();
  });

  it('serves the process metrics it turns on', async () => {
    expect(await (await fetch(`${base}/metrics`)).text()).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('refuses a caller without a key', async () => {
    await expect(connectModernClient(`${base}/mcp`)).rejects.toThrow();
    const r = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(401);
  });

  it('holds the approval rule\'s call until an approver decides on the console', async () => {
    const client = await connectLegacyClient(`${base}/mcp`, { headers: ALICE });
    const call = client.callTool({ name: 'everything__gzip-file-as-resource', arguments: { name: 'x.gz', data: 'https://example.invalid/' } });
    type Pending = { approvals: { id: string; name: string; principal: { subject: string } }[] };
    let list: Pending = { approvals: [] };
    await expect.poll(async () => {
      list = (await (await fetch(`${base}/approvals/api/pending`, { headers: { authorization: `Bearer ${CAROL}` } })).json()) as Pending;
      return list.approvals.length === 1;
    }, { message: 'the call to wait for approval', timeout: 10_000 }).toBe(true);
    expect(list.approvals[0]).toMatchObject({ name: 'everything__gzip-file-as-resource', principal: { subject: 'alice' } });
    const decided = await fetch(`${base}/approvals/${list.approvals[0]!.id}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CAROL}`, 'content-type': 'application/json', 'gatehouse-console': 'decide' },
      body: JSON.stringify({ decision: 'deny', reason: 'not today' }),
    });
    expect(decided.status).toBe(200);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('declined');
    await client.close();
  });

  it('keeps an audit trail that verifies after a clean stop', async () => {
    gateway.child.kill('SIGTERM');
    expect((await gateway.exited).code).toBe(0);
    const verify = await runCliToEnd(['audit', 'verify', auditDir]);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^OK: \d+ records/);
    const denied = await runCliToEnd(['audit', 'query', '--dir', auditDir, '--outcome', 'denied', '--json']);
    expect(denied.stdout).toContain('everything__get-env');
  });
});
