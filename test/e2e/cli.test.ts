// The `gatehouse serve` process edge, run as a real child process: a bad config exits 2 with
// every problem named by file, path and expectation; a good one serves until SIGTERM, then
// exits 0 and takes its stdio children with it (docs/architecture.md §1, house style 9: logs to stderr).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EVERYTHING_SERVER, REPO_ROOT } from '../harness/gateway.ts';
import { freePort } from '../harness/free-port.ts';
import { alive } from '../harness/process-alive.ts';

const BIN = join(REPO_ROOT, 'bin/gatehouse.js');
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
const started: ChildProcess[] = [];

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Run {
  // Strict: an unhandled rejection anywhere in the gateway process ends it, and the test sees it.
  const child = spawn(process.execPath, ['--unhandled-rejections=strict', BIN, ...args], { cwd: dir, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  let errText = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (errText += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => errText, exited };
}

function writeConfig(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('gatehouse serve with a bad command line or config', () => {
  it('exits 2 and names file, line, path and expectation for an unknown key', async () => {
    const file = writeConfig('unknown-key.yaml', 'upstreams:\n  - name: a\n    url: http://127.0.0.1:1/mcp\n    timout: 5s\n');
    const r = run(['serve', '--config', file]);
    expect(await r.exited).toEqual({ code: 2, signal: null });
    expect(r.stderr()).toContain('gatehouse: invalid config');
    expect(r.stderr()).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4:5 /upstreams/0/timout: unknown key "timout" \\(allowed: [^)]*\\btimeout\\b`));
    expect(r.stdout()).toBe('');
  });

  it('exits 2 and names the variable for a missing ${ENV} reference', async () => {
    const file = writeConfig('missing-env.yaml', 'upstreams:\n  - name: a\n    url: http://127.0.0.1:1/mcp\n    headers: { Authorization: "Bearer ${GATEHOUSE_TEST_NOPE}" }\n');
    const r = run(['serve', '--config', file]);
    expect(await r.exited).toEqual({ code: 2, signal: null });
    expect(r.stderr()).toContain(`${file}:4:31 /upstreams/0/headers/Authorization: environment variable "GATEHOUSE_TEST_NOPE" is not set`);
  });

  it('exits 2 with the usage when --config is missing', async () => {
    const r = run(['serve']);
    expect(await r.exited).toEqual({ code: 2, signal: null });
    expect(r.stderr()).toBe('gatehouse serve: --config is required\nusage: gatehouse serve --config FILE [--host HOST] [--port PORT]\n');
  });
});

describe('gatehouse serve with a valid config', () => {
  it('answers /healthz, stops on SIGTERM with exit 0 and leaves no stdio child running', async () => {
    const file = writeConfig('good.yaml', `upstreams:\n  - name: ev\n    command: ${process.execPath}\n    args: ["${EVERYTHING_SERVER}"]\n`);
    const port = await freePort();
    const r = run(['serve', '--config', file, '--port', String(port)]);
    const base = `http://127.0.0.1:${port}`;
    // It says when it listens (on stderr, as JSON).
    await vi.waitUntil(() => r.stderr().includes('"msg":"gatehouse listening"'), { timeout: 15_000, interval: 50 });
    const health = await fetch(`${base}/healthz`);
    expect(health.ok).toBe(true);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await vi.waitUntil(async () => {
      const body = (await (await fetch(`${base}/readyz`)).json()) as { status: string; upstreams: { name: string; state: string; era?: string }[] };
      return body.upstreams[0]?.state === 'up' ? body : undefined;
    }, { timeout: 15_000, interval: 50 });
    expect(ready).toMatchObject({ status: 'ready', config: file, upstreams: [{ name: 'ev', transport: 'stdio', state: 'up', era: 'legacy' }] });

    const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(r.child.pid)], { encoding: 'utf8' })
      .split('\n').filter((l) => l.includes(EVERYTHING_SERVER)).map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(children).toHaveLength(1);
    const childPid = children[0]!;
    expect(alive(childPid)).toBe(true);

    r.child.kill('SIGTERM');
    expect(await r.exited).toEqual({ code: 0, signal: null });
    await expect.poll(() => alive(childPid), { message: 'the stdio child to be gone', timeout: 3000 }).toBe(false);
    // stdout belongs to the protocol; the logs went to stderr as JSON lines.
    expect(r.stdout()).toBe('');
    const logs = r.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'gatehouse listening', url: `http://127.0.0.1:${port}/mcp` }));
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'shutting down', signal: 'SIGTERM' }));
  });
});

describe('gatehouse key hash', () => {
  it('prints the SHA-256 of a key read from stdin, the form identity.apiKeys stores', () => {
    const out = execFileSync(process.execPath, [join(REPO_ROOT, 'bin/gatehouse.js'), 'key', 'hash'], { input: 'k3y-0123456789abcdefghijklmnopqrstu\n', encoding: 'utf8' });
    expect(out.trim()).toBe(createHash('sha256').update('k3y-0123456789abcdefghijklmnopqrstu').digest('hex'));
  });
});
