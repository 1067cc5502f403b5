// Starting, pinning and stopping the benchmark's child processes. Servers (gateway,
// upstreams, nginx) share CPU 0 and the load generator gets CPU 1 when `taskset` exists, so
// the client never steals cycles from what it measures. `taskset` execs its command, so the
// child's pid is the measured process's pid (what /proc/<pid>/stat reads).
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';

export const SERVER_CPU = 0;
export const LOADGEN_CPU = 1;

export interface Pinning {
  /** Absent when taskset is missing or the machine has a single CPU. */
  taskset: string | undefined;
}

export function detectPinning(cpuCount: number): Pinning {
  const found = spawnSync('sh', ['-c', 'command -v taskset'], { encoding: 'utf8' });
  const path = found.status === 0 ? found.stdout.trim() : '';
  return { taskset: path && cpuCount > 1 ? path : undefined };
}

export function spawnPinned(pinning: Pinning, cpu: number, command: string, args: readonly string[], opts: SpawnOptions): ChildProcess {
  return pinning.taskset
    ? spawn(pinning.taskset, ['-c', String(cpu), command, ...args], opts)
    : spawn(command, [...args], opts);
}

/** A free TCP port on 127.0.0.1 (released just before the caller binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls until `probe` returns true; throws after `timeoutMs`, or when the child exits. */
export async function waitFor(what: string, probe: () => Promise<boolean>, child?: ChildProcess, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child && child.exitCode !== null) throw new Error(`${what}: process exited with code ${child.exitCode}`);
    try {
      if (await probe()) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: not ready after ${timeoutMs} ms`);
}

/** Any HTTP answer at all from 127.0.0.1:port means the server listens. */
export function waitForHttp(what: string, port: number, child?: ChildProcess): Promise<void> {
  return waitFor(what, async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return true;
  }, child);
}

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Collects a child's stderr tail, for error messages when it dies. */
export function stderrTail(child: ChildProcess, maxChars = 4000): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    tail = (tail + d).slice(-maxChars);
  });
  return () => tail;
}

/** Spawns an HTTP server pinned to SERVER_CPU (stdout discarded, stderr kept for errors) and
 * waits until 127.0.0.1:port answers; if it never does, kills it and throws with its stderr. */
export async function startHttpServer(
  pinning: Pinning,
  what: string,
  command: string,
  args: readonly string[],
  port: number,
  env?: NodeJS.ProcessEnv,
): Promise<ChildProcess> {
  const child = spawnPinned(pinning, SERVER_CPU, command, args, { ...(env ? { env } : {}), stdio: ['ignore', 'ignore', 'pipe'] });
  const tail = stderrTail(child);
  try {
    await waitForHttp(what, port, child);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${tail()}`);
  }
  return child;
}
