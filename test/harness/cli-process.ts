// Runs the `gatehouse` command as a real child process for tests of the process edge: its
// exit code, stdout and stderr kept apart, and a way to wait for it to answer over HTTP.
// Every process started here is killed by `killStarted` (call it in afterAll).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { vi } from 'vitest';
import { freePort } from './free-port.ts';
import { REPO_ROOT } from './gateway.ts';

export const BIN = join(REPO_ROOT, 'bin/gatehouse.js');

export interface CliRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The command to run instead of `node bin/gatehouse.js` (e.g. an installed bin link). */
  command?: string;
  stdin?: string;
}

const started: ChildProcess[] = [];

export function runCli(args: readonly string[], opts: CliOptions = {}): CliRun {
  const [file, argv] = opts.command === undefined ? [process.execPath, [BIN, ...args]] : [opts.command, [...args]];
  const child = spawn(file, argv, {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { PATH: process.env.PATH, ...opts.env },
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  // 'close', not 'exit': only then has everything the process printed been read.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs to the end and returns what it printed. */
export async function runCliToEnd(args: readonly string[], opts: CliOptions = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = runCli(args, opts);
  const { code } = await r.exited;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

/** Resolves once `url` answers 200, or rejects when the process exits first. */
export async function waitForHttp(run: CliRun, url: string, timeoutMs = 20_000): Promise<void> {
  let exited = false;
  void run.exited.then(() => (exited = true));
  const answered = (): Promise<boolean> => {
    // Thrown, this ends the wait at once.
    if (exited) throw new Error('exited');
    return fetch(url).then((r) => r.ok, () => false);
  };
  await vi.waitUntil(answered, { timeout: timeoutMs, interval: 25 }).catch(() => {
    throw new Error(`${url} did not answer 200${exited ? ' (the process exited)' : ''}\n${run.stderr()}`);
  });
}

export function killStarted(): void {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

/** `gatehouse serve --config FILE` on a free port, once /readyz answers: the run and its MCP URL. */
export async function startServe(file: string, cwd: string): Promise<{ run: CliRun; mcp: string }> {
  const port = await freePort();
  const run = runCli(['serve', '--config', file, '--port', String(port)], { cwd });
  await waitForHttp(run, `http://127.0.0.1:${port}/readyz`);
  return { run, mcp: `http://127.0.0.1:${port}/mcp` };
}

/** The JSON log lines a run has written to stderr with this message. */
export function loggedLines(run: CliRun, msg: string): Record<string, any>[] {
  return run
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>)
    .filter((l) => l.msg === msg);
}
