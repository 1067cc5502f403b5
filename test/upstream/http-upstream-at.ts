// An HttpUpstream as the gateway builds one, for the upstream-side tests against a scripted
// server: no header files or auth, no list cache, and a logger that keeps nothing.
import type { HttpUpstreamConfig } from '../../src/config/types.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { HttpUpstream } from '../../src/upstream/http/http-upstream.ts';

export function httpUpstreamAt(url: string, name: string, timeoutMs: number): HttpUpstream {
  const config: HttpUpstreamConfig = { kind: 'http', name, prefix: name, url, headers: {}, headerFiles: [], auth: undefined, timeoutMs, listTtlMs: 0 };
  return new HttpUpstream(config, createLogger({ level: 'error', sink: { write: () => undefined } }));
}
