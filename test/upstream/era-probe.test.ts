// The era probe both transports share, against real servers on 127.0.0.1 and real child
// processes: an upstream is modern only when server/discover returns a discover result that
// lists 2026-07-28; any other success (`{}`, a list of versions Gatehouse does not speak)
// means initialize (MCP 2026-07-28, basic/versioning (backwards compatibility)).
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpUpstreamConfig, StdioUpstreamConfig } from '../../src/config/types.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { HttpUpstream } from '../../src/upstream/http/http-upstream.ts';
import { StdioUpstream } from '../../src/upstream/stdio/stdio-upstream.ts';
import type { Upstream } from '../../src/upstream/upstream.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedServer, type ScriptedServer } from './scripted-server.ts';

const QUIET = createLogger({ level: 'error', sink: { write: () => undefined } });

let server: ScriptedServer | undefined;
let upstream: Upstream | undefined;

afterEach(async () => {
  await upstream?.close();
  await server?.close();
  upstream = server = undefined;
});

function httpConfig(url: string): HttpUpstreamConfig {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-probe-'));
  writeFileSync(join(dir, 'gatehouse.yaml'), `upstreams:\n  - { name: up, url: "${url}" }\n`);
  return loadConfig(join(dir, 'gatehouse.yaml'), {}, { host: '127.0.0.1', port: 0 }).upstreams[0] as HttpUpstreamConfig;
}

/** A process answering server/discover with `discover` and initialize as a 2025-11-25 server. */
function stdioUpstream(discover: unknown): StdioUpstream {
  const script = `
    const rl = require('node:readline').createInterface({ input: process.stdin });
    rl.on('line', (l) => {
      const m = JSON.parse(l);
      if (m.method === 'server/discover') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(discover)} }) + '\\n');
      if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'stdio-legacy', version: '1' } } }) + '\\n');
    });`;
  const config: StdioUpstreamConfig = {
    kind: 'stdio', name: 'local', prefix: 'local', command: process.execPath, args: ['-e', script], env: {}, cwd: process.cwd(), timeoutMs: 10_000, listTtlMs: 0,
    limits: { maxAnswerBytes: 64 * 1024 * 1024, maxJsonDepth: 64 },
    concurrency: { maxConcurrent: 64, maxConcurrentPerPrincipal: 16 },
    restart: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
  };
  return new StdioUpstream(config, QUIET);
}

const NOT_DISCOVERY = [
  ['an empty result', {}],
  ['only versions Gatehouse does not speak', { supportedVersions: ['2099-01-01'], capabilities: {} }],
  ['supportedVersions that is not a list', { supportedVersions: '2026-07-28', capabilities: {} }],
] as const;

describe('the era probe over HTTP', () => {
  it.each(NOT_DISCOVERY)('takes %s from server/discover as legacy and initializes', async (_label, result) => {
    server = await startScriptedServer({ discoverResult: result });
    upstream = new HttpUpstream(httpConfig(server.url), QUIET);
    await upstream.start();
    expect(upstream.status()).toMatchObject({ state: 'up', era: 'legacy' });
    expect(server.received.map((r) => r.method).slice(0, 3)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(upstream.identity()?.serverInfo).toEqual({ name: 'scripted', version: '1' });
  });

  it('takes a discover result listing 2026-07-28 as modern, without initialize', async () => {
    server = await startScriptedServer({ discoverResult: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', ttlMs: 0, cacheScope: 'public' } });
    upstream = new HttpUpstream(httpConfig(server.url), QUIET);
    await upstream.start();
    expect(upstream.status()).toMatchObject({ state: 'up', era: 'modern' });
    expect(server.count('initialize')).toBe(0);
  });
});

describe('the era probe over stdio', () => {
  it.each(NOT_DISCOVERY)('takes %s from server/discover as legacy and initializes', async (_label, result) => {
    upstream = stdioUpstream(result);
    await upstream.start();
    expect(upstream.status()).toMatchObject({ state: 'up', era: 'legacy' });
    expect(upstream.identity()?.serverInfo).toEqual({ name: 'stdio-legacy', version: '1' });
  });

  it('takes a discover result listing 2026-07-28 as modern', async () => {
    upstream = stdioUpstream({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } });
    await upstream.start();
    expect(upstream.status()).toMatchObject({ state: 'up', era: 'modern' });
  });
});
