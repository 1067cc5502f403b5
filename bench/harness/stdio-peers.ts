// The peers of scenario 3, run from their own CLIs the way their READMEs show: npm's
// `mcp-proxy` (punkpeye; `mcp-proxy --port N -- node server.js stdio`, Streamable HTTP at /mcp)
// and `supergateway` (`--stdio "cmd" --outputTransport streamableHttp [--stateful]`, /mcp).
// Each fronts server-everything's stdio transport. The peer is one process pinned to
// SERVER_CPU; the stdio servers it spawns inherit that pinning. Both are devDependencies: a
// missing package is a reason the scenario reports, not a crash.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, SERVER_CPU, spawnPinned, stderrTail, stopProcess, waitForHttp, type Pinning } from './child-processes.ts';
import { commandLine, descendantPids } from './proc-stats.ts';
import { EVERYTHING } from './upstream-processes.ts';

export type PeerName = 'mcp-proxy' | 'supergateway';

export interface PeerPackage {
  name: PeerName;
  version: string;
  /** The package's CLI entry point (its `bin`). */
  bin: string;
}

export interface PeerProcess {
  pid: number;
  url: string;
  /** The server-everything process the peer runs (supergateway: one per session), if any yet. */
  upstreamPid(): number | undefined;
  stop(): Promise<void>;
}

const NODE_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));

/** The installed package, or why it cannot be used. */
export function findPeer(name: PeerName): PeerPackage | string {
  const dir = join(NODE_MODULES, name);
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return `not installed (npm devDependency "${name}"; run npm ci)`;
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string; bin?: string | Record<string, string> };
  const rel = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.[name];
  if (!rel || !existsSync(join(dir, rel))) return `package "${name}" has no "${name}" CLI`;
  return { name, version: pkg.version ?? '?', bin: join(dir, rel) };
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function cliArgs(peer: PeerPackage, port: number, stateful: boolean): string[] {
  if (peer.name === 'mcp-proxy') {
    // Defaults otherwise (both eras on /mcp, event store on); not --debug, so it logs nothing per call.
    return ['--port', String(port), '--host', '127.0.0.1', '--', process.execPath, EVERYTHING, 'stdio'];
  }
  // supergateway takes the server as one shell command line; it listens on all interfaces.
  return [
    '--stdio', `${shellQuote(process.execPath)} ${shellQuote(EVERYTHING)} stdio`,
    '--outputTransport', 'streamableHttp',
    ...(stateful ? ['--stateful'] : []),
    '--port', String(port),
    '--logLevel', 'none',
  ];
}

/** SIGTERM the peer (it stops its children), then SIGKILL whatever it left behind. */
async function stopTree(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  const left = pid === undefined ? [] : descendantPids(pid);
  await stopProcess(child, 10_000);
  for (const p of left) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** `stateful` is supergateway's flag for legacy sessions (without it: a server per POST). */
export async function startPeer(pinning: Pinning, peer: PeerPackage, opts: { stateful?: boolean } = {}): Promise<PeerProcess> {
  const port = await freePort();
  // stdin ignored: supergateway stops when a stdin pipe closes (its README), /dev/null keeps it up.
  const child = spawnPinned(pinning, SERVER_CPU, process.execPath, [peer.bin, ...cliArgs(peer, port, opts.stateful ?? false)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const tail = stderrTail(child);
  try {
    await waitForHttp(peer.name, port, child);
  } catch (e) {
    await stopTree(child);
    throw new Error(`${(e as Error).message}\n${tail().slice(-500)}`);
  }
  const pid = child.pid!;
  return {
    pid,
    url: `http://127.0.0.1:${port}/mcp`,
    upstreamPid: () => descendantPids(pid).find((p) => commandLine(p).includes('server-everything') && !commandLine(p).startsWith('/bin/sh')),
    stop: () => stopTree(child),
  };
}
