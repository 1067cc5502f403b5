// The least a Node.js server can spend on a refusal, as a yardstick for shedding load: node:http
// in its own process, every request answered with the same 503, Retry-After and JSON-RPC body,
// nothing parsed, checked or counted. Used by the overload scenario (the latency of a refusal
// on the core the upstream keeps busy) and bench/probes/refusal-cost.ts (CPU per refusal).
import { freePort, spawnPinned, stopProcess, waitForHttp, type Pinning } from './child-processes.ts';

/** A legacy-era capacity refusal of about the length Gatehouse sends (JSON-RPC -31030). */
export const REFUSAL_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  error: { code: -31030, message: 'The gateway is answering as many requests as it may (limits.maxConcurrentRequests, 8); try again later', data: { limit: 'maxConcurrentRequests', retryAfterMs: 1000 } },
});

export interface BareRefusalServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the server on `cpu` (unpinned when `pinning` has no taskset), answering `body`. */
export async function startBareRefusal(pinning: Pinning, cpu: number, body: string = REFUSAL_BODY): Promise<BareRefusalServer> {
  const port = await freePort();
  const source =
    `const b=${JSON.stringify(body)};` +
    `require('node:http').createServer((q,s)=>{s.writeHead(503,{'content-type':'application/json','retry-after':'1','content-length':Buffer.byteLength(b)});s.end(b)})` +
    `.listen(${port},'127.0.0.1')`;
  const child = spawnPinned(pinning, cpu, process.execPath, ['-e', source], { stdio: 'ignore' });
  await waitForHttp('bare refusal server', port, child);
  return { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid!, stop: () => stopProcess(child) };
}
