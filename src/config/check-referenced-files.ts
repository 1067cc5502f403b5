// What `gatehouse config check` looks at on disk beyond what loading reads: a stdio
// upstream's working directory and command (the gateway finds out only when it spawns the
// child, and then retries with backoff), and the audit directory (created at start, so it
// must exist and be writable, or be creatable). Files that loading itself reads (API key
// lists, JWKS, header and secret files) are already checked there. Read-only: nothing is
// created, spawned or written. Paths are into the normalized config; the caller maps them.

import { accessSync, constants, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { toPointer } from './config-error.ts';
import type { GatewayConfig, StdioUpstreamConfig } from './types.ts';

export interface FileIssue {
  path: string;
  message: string;
}

export function checkReferencedFiles(config: GatewayConfig, env: NodeJS.ProcessEnv): FileIssue[] {
  const issues: FileIssue[] = [];
  config.upstreams.forEach((u, i) => {
    if (u.kind === 'stdio') checkStdioFiles(u, i, env, issues);
  });
  // Undefined only when the audit section itself had a problem (already reported).
  if (config.audit?.enabled === true) {
    const problem = writableDirectoryProblem(config.audit.dir);
    if (problem !== undefined) issues.push({ path: '/audit/dir', message: `${config.audit.dir}: ${problem}` });
  }
  return issues;
}

function checkStdioFiles(u: StdioUpstreamConfig, i: number, env: NodeJS.ProcessEnv, issues: FileIssue[]): void {
  const cwd = statOf(u.cwd);
  if (cwd === undefined || !cwd.isDirectory()) {
    issues.push({ path: toPointer(['upstreams', i, 'cwd']), message: `upstream "${u.name}": working directory ${u.cwd}: ${cwd === undefined ? 'no such directory' : 'not a directory'}` });
    return;
  }
  const problem = commandProblem(u, env);
  if (problem !== undefined) issues.push({ path: toPointer(['upstreams', i, 'command']), message: `upstream "${u.name}": ${problem}` });
}

/** As spawn finds it: a name with a slash is a path from `cwd`; a bare name is looked up on
 * the child's PATH (its own `env.PATH`, else the gateway's, which it inherits). */
function commandProblem(u: StdioUpstreamConfig, env: NodeJS.ProcessEnv): string | undefined {
  if (u.command.includes('/')) {
    const file = path.resolve(u.cwd, u.command);
    const st = statOf(file);
    if (st === undefined) return `command ${file}: no such file`;
    if (!st.isFile()) return `command ${file}: not a file`;
    return executable(file) ? undefined : `command ${file}: not executable`;
  }
  const searchPath = u.env['PATH'] ?? env['PATH'] ?? '';
  for (const dir of searchPath.split(path.delimiter).filter((d) => d !== '')) {
    const file = path.resolve(u.cwd, dir, u.command);
    if (statOf(file)?.isFile() === true && executable(file)) return undefined;
  }
  return `command "${u.command}" not found on PATH`;
}

/** Undefined when `dir` is a writable directory, or could be created in its nearest existing ancestor. */
function writableDirectoryProblem(dir: string): string | undefined {
  const st = statOf(dir);
  if (st !== undefined) {
    if (!st.isDirectory()) return 'not a directory';
    return writable(dir) ? undefined : 'not writable';
  }
  let ancestor = path.dirname(dir);
  while (statOf(ancestor) === undefined && path.dirname(ancestor) !== ancestor) ancestor = path.dirname(ancestor);
  const parent = statOf(ancestor);
  if (parent === undefined || !parent.isDirectory()) return `cannot be created: ${ancestor} is not a directory`;
  return writable(ancestor) ? undefined : `cannot be created: ${ancestor} is not writable`;
}

function statOf(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
