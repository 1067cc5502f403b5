// Two `gatehouse serve` processes configured with one audit directory: the second refuses to
// start (exit 1) and names the directory and the first one's pid and host; once the first is
// killed without a chance to clean up (SIGKILL), its stale lock is taken over by the next.
// And the nginx example, run as documented from its own directory, gives each gateway its own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { killStarted, runCli, runCliToEnd, waitForHttp } from '../harness/cli-process.ts';
import { REPO_ROOT } from '../harness/gateway.ts';
import { freePort } from '../harness/free-port.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-shared-audit-'));
afterAll(() => {
  killStarted();
  rmSync(dir, { recursive: true, force: true });
});

function config(name: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `audit: { dir: ${join(dir, 'audit')} }\nupstreams:\n  - { name: a, url: "http://127.0.0.1:9/mcp" }\n`);
  return file;
}

describe('gateways sharing one audit directory', () => {
  it('the second refuses to start, naming the directory and the holder; a crashed holder\'s lock is taken over', async () => {
    const port = await freePort();
    const first = runCli(['serve', '--config', config('first'), '--port', String(port)], { cwd: dir });
    await waitForHttp(first, `http://127.0.0.1:${port}/healthz`);

    const second = await runCliToEnd(['serve', '--config', config('second'), '--port', '0'], { cwd: dir });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`gatehouse: cannot start: the audit directory ${join(dir, 'audit')} is in use by another gateway (pid ${first.child.pid} on host ${hostname()}`);

    first.child.kill('SIGKILL');
    await first.exited;
    const port3 = await freePort();
    const third = runCli(['serve', '--config', config('third'), '--port', String(port3)], { cwd: dir });
    await waitForHttp(third, `http://127.0.0.1:${port3}/healthz`);
    expect(third.stderr()).toContain('took over a stale lock of the audit directory');
    third.child.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);
  });

  it('the nginx example gives each of its two gateways its own audit directory', () => {
    const env = { GATEHOUSE_SESSION_SECRET: 'a'.repeat(64) };
    const eu = loadConfig(join(REPO_ROOT, 'examples/nginx/gateway-eu.yaml'), env);
    const us = loadConfig(join(REPO_ROOT, 'examples/nginx/gateway-us.yaml'), env);
    expect(eu.audit.enabled && us.audit.enabled).toBe(true);
    expect(eu.audit.dir).not.toBe(us.audit.dir);
  });
});
