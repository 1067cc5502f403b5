// Lines the gateway writes to a stdio upstream, against real child processes: a call whose
// line can no longer reach the process fails at once instead of waiting out its timeout, and
// closing the upstream sends the lines of that turn (notifications/cancelled) before EOF.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StdioUpstreamConfig } from '../../src/config/types.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { StdioUpstream } from '../../src/upstream/stdio/stdio-upstream.ts';
import type { UpstreamRequest } from '../../src/upstream/upstream.ts';

const DISCOVERED = '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}';

let upstream: StdioUpstream | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

function start(command: string, args: string[], env: Record<string, string> = {}): StdioUpstream {
  const config: StdioUpstreamConfig = {
    kind: 'stdio', name: 'local', prefix: 'local', command, args, env, cwd: process.cwd(), timeoutMs: 10_000, listTtlMs: 0, limits: { maxAnswerBytes: 64 * 1024 * 1024, maxJsonDepth: 64 }, concurrency: { maxConcurrent: 64, maxConcurrentPerPrincipal: 16 },
    restart: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
  };
  return new StdioUpstream(config, createLogger({ level: 'error', sink: { write: () => undefined } }));
}

function call(signal?: AbortSignal): UpstreamRequest {
  return { method: 'tools/call', params: { name: 'echo', arguments: {} }, clientCapabilities: {}, ...(signal ? { signal } : {}) };
}

describe('a stdio upstream that closed its stdin but keeps running', () => {
  it('fails a call at once with the upstream unavailable, not at its timeout', async () => {
    // Answers the probe only after closing its stdin, so every later line meets a closed pipe.
    upstream = start('sh', ['-c', `read -r line; exec 0<&-; echo '${DISCOVERED}'; exec sleep 30`]);
    await upstream.start();
    expect(upstream.status()).toMatchObject({ state: 'up', era: 'modern' });
    // Waiting out the timeout would have ended as upstream_timeout.
    const res = await upstream.request(call());
    expect(res).toMatchObject({ ok: false, error: { kind: 'upstream_unavailable', upstream: 'local' } });
  });
});

describe('closing a stdio upstream', () => {
  it('sends the lines of that turn before closing stdin', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'gatehouse-stdio-')), 'stdin.log');
    // Records every line until EOF; SIGTERM waits for that, so the record is complete.
    const script = `
      const lines = [];
      process.on('SIGTERM', () => undefined);
      const rl = require('node:readline').createInterface({ input: process.stdin });
      rl.on('line', (l) => {
        lines.push(l);
        if (JSON.parse(l).method === 'server/discover') process.stdout.write('${DISCOVERED}\\n');
      });
      rl.on('close', () => {
        require('node:fs').writeFileSync(process.env.OUT, lines.join('\\n'));
        process.exit(0);
      });`;
    upstream = start(process.execPath, ['-e', script], { OUT: out });
    await upstream.start();
    const abort = new AbortController();
    const pending = upstream.request(call(abort.signal));
    // Let the call's line go out, then cut it short and shut down in one turn.
    await new Promise((r) => setImmediate(r));
    abort.abort();
    await upstream.close();
    expect(await pending).toMatchObject({ ok: false, error: { kind: 'upstream_unavailable' } });
    const received = readFileSync(out, 'utf8').split('\n').map((l) => JSON.parse(l) as { id?: number; method?: string; params?: unknown });
    expect(received.map((m) => m.method)).toEqual(['server/discover', 'tools/call', 'notifications/cancelled']);
    expect(received[2]!.params).toEqual({ requestId: received[1]!.id, reason: 'client disconnected' });
  });
});

describe('what a client hears of a stdio upstream that fails', () => {
  it('"not running" for a command that cannot start, with the command only in lastError', async () => {
    upstream = start('/nonexistent/gatehouse-secret-path/mcp-server', []);
    await upstream.start();
    expect(upstream.status().lastError).toContain('/nonexistent/gatehouse-secret-path/mcp-server');
    const res = await upstream.request(call());
    expect(res).toEqual({ ok: false, error: { kind: 'upstream_unavailable', upstream: 'local', reason: 'not running' } });
  });

  it('"the process ended" for a call whose process exits under it, without its exit details', async () => {
    // Answers the probe, then dies with a telling exit code when the call arrives.
    upstream = start('sh', ['-c', `read -r line; echo '${DISCOVERED}'; read -r line; exit 42`]);
    await upstream.start();
    const res = await upstream.request(call());
    expect(res).toEqual({ ok: false, error: { kind: 'upstream_unavailable', upstream: 'local', reason: 'the process ended' } });
    expect(upstream.status().lastError).toBe('process exited (code 42)');
  });
});
