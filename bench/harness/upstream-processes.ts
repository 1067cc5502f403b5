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
const CATALOG_FLEET = fileURLToPath(new URL('./catalog-fleet-process.ts', import.meta.url));
const BIG_RESULTS = fileURLToPath(new URL('./big-result-server.ts', import.meta.url));

/** server-everything listens on all interfaces (its own choice); we only ever talk to 127.0.0.1. */
export async function startEverything(pinning: Pinning): Promise<EverythingServer> {
  const port = await freePort();
  // It console.logs every request to stdout: discarded rather than paid for in a pipe.
  const child = await startHttpServer(pinning, 'server-everything', process.execPath, [EVERYTHING, 'streamableHttp'], port, { ...process.env, PORT: String(port) });
  return { pid: child.pid!, url: `http://127.0.0.1:${port}/mcp`, stop: () => stopProcess(child) };
}

export async function startModernFleet(pinning: Pinning, opts: FleetOptions): Promise<ModernFleet> {
  const { child, line } = await spawnFleet(pinning, [FLEET, JSON.stringify(opts)], 'modern fleet');
  return { pid: child.pid!, urls: (JSON.parse(line) as { urls: string[] }).urls, stop: () => stopProcess(child) };
}

export interface CatalogFleetProcess extends ServerProcess {
  /** Endpoint per service name. */
  urls: Record<string, string>;
}

/** The generated catalog (40 services x 50 tools per copy) in one process (catalog-fleet-process.ts). */
export async function startCatalogFleetProcess(pinning: Pinning, copies: number): Promise<CatalogFleetProcess> {
  const { child, line } = await spawnFleet(pinning, [CATALOG_FLEET, String(copies)], 'catalog fleet');
  return { pid: child.pid!, urls: (JSON.parse(line) as { urls: Record<string, string> }).urls, stop: () => stopProcess(child) };
}

/** The big-result upstream (big-result-server.ts). */
export async function startBigResultServer(pinning: Pinning): Promise<EverythingServer> {
  const { child, line } = await spawnFleet(pinning, [BIG_RESULTS], 'big-result server');
  return { pid: child.pid!, url: (JSON.parse(line) as { url: string }).url, stop: () => stopProcess(child) };
}

/** A tsx child that prints one JSON line of URLs when it is ready. */
async function spawnFleet(pinning: Pinning, args: readonly string[], what: string): Promise<{ child: ReturnType<typeof spawnPinned>; line: string }> {
  const child = spawnPinned(pinning, SERVER_CPU, process.execPath, ['--import', 'tsx', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = stderrTail(child);
  const lines = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no URLs after 30 s\n${tail()}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${what} exited (code ${code})\n${tail()}`)));
    lines.once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  lines.close();
  child.stdout?.resume();
  return { child, line };
}
