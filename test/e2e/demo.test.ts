// `npm start` (examples/demo.ts) as a user runs it: the weather server and the gateway on
// the ports given by WEATHER_PORT and --port, serving both example upstreams to real SDK
// clients; and, when either port is busy, a message that names the port and how to pick
// another, with no gateway started.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { killStarted, runCli, runCliToEnd, waitForHttp } from '../harness/cli-process.ts';
import { REPO_ROOT } from '../harness/gateway.ts';
import { freePort } from '../harness/free-port.ts';

const auditDir = mkdtempSync(join(tmpdir(), 'gatehouse-demo-audit-'));
const holders: Server[] = [];
const DEMO = ['--import', 'tsx', join(REPO_ROOT, 'examples/demo.ts')];

afterAll(async () => {
  killStarted();
  await Promise.all(holders.map((s) => new Promise((r) => s.close(r))));
  rmSync(auditDir, { recursive: true, force: true });
});

async function heldPort(): Promise<number> {
  const s = createServer();
  holders.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

const env = (weatherPort: number): NodeJS.ProcessEnv => ({ WEATHER_PORT: String(weatherPort), GATEHOUSE_AUDIT_DIR: auditDir, HOME: process.env.HOME });

describe('the demo (npm start)', () => {
  it('serves the weather server and server-everything on the ports asked for, and stops on SIGTERM', async () => {
    const [weatherPort, gatewayPort] = [await freePort(), await freePort()];
    const demo = runCli([...DEMO, '--port', String(gatewayPort)], { command: process.execPath, env: env(weatherPort) });
    const base = `http://127.0.0.1:${gatewayPort}`;
    await waitForHttp(demo, `${base}/healthz`, 30_000);
    await expect.poll(async () => ((await (await fetch(`${base}/readyz`)).json()) as { upstreams: { state: string }[] }).upstreams.map((u) => u.state), { timeout: 20_000 }).toEqual(['up', 'up']);

    const modern = await connectModernClient(`${base}/mcp`);
    const forecast = await modern.callTool({ name: 'weather__forecast', arguments: { region: 'eu-west', days: 2 } });
    expect(JSON.stringify(forecast.content)).toContain('day 2');
    await modern.close();
    const legacy = await connectLegacyClient(`${base}/mcp`);
    const echo = await legacy.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
    expect(JSON.stringify(echo.content)).toContain('hi');
    await legacy.close();

    demo.child.kill('SIGTERM');
    expect((await demo.exited).code).toBe(0);
    expect(demo.stderr()).toContain(`weather example listening on http://127.0.0.1:${weatherPort}/mcp`);
  });

  it('names a busy weather port and WEATHER_PORT, and starts no gateway', async () => {
    const [weatherPort, gatewayPort] = [await heldPort(), await freePort()];
    const r = await runCliToEnd([...DEMO, '--port', String(gatewayPort)], { command: process.execPath, env: env(weatherPort) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`demo: port ${weatherPort} (the weather example server) is in use on 127.0.0.1`);
    expect(r.stderr).toContain(`WEATHER_PORT=${weatherPort + 1} npm start`);
    expect(r.stderr).not.toContain('gatehouse listening');
  });

  it('names a busy gateway port and --port', async () => {
    const [weatherPort, gatewayPort] = [await freePort(), await heldPort()];
    const r = await runCliToEnd([...DEMO, '--port', String(gatewayPort)], { command: process.execPath, env: env(weatherPort) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`demo: port ${gatewayPort} (the gateway) is in use on 127.0.0.1`);
    expect(r.stderr).toContain(`npm start -- --port ${gatewayPort + 1}`);
    expect(r.stderr).not.toContain('weather example listening');
  });
});
