// `gatehouse serve` on an address it cannot listen on: it exits at once with status 1 and a
// message naming the address and what to do, having started no upstream (a stdio child
// that would leave a marker file when spawned never runs) and with nothing left open.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killStarted, runCli, runCliToEnd, waitForHttp } from '../harness/cli-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-listen-'));
const holders: Server[] = [];

afterAll(async () => {
  killStarted();
  await Promise.all(holders.map((s) => new Promise((r) => s.close(r))));
  rmSync(dir, { recursive: true, force: true });
});

/** A port some other process (here: this one) already listens on. */
async function heldPort(): Promise<number> {
  const s = createServer();
  holders.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

/** A config whose only upstream is a stdio child that leaves `marker` behind when it starts. */
function configWithMarker(name: string): { file: string; marker: string } {
  const marker = join(dir, `${name}.spawned`);
  const file = join(dir, `${name}.yaml`);
  const script = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, ''); setInterval(() => {}, 1000)`;
  writeFileSync(file, `upstreams:\n  - name: child\n    command: ${process.execPath}\n    args: ["-e", ${JSON.stringify(script)}]\n`);
  return { file, marker };
}

describe('gatehouse serve when it cannot listen', () => {
  it('exits 1 at once on an address in use, names it, and spawns no upstream', async () => {
    const port = await heldPort();
    const { file, marker } = configWithMarker('in-use');
    const r = await runCliToEnd(['serve', '--config', file, '--port', String(port)], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`gatehouse: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}; another process listens there: stop it, or choose another port with --port or listen.port\n`);
    expect(existsSync(marker)).toBe(false);
  });

  it('starts the upstreams once it listens', async () => {
    const { file, marker } = configWithMarker('free');
    const probe = await heldPort();
    await new Promise((r) => holders.pop()!.close(r));
    const run = runCli(['serve', '--config', file, '--port', String(probe)], { cwd: dir });
    await waitForHttp(run, `http://127.0.0.1:${probe}/healthz`);
    await expect.poll(() => existsSync(marker), { timeout: 15_000 }).toBe(true);
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
  });
});
