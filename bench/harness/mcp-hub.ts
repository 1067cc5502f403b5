// npm `mcp-hub` (ravitemer), the aggregator peer of the merged scenario, from its own CLI as its
// README shows (`mcp-hub --port N --config servers.json`), fronting stdio servers; its MCP
// endpoint is `/mcp` with the HTTP+SSE transport of 2024-11-05. It listens on all interfaces
// (its own choice: it has no host option); the benchmark only ever talks to 127.0.0.1.
// It runs with a scratch HOME and XDG directories, and a marketplace cache seeded as freshly
// fetched, because at start it otherwise fetches its marketplace registry from the internet:
// the benchmark stays offline. A missing package is a reason the scenario reports.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, SERVER_CPU, spawnPinned, stderrTail, stopProcess, waitFor, type Pinning } from './child-processes.ts';
import { descendantPids } from './proc-stats.ts';

export interface HubServer {
  name: string;
  command: string;
  args: readonly string[];
}

export interface HubProcess {
  pid: number;
  url: string;
  version: string;
  stop(): Promise<void>;
}

const PACKAGE_DIR = fileURLToPath(new URL('../../node_modules/mcp-hub', import.meta.url));

/** The CLI and its version, or why it cannot be used. */
export function findHub(): { bin: string; version: string } | string {
  const manifest = join(PACKAGE_DIR, 'package.json');
  if (!existsSync(manifest)) return 'not installed (npm devDependency "mcp-hub"; run npm ci)';
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string; bin?: Record<string, string> };
  const rel = pkg.bin?.['mcp-hub'];
  if (!rel || !existsSync(join(PACKAGE_DIR, rel))) return 'package "mcp-hub" has no mcp-hub CLI';
  return { bin: join(PACKAGE_DIR, rel), version: pkg.version ?? '?' };
}

interface Health {
  servers?: { status?: string }[];
}

export async function startHub(pinning: Pinning, tmpDir: string, servers: readonly HubServer[]): Promise<HubProcess> {
  const found = findHub();
  if (typeof found === 'string') throw new Error(found);
  const port = await freePort();
  const home = join(tmpDir, `mcp-hub-${port}`);
  const data = join(home, 'data');
  mkdirSync(join(data, 'mcp-hub', 'cache'), { recursive: true });
  // Fresh (now) and non-empty, so that it is used instead of a fetch (mcp-hub's own rule).
  writeFileSync(
    join(data, 'mcp-hub', 'cache', 'registry.json'),
    JSON.stringify({ registry: { version: 'bench-offline', generatedAt: 0, totalServers: 1, servers: [{ id: 'none', name: 'none' }] }, lastFetchedAt: Date.now(), serverDocumentation: {} }),
  );
  const config = join(home, 'servers.json');
  writeFileSync(config, JSON.stringify({ mcpServers: Object.fromEntries(servers.map((s) => [s.name, { command: s.command, args: [...s.args] }])) }));
  const child = spawnPinned(pinning, SERVER_CPU, process.execPath, [found.bin, '--port', String(port), '--config', config], {
    env: { ...process.env, HOME: home, XDG_DATA_HOME: data, XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config') },
    // It logs every event as JSON on stdout: discarded rather than paid for in a pipe.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const tail = stderrTail(child);
  const stop = async (): Promise<void> => {
    const left = child.pid === undefined ? [] : descendantPids(child.pid);
    await stopProcess(child, 10_000);
    for (const p of left) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  try {
    await waitFor('mcp-hub', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as Health;
      return (body.servers ?? []).length === servers.length && (body.servers ?? []).every((s) => s.status === 'connected');
    }, child, 60_000);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${tail().slice(-500)}`);
  }
  return { pid: child.pid!, url: `http://127.0.0.1:${port}/mcp`, version: found.version, stop };
}
