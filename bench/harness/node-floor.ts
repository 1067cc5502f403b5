// Starts node-floor-server.ts pinned to SERVER_CPU in front of a legacy upstream, on a
// session of its own. Its clients need no session: it forwards every POST on its one.
import { fileURLToPath } from 'node:url';
import { freePort, startHttpServer, stopProcess, type Pinning } from './child-processes.ts';
import { openLegacySession } from './legacy-session.ts';

const SERVER = fileURLToPath(new URL('./node-floor-server.ts', import.meta.url));

export interface NodeFloorProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

export async function startNodeFloor(pinning: Pinning, upstreamUrl: string): Promise<NodeFloorProcess> {
  const port = await freePort();
  const session = await openLegacySession(upstreamUrl, 'gatehouse-bench-node-floor');
  const child = await startHttpServer(pinning, 'node floor', process.execPath, ['--import', 'tsx', SERVER, String(port), upstreamUrl, session], port);
  return { pid: child.pid!, url: `http://127.0.0.1:${port}/mcp`, stop: () => stopProcess(child) };
}
