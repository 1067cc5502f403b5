// `gatehouse serve` as a child process, as a container runs it: given args and environment,
// bound to 127.0.0.1 on a free port (--host/--port override the config's 0.0.0.0:8080 only
// because tests never bind other addresses), ready when it logs "gatehouse listening".
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './helm-render.ts';

export const GATEHOUSE_BIN = join(REPO_ROOT, 'bin/gatehouse.js');

export interface GatewayProcess {
  /** http://127.0.0.1:PORT, without a path. */
  origin: string;
  /** The MCP endpoint URL the gateway logged. */
  url: string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** For afterAll: whatever a failed test left running. */
export function killAllGateways(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

export async function startGatewayProcess(args: readonly string[], env: Record<string, string>, timeoutMs = 20_000): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [GATEHOUSE_BIN, ...args, '--host', '127.0.0.1', '--port', '0'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
    running.delete(child);
    resolve(code);
  }));
  let text = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gatehouse did not start within ${timeoutMs} ms:\n${text}`)), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => {
      text += d.toString();
      // Complete lines only: the last piece may be half a line.
      for (const line of text.split('\n').slice(0, -1)) {
        if (!line.startsWith('{')) continue;
        const record = JSON.parse(line) as { msg?: string; url?: string };
        if (record.msg === 'gatehouse listening' && record.url) {
          clearTimeout(timer);
          resolve(record.url);
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`gatehouse exited with ${code} before listening:\n${text}`));
    });
  });
  return {
    origin: new URL(url).origin,
    url,
    stderr: () => text,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
