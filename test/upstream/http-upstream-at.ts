// An HttpUpstream as the gateway builds one, for the upstream-side tests against a scripted
// server: no header files or auth, no list cache, and a logger that keeps nothing. What a
// test made is closed after it: its upstreams first (they may still talk), then its servers.
import { afterEach } from 'vitest';
import type { HttpUpstreamConfig } from '../../src/config/types.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { MAX_EVENT_LENGTH } from '../../src/upstream/http/sse-reader.ts';
import { HttpUpstream } from '../../src/upstream/http/http-upstream.ts';
import { closeStartedServers } from './scripted-server.ts';

const made: HttpUpstream[] = [];

export function httpUpstreamAt(url: string, name: string, timeoutMs: number, maxAnswerBytes = MAX_EVENT_LENGTH): HttpUpstream {
  const config: HttpUpstreamConfig = { kind: 'http', name, prefix: name, url, headers: {}, headerFiles: [], auth: undefined, timeoutMs, listTtlMs: 0, limits: { maxAnswerBytes, maxJsonDepth: 64 }, concurrency: { maxConcurrent: 64, maxConcurrentPerPrincipal: 16 }, session: { mode: 'shared', maxClientSessions: 100 } };
  const upstream = new HttpUpstream(config, createLogger({ level: 'error', sink: { write: () => undefined } }));
  made.push(upstream);
  return upstream;
}

/** Registers the closing after each test of the suite. */
export function closeAfterEachTest(): void {
  afterEach(async () => {
    await Promise.all(made.splice(0).map((u) => u.close()));
    await closeStartedServers();
  });
}
