// File descriptors run out: a real `gatehouse serve` process under `ulimit -n 200`, filled
// with idle client connections, whose stdio child is killed. The restart cannot get pipes
// (spawn EMFILE). That must be a failed start, retried with backoff, while the gateway stays
// up and recovers once descriptors are free again; it ran with --unhandled-rejections=strict,
// so any unhandled rejection on the way would have ended it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernBody, modernHeaders, postJson, REPO_ROOT } from '../harness/gateway.ts';

const BIN = join(REPO_ROOT, 'bin/gatehouse.js');
const SERVER = join(REPO_ROOT, 'test/fixtures/scripted-stdio-server.mjs');
const FD_LIMIT = 200;
/** More connections than the gateway has descriptors left: some must be refused. */
const CONNECTIONS = 260;

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-fds-'));
const spawnLog = join(dir, 'spawns.log');
let gateway: ChildProcess;
let log = '';
const sockets: Socket[] = [];

beforeAll(async () => {
  const config = join(dir, 'gatehouse.yaml');
  writeFileSync(config, `
listen: { host: 127.0.0.1, port: 0 }
upstreams:
  - name: kid
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(SERVER)}]
    env: { SPAWN_LOG: ${JSON.stringify(spawnLog)} }
    restart: { initialDelay: 50ms, maxDelay: 200ms }
`);
  gateway = spawn('sh', ['-c', `ulimit -n ${FD_LIMIT} && exec "$@"`, 'sh', process.execPath, '--unhandled-rejections=strict', BIN, 'serve', '--config', config], {
    cwd: dir,
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    gateway.stderr!.on('data', (d: Buffer) => {
      log += d.toString();
      if (log.includes('"msg":"upstream up"')) resolve();
    });
    gateway.once('exit', (code) => reject(new Error(`gateway exited (${code}): ${log}`)));
  });
});

afterAll(() => {
  for (const s of sockets) s.destroy();
  gateway?.kill('SIGKILL');
});

const url = (): string => /"url":"(http:\/\/127\.0\.0\.1:\d+\/mcp)"/.exec(log)![1]!;
const logLines = (msg: string): Record<string, unknown>[] =>
  log.split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a stdio restart while file descriptors are exhausted', () => {
  it('is a failed start, retried with backoff; the gateway stays up and recovers', async () => {
    const { port } = new URL(url());
    let refused = 0;
    for (let i = 0; i < CONNECTIONS; i++) {
      const s = connect(Number(port), '127.0.0.1');
      s.on('error', () => undefined);
      s.on('close', () => refused++);
      sockets.push(s);
      await new Promise((r) => s.once('connect', r));
    }
    // The gateway had no descriptor for some of them: it accepts and closes those at once.
    await expect.poll(() => refused).toBeGreaterThan(0);

    const kid = Number(readFileSync(spawnLog, 'utf8').trim().split('\n').at(-1));
    process.kill(kid, 'SIGKILL');
    await expect.poll(() => logLines('restarting upstream').some((l) => String(l.reason).includes('EMFILE')), { timeout: 10_000 }).toBe(true);
    expect(gateway.exitCode).toBeNull();
    // Failed starts back off: the delays grow to the configured maximum.
    await expect.poll(() => logLines('restarting upstream').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const delays = logLines('restarting upstream').map((l) => l.inMs);
    expect(delays.slice(0, 3)).toEqual([50, 100, 200]);

    for (const s of sockets) s.destroy();
    await expect.poll(() => logLines('upstream up').length, { timeout: 10_000 }).toBe(2);
    const ready = await fetch(new URL('/readyz', url()));
    expect(await ready.json()).toMatchObject({ status: 'ready', upstreams: [{ name: 'kid', state: 'up' }] });
    const res = await postJson(url(), modernBody(1, 'tools/call', { name: 'kid__echo', arguments: { text: 'back' } }), modernHeaders('tools/call', 'kid__echo'));
    expect(res.json.result.content).toEqual([{ type: 'text', text: 'back' }]);
    expect(gateway.exitCode).toBeNull();
  });
});
