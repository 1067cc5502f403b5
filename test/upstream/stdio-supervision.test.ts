// The stdio supervisor against real child processes: a start that fails in any way is a
// failed start (down, named in status(), retried after the backoff), never an exception; the
// backoff holds against client requests; and it resets only after a child stayed up.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StdioUpstreamConfig } from '../../src/config/types.ts';
import { createMemoryLogger, type LogFields } from '../../src/telemetry/logger.ts';
import { StdioUpstream } from '../../src/upstream/stdio/stdio-upstream.ts';
import type { UpstreamRequest } from '../../src/upstream/upstream.ts';
import { REPO_ROOT } from '../harness/gateway.ts';

const SERVER = join(REPO_ROOT, 'test/fixtures/scripted-stdio-server.mjs');

let upstream: StdioUpstream | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

interface Started {
  upstream: StdioUpstream;
  logs: LogFields[];
  spawns: () => number;
}

function supervise(opts: { command?: string; args?: string[]; env?: Record<string, string>; initialDelayMs: number; maxDelayMs: number; now?: () => number }): Started {
  const spawnLog = join(mkdtempSync(join(tmpdir(), 'gatehouse-spawns-')), 'spawns.log');
  const config: StdioUpstreamConfig = {
    kind: 'stdio', name: 'local', prefix: 'local', command: opts.command ?? process.execPath, args: opts.args ?? [SERVER],
    env: { SPAWN_LOG: spawnLog, ...opts.env }, cwd: process.cwd(), timeoutMs: 10_000, listTtlMs: 0,
    limits: { maxAnswerBytes: 1024 * 1024, maxJsonDepth: 64 }, concurrency: { maxConcurrent: 64, maxConcurrentPerPrincipal: 16 },
    restart: { initialDelayMs: opts.initialDelayMs, maxDelayMs: opts.maxDelayMs },
  };
  const { logger, lines } = createMemoryLogger();
  upstream = new StdioUpstream(config, logger, opts.now);
  const spawns = (): number => {
    try {
      return readFileSync(spawnLog, 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  return { upstream, logs: lines, spawns };
}

const call = (name: string): UpstreamRequest => ({ method: 'tools/call', params: { name, arguments: {} }, clientCapabilities: {} });
const restartDelays = (logs: LogFields[]) => logs.filter((l) => l.msg === 'restarting upstream').map((l) => l.inMs);

describe('a stdio start that fails', () => {
  it('is a failed start when spawn itself throws: down, named in status, retried, and start() resolves', async () => {
    // spawn() refuses an argument holding a NUL byte by throwing, before any process exists.
    const s = supervise({ args: ['bad\u0000arg'], initialDelayMs: 60_000, maxDelayMs: 60_000 });
    await expect(s.upstream.start()).resolves.toBeUndefined();
    expect(s.upstream.status()).toMatchObject({ state: 'down', lastError: expect.stringMatching(/^failed to start ".*": .*null bytes/) });
    expect(restartDelays(s.logs)).toEqual([60_000]);
    expect(await s.upstream.request(call('echo'))).toEqual({ ok: false, error: { kind: 'upstream_unavailable', upstream: 'local', reason: 'not running' } });
  });

  it('is a failed start when the command does not exist, and is retried after the backoff', async () => {
    // spawn reports ENOENT a tick later, from a child without a process.
    const s = supervise({ command: '/nonexistent/gatehouse-mcp-server', args: [], initialDelayMs: 20, maxDelayMs: 1000 });
    await s.upstream.start();
    expect(s.upstream.status()).toMatchObject({ state: 'down', lastError: expect.stringContaining('ENOENT') });
    await expect.poll(() => restartDelays(s.logs).length).toBeGreaterThanOrEqual(3);
    expect(restartDelays(s.logs).slice(0, 3)).toEqual([20, 40, 80]);
  });
});

describe('the restart backoff', () => {
  it('holds against requests: calls during it fail at once and spawn nothing', async () => {
    const s = supervise({ env: { EXIT_AT: 'start' }, initialDelayMs: 60_000, maxDelayMs: 60_000 });
    await s.upstream.start();
    await expect.poll(() => s.upstream.status().state).toBe('down');
    expect(s.spawns()).toBe(1);
    for (let i = 0; i < 10; i++) {
      expect(await s.upstream.request(call('echo'))).toEqual({ ok: false, error: { kind: 'upstream_unavailable', upstream: 'local', reason: 'not running' } });
    }
    expect(s.spawns()).toBe(1);
  });

  /** Kills the child through a call, and waits for its successor's handshake. */
  const dieAndComeBack = async (s: Started): Promise<void> => {
    const ups = s.logs.filter((l) => l.msg === 'upstream up').length;
    expect(await s.upstream.request(call('die'))).toMatchObject({ ok: false, error: { reason: 'the process ended' } });
    await expect.poll(() => s.logs.filter((l) => l.msg === 'upstream up').length).toBe(ups + 1);
  };

  it('keeps growing for a child that passes each handshake and dies soon after (injected clock)', async () => {
    const s = supervise({ initialDelayMs: 20, maxDelayMs: 160, now: () => 0 });
    await s.upstream.start();
    for (let i = 0; i < 5; i++) await dieAndComeBack(s);
    // Every one of those children came up; the delay grew all the same.
    expect(restartDelays(s.logs)).toEqual([20, 40, 80, 160, 160]);
  });

  it('starts again from the initial delay once a child stayed up for maxDelay (injected clock)', async () => {
    let t = 0;
    const s = supervise({ initialDelayMs: 20, maxDelayMs: 1000, now: () => t });
    await s.upstream.start();
    expect(s.upstream.status().state).toBe('up');
    await dieAndComeBack(s);
    await dieAndComeBack(s);
    t += 1000;
    await dieAndComeBack(s);
    expect(restartDelays(s.logs)).toEqual([20, 40, 20]);
    expect(s.spawns()).toBe(4);
  });
});
