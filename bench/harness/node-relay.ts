// Starts node-relay-server.ts pinned to SERVER_CPU in front of an upstream on 127.0.0.1.
// Clients talk to it as to the upstream itself (their own session, the upstream's tool names).
import { fileURLToPath } from 'node:url';
import { freePort, startHttpServer, stopProcess, type Pinning } from './child-processes.ts';

const SERVER = fileURLToPath(new URL('./node-relay-server.ts', import.meta.url));

export interface NodeRelayProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

export async function startNodeRelay(pinning: Pinning, upstreamUrl: string): Promise<NodeRelayProcess> {
  const port = await freePort();
  const upstream = new URL(upstreamUrl);
  const child = await startHttpServer(pinning, 'node relay', process.execPath, ['--import', 'tsx', SERVER, String(port), upstream.port], port);
  return { pid: child.pid!, url: `http://127.0.0.1:${port}${upstream.pathname}`, stop: () => stopProcess(child) };
}
