// Runs one invocation of the official conformance suite's CLI as a child process, on Node 20
// through node20-shim.mjs (fs.globSync, loopback-only listen). Both installed versions are
// npm aliases of @modelcontextprotocol/conformance. A run that outlives `timeoutMs` is
// killed (its whole process group) and reads as whatever results it had written.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readChecks, type Checks } from './suite-results.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const SHIM = join(ROOT, 'test/conformance/node20-shim.mjs');

export const SUITES = {
  '0.1.16': join(ROOT, 'node_modules/conformance-0116/dist/index.js'),
  '0.2.0-alpha.12': join(ROOT, 'node_modules/conformance-0200/dist/index.js'),
} as const;
export type SuiteVersion = keyof typeof SUITES;

export interface SuiteRun {
  checks: Checks;
  /** The suite's own closing lines, for the log when something looks wrong. */
  tail: string;
  timedOut: boolean;
}

export async function runSuite(version: SuiteVersion, args: readonly string[], timeoutMs: number, env: NodeJS.ProcessEnv = {}): Promise<SuiteRun> {
  const out = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-'));
  const child = spawn(process.execPath, ['--import', SHIM, SUITES[version], ...args, '-o', out], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  const keep = (c: Buffer) => {
    text = (text + c.toString('utf8')).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }, timeoutMs);
  await new Promise<void>((r) => child.once('close', () => r()));
  clearTimeout(timer);
  return { checks: readChecks(out), tail: text.split('\n').slice(-40).join('\n'), timedOut };
}
