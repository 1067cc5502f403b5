// Parent side of the load generator: one long-lived child process pinned to LOADGEN_CPU
// (loadgen-worker.ts), fed one run at a time over IPC. Keeping it alive across runs avoids
// paying tsx start-up per round and keeps its JIT warm.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LOADGEN_CPU, spawnPinned, stderrTail, type Pinning } from './child-processes.ts';
import type { LoadResult, LoadSpec, WorkerMessage, WorkerReply } from './loadgen-worker.ts';

export type { LoadResult, LoadSpec } from './loadgen-worker.ts';

const WORKER = fileURLToPath(new URL('./loadgen-worker.ts', import.meta.url));

export class LoadGenerator {
  private constructor(
    private readonly child: ChildProcess,
    private readonly stderr: () => string,
  ) {}

  static start(pinning: Pinning): LoadGenerator {
    const child = spawnPinned(pinning, LOADGEN_CPU, process.execPath, ['--import', 'tsx', WORKER], {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    return new LoadGenerator(child, stderrTail(child));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  run(spec: LoadSpec): Promise<LoadResult> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => {
        this.child.off('message', onMessage);
        reject(new Error(`load generator exited (code ${code}): ${this.stderr()}`));
      };
      const onMessage = (reply: WorkerReply): void => {
        this.child.off('exit', onExit);
        this.child.off('message', onMessage);
        if (reply.type === 'result') resolve(reply.result);
        else reject(new Error(`load generator: ${reply.message}`));
      };
      this.child.once('exit', onExit);
      this.child.on('message', onMessage);
      this.child.send({ type: 'run', spec } satisfies WorkerMessage);
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.send({ type: 'exit' } satisfies WorkerMessage);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }
}

/** A run counts only when every request was answered correctly. */
export function runFailure(r: LoadResult): string | undefined {
  if (r.completed === 0) return 'no request completed';
  if (r.failures > 0 || r.errors > 0 || r.timeouts > 0 || r.non2xx > 0) {
    return `${r.failures} bad replies, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts; e.g. ${r.failureSamples.join(' | ')}`;
  }
  return undefined;
}
