// The upstream servers of the benchmark, each a separate process pinned to SERVER_CPU:
// the MCP reference server (server-everything, legacy era over Streamable HTTP) and a fleet
// of modern-era fixture upstreams in one process (modern-fleet.ts).
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort, SERVER_CPU, spawnPinned, startHttpServer, stderrTail, stopProcess, type Pinning } from './child-processes.ts';
import type { FleetOptions } from './modern-fleet.ts';

export interface ServerProcess {
  pid: number;
  stop(): Promise<void>;
}

export interface EverythingServer extends ServerProcess {
  url: string;
}

export interface ModernFleet extends ServerProcess {
  urls: string[];
}

export const EVERYTHING = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const FLEET = fileURLToPath(new URL('./modern-fleet.ts', import.meta.url));

/** server-everything listens on all interfaces (its own choice); we only ever talk to 127.0.0.1. */
export async function startEverything(pinning: Pinning): Promise<EverythingServer> {
  const port = await freePort();
  // It console.logs every request to stdout: discarded rather than paid for in a pipe.
  const child = await startHttpServer(pinning, 'server-everything', process.execPath, [EVERYTHING, 'streamableHttp'], port, { ...process.env, PORT: String(port) });
  return { pid: child.pid!, url: `http://127.0.0.1:${port}/mcp`, stop: () => stopProcess(child) };
}

export async function startModernFleet(pinning: Pinning, opts: FleetOptions): Promise<ModernFleet> {
  const child = spawnPinned(pinning, SERVER_CPU, process.execPath, ['--import', 'tsx', FLEET, JSON.stringify(opts)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = stderrTail(child);
  const lines = createInterface({ input: child.stdout! });
  const urls = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`modern fleet: no URLs after 30 s\n${tail()}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`modern fleet exited (code ${code})\n${tail()}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { urls: string[] }).urls);
    });
  });
  lines.close();
  child.stdout?.resume();
  return { pid: child.pid!, urls, stop: () => stopProcess(child) };
}
