// `gatehouse serve` turns V8's allocation-site pretenuring off before the gateway loads
// (src/cli/heap-tuning.ts), unless node's command line set the flag: seen from outside, as
// whether V8's pretenuring trace (on stdout, which `serve` over HTTP leaves alone) prints the
// feedback it acts on at the young collections of start-up and of a few requests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, killStarted, runCli, waitForHttp } from '../harness/cli-process.ts';
import { freePort } from '../harness/free-port.ts';

afterAll(killStarted);

async function servedTrace(nodeFlags: readonly string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-serve-heap-'));
  const port = await freePort();
  const config = join(dir, 'gatehouse.yaml');
  writeFileSync(config, `listen: { host: 127.0.0.1, port: ${port} }\naudit: { enabled: false }\nupstreams: []\n`);
  const run = runCli(['--trace-pretenuring', '--trace-pretenuring-statistics', ...nodeFlags, BIN, 'serve', '--config', config], { command: process.execPath, cwd: dir });
  await waitForHttp(run, `http://127.0.0.1:${port}/readyz`);
  for (let i = 0; i < 20; i++) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  run.child.kill('SIGTERM');
  expect(await run.exited).toEqual({ code: 0, signal: null });
  return run.stdout().split('\n').filter((l) => l.includes('pretenuring'));
}

describe('gatehouse serve: allocation-site pretenuring', () => {
  it('is off by default, and on when node\'s command line asks for it', async () => {
    const [tuned, asked] = await Promise.all([servedTrace([]), servedTrace(['--allocation-site-pretenuring'])]);
    expect(tuned).toEqual([]);
    expect(asked.length).toBeGreaterThan(0);
  });
});
