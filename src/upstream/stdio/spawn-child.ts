// Starts the process of a stdio upstream, and reports, once, why it is gone. A failed start
// is a value or a report, never an exception: spawn() throws for some failures (an argument
// it refuses, ENOMEM and the like), and for others hands back a child without pipes and
// emits the error a tick later (EMFILE and ENFILE: no file descriptors left for the pipes;
// ENOENT, EACCES: nothing to run). Node docs, child_process: events 'spawn', 'error', 'exit'.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { StdioUpstreamConfig } from '../../config/types.ts';
import { err, ok, type Result } from '../../protocol/result.ts';

/** Environment a child inherits from the gateway; configured `env` adds to it. The gateway's
 * own secrets stay out of children unless a config names them. */
const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'NODE_PATH', 'SYSTEMROOT'];

/**
 * `onGone` hears, once, that the child is gone: it could not start after all, it exited, or
 * it failed later (a failed kill). A child returned without pipes is one whose start failed:
 * `onGone` follows within a tick, and nothing is to be read from or written to it.
 */
export function spawnChild(
  config: Pick<StdioUpstreamConfig, 'command' | 'args' | 'env' | 'cwd'>,
  onGone: (reason: string) => void,
): Result<{ child: ChildProcess; piped: ChildProcessWithoutNullStreams | undefined }, string> {
  const env: Record<string, string> = {};
  for (const k of INHERITED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k] as string;
  Object.assign(env, config.env);
  const failed = (e: Error): string => `failed to start "${config.command}": ${e.message}`;
  let child: ChildProcess;
  try {
    child = spawn(config.command, [...config.args], { cwd: config.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    return err(failed(e as Error));
  }
  let started = false;
  let gone = false;
  const goneOnce = (reason: string): void => {
    if (gone) return;
    gone = true;
    onGone(reason);
  };
  child.once('spawn', () => {
    started = true;
  });
  child.on('error', (e) => goneOnce(started ? `process failed: ${e.message}` : failed(e)));
  child.on('exit', (code, signal) => goneOnce(`process exited (${signal ?? `code ${code}`})`));
  // A write to a process that has gone fails with EPIPE; its exit says what happened.
  child.stdin?.on('error', () => undefined);
  const piped = child.stdin && child.stdout && child.stderr ? (child as ChildProcessWithoutNullStreams) : undefined;
  return ok({ child, piped });
}
