// Upstream lifecycle end to end: era detection per upstream (MCP 2026-07-28, server/discover on stdio, MCP 2026-07-28, basic/versioning (backwards compatibility) over
// HTTP), legacy sessions re-created behind the client's back (README, Protocol eras: bridging), and the stdio
// supervisor: stderr to logs, restart with backoff, progress tokens mapped back, explicit
// notifications/cancelled (MCP 2026-07-28, basic/patterns/cancellation), and no child left behind.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { EVERYTHING_SERVER, modernBody, modernHeaders, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import type { StdioUpstream } from '../../src/upstream/stdio/stdio-upstream.ts';
import { alive } from '../harness/process-alive.ts';

// Long enough that a call arriving during the backoff finishes its own start first.
const EV_RESTART_MS = 600;
const LONG_OP = 'trigger-long-running-operation';
const MISSING_COMMAND = 'gatehouse-no-such-command-4711';
// server-everything in the same process, with every line the gateway writes to its stdin
// copied to stderr ("stdin< ..."): the gateway logs a child's stderr, so the test can see
// exactly what went down the pipe (probe order, notifications/cancelled).
// Wrapping emit (not adding a 'data' listener) keeps stdin paused until the SDK reads it.
const TEE_SCRIPT = `const emit = process.stdin.emit.bind(process.stdin);
process.stdin.emit = (event, ...args) => {
  if (event === 'data') for (const l of String(args[0]).split('\\n')) if (l) process.stderr.write('stdin< ' + l + '\\n');
  return emit(event, ...args);
};
await import(${JSON.stringify(EVERYTHING_SERVER)});`;

/** Pids of this process's children whose command line is exactly `args` ('' = any). */
function childrenRunning(args: string): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  const rows = out.split('\n').flatMap((l) => {
    const m = /^\s*(\d+)\s+(.*)$/.exec(l);
    return m ? [{ pid: Number(m[1]), args: m[2]! }] : [];
  });
  return rows.filter((r) => !r.args.startsWith('ps ') && (args === '' || r.args === args)).map((r) => r.pid);
}

let modern: ModernUpstream;
let legacy: LegacyUpstream;
let gw: TestGateway;
let closed = false;
let modernClient: ModernClient;
let legacyClient: LegacyClient;

const upstream = (name: string) => gw.upstreams.find((u) => u.name === name)!;
const stdio = (name: string) => upstream(name) as StdioUpstream;
const methodsOf = (received: { body: unknown }[]) => received.map((r) => (r.body as { method?: string } | undefined)?.method);
const stdinLines = () => gw.logs.filter((l) => l.msg === 'upstream stderr' && l.upstream === 'tee' && String(l.line).startsWith('stdin< ')).map((l) => JSON.parse(String(l.line).slice(7)) as { id?: number; method?: string; params?: Record<string, unknown> });

beforeAll(async () => {
  [modern, legacy] = await Promise.all([startModernUpstream(), startLegacyUpstream()]);
  gw = await startTestGateway(`
upstreams:
  - { name: md, url: "${modern.url}" }
  - { name: lg, url: "${legacy.url}" }
  - name: ev
    command: node
    args: ["${EVERYTHING_SERVER}"]
    restart: { initialDelay: ${EV_RESTART_MS}ms, maxDelay: 2s }
  - name: tee
    command: node
    args: ["--input-type=module", "-e", ${JSON.stringify(TEE_SCRIPT)}]
  - name: nope
    command: ${MISSING_COMMAND}
    restart: { initialDelay: 50ms, maxDelay: 400ms }
`);
  // md, lg, ev and tee up (nope never is).
  await vi.waitUntil(() => ['md', 'lg', 'ev', 'tee'].every((n) => upstream(n).status().state === 'up'), { timeout: 15_000, interval: 20 });
  [modernClient, legacyClient] = await Promise.all([connectModernClient(gw.url), connectLegacyClient(gw.url)]);
});

afterAll(async () => {
  await Promise.all([modernClient?.close(), legacyClient?.close()]);
  if (!closed) await gw?.close();
  await Promise.all([modern?.close(), legacy?.close()]);
});

describe('era detection', () => {
  it('detects the modern HTTP upstream with server/discover alone', () => {
    expect(upstream('md').status()).toMatchObject({ transport: 'http', state: 'up', era: 'modern' });
    const methods = methodsOf(modern.received);
    expect(methods[0]).toBe('server/discover');
    expect(methods).not.toContain('initialize');
    expect(upstream('md').identity()?.serverInfo).toEqual({ name: 'modern-upstream', version: '2.0.0' });
  });

  it('falls back to initialize for the legacy HTTP upstream after a discover attempt (MCP 2026-07-28, basic/versioning (backwards compatibility))', () => {
    expect(upstream('lg').status()).toMatchObject({ transport: 'http', state: 'up', era: 'legacy' });
    expect(methodsOf(legacy.received).slice(0, 3)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(legacy.received[1]!.headers['mcp-protocol-version']).toBeUndefined();
    expect(upstream('lg').identity()?.serverInfo).toMatchObject({ name: 'legacy-upstream' });
  });

  it('detects server-everything over stdio as legacy: discover probe, then initialize (MCP 2026-07-28, server/discover)', () => {
    expect(upstream('ev').status()).toMatchObject({ transport: 'stdio', state: 'up', era: 'legacy' });
    expect(upstream('ev').identity()?.serverInfo).toMatchObject({ name: 'mcp-servers/everything' });
    expect(upstream('tee').status()).toMatchObject({ era: 'legacy' });
    expect(stdinLines().slice(0, 3).map((m) => m.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
  });
});

describe('legacy session loss', () => {
  it('re-initializes transparently when the upstream forgets the session (g.3 step 1)', async () => {
    const initsBefore = methodsOf(legacy.received).filter((m) => m === 'initialize').length;
    const oldSessions = legacy.sessionIds();
    expect(oldSessions).toHaveLength(1);
    const mark = legacy.received.length;
    await legacy.dropSessions();
    const viaLegacy = await legacyClient.callTool({ name: 'lg__echo', arguments: { message: 'still here' } });
    expect(viaLegacy.structuredContent).toEqual({ message: 'still here' });
    const viaModern = await modernClient.callTool({ name: 'lg__add', arguments: { a: 20, b: 22 } });
    expect(viaModern.content).toEqual([{ type: 'text', text: '42' }]);
    expect(methodsOf(legacy.received).filter((m) => m === 'initialize')).toHaveLength(initsBefore + 1);
    // On the wire: one request with the forgotten session (404), a fresh handshake, then
    // everything, the notification GET stream included, on the new session.
    expect(legacy.sessionIds()).toHaveLength(1);
    const newSession = legacy.sessionIds()[0];
    expect(newSession).not.toBe(oldSessions[0]);
    const after = legacy.received.slice(mark).map((r) => ({ http: r.method, method: (r.body as { method?: string } | undefined)?.method, session: r.headers['mcp-session-id'] }));
    expect(after[0]).toMatchObject({ http: 'POST', session: oldSessions[0] });
    expect(after.slice(1, 3)).toEqual([
      { http: 'POST', method: 'server/discover', session: undefined },
      { http: 'POST', method: 'initialize', session: undefined },
    ]);
    expect(after.slice(3).filter((r) => r.http === 'POST' && r.session !== newSession)).toEqual([]);
    expect(after).toContainEqual({ http: 'GET', method: undefined, session: newSession });
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream session expired, re-initializing', upstream: 'lg' }));
    expect(upstream('lg').status().state).toBe('up');
  });
});

describe('stdio progress and cancellation', () => {
  it('relays progress with each client\'s own progressToken, then the result (raw modern POST -> SSE)', async () => {
    // Two calls with the same token at once: the gateway rewrites tokens on the shared pipe
    // and must map each notification back to its own caller.
    const callLongOp = async (id: number, steps: number) => {
      const name = `tee__${LONG_OP}`;
      const res = await fetch(gw.url, {
        method: 'POST',
        headers: modernHeaders('tools/call', name),
        body: JSON.stringify(modernBody(id, 'tools/call', { name, arguments: { duration: 0.3, steps }, _meta: { progressToken: 7 } })),
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      return (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    };
    const [three, two] = await Promise.all([callLongOp(11, 3), callLongOp(12, 2)]);
    const progress = (steps: number) => Array.from({ length: steps }, (_, i) => ({
      jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: i + 1, total: steps },
    }));
    expect(three.slice(0, 3)).toEqual(progress(3));
    expect(two.slice(0, 2)).toEqual(progress(2));
    expect(three.slice(3)).toEqual([{ jsonrpc: '2.0', id: 11, result: expect.objectContaining({ content: [{ type: 'text', text: 'Long running operation completed. Duration: 0.3 seconds, Steps: 3.' }] }) }]);
    expect(two.slice(2)).toEqual([{ jsonrpc: '2.0', id: 12, result: expect.objectContaining({ content: [{ type: 'text', text: 'Long running operation completed. Duration: 0.3 seconds, Steps: 2.' }] }) }]);
    // What went down the pipe carried the gateway's own tokens, one per call.
    const written = stdinLines().filter((m) => m.method === 'tools/call').map((m) => (m.params?._meta as { progressToken?: unknown }).progressToken);
    expect(written).toEqual([expect.stringMatching(/^gh-\d+$/), expect.stringMatching(/^gh-\d+$/)]);
    expect(new Set(written).size).toBe(2);
  });

  it('writes notifications/cancelled to the child when a modern client closes its stream (MCP 2026-07-28, basic/patterns/cancellation)', async () => {
    const abort = new AbortController();
    const call = modernClient.callTool({ name: `tee__${LONG_OP}`, arguments: { duration: 5, steps: 5 } }, { signal: abort.signal });
    const before = stdinLines().filter((m) => m.method === 'tools/call').length;
    await expect.poll(() => stdinLines().filter((m) => m.method === 'tools/call').length > before, { message: 'the call on the child\'s stdin', timeout: 8000 }).toBe(true);
    const sent = stdinLines().filter((m) => m.method === 'tools/call')[before]!;
    abort.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => stdinLines().some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === sent.id), { message: 'notifications/cancelled on the child\'s stdin', timeout: 8000 }).toBe(true);
    expect(stdinLines().filter((m) => m.method === 'notifications/cancelled').map((m) => m.params)).toEqual([{ requestId: sent.id, reason: 'client disconnected' }]);
    expect(upstream('tee').status().state).toBe('up');
  });
});

describe('stdio supervision', () => {
  it('reports a command that does not exist as down, naming it, and retries with growing backoff', async () => {
    await expect.poll(() => gw.logs.filter((l) => l.upstream === 'nope' && l.msg === 'restarting upstream').length, { message: 'three restart attempts', timeout: 8000 }).toBeGreaterThanOrEqual(3);
    expect(upstream('nope').status()).toMatchObject({ transport: 'stdio', state: 'down', era: undefined, lastError: expect.stringContaining(`"${MISSING_COMMAND}"`) });
    const delays = gw.logs.filter((l) => l.upstream === 'nope' && l.msg === 'restarting upstream').map((l) => l.inMs);
    expect(delays.slice(0, 3)).toEqual([50, 100, 200]);
    // Everyone else is unaffected: the merged list carries them; the failed part is named.
    const names = (await modernClient.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['md__echo', 'lg__echo', 'ev__echo', 'tee__echo']));
    expect(names.some((n) => n.startsWith('nope__'))).toBe(false);
    // The log names the command; what a client could see of it says only "not running".
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream down', upstream: 'nope', reason: expect.stringContaining(MISSING_COMMAND) }));
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream list failed, answering without it', upstream: 'nope', error: expect.stringContaining('not running') }));
  });

  it('logs the child\'s stderr, restarts a killed child with backoff, and serves it again', async () => {
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'upstream stderr', upstream: 'ev', line: 'Starting default (STDIO) server...' }));
    const firstPid = stdio('ev').pid()!;
    expect(alive(firstPid)).toBe(true);
    process.kill(firstPid, 'SIGKILL');
    await expect.poll(() => upstream('ev').status().state, { message: 'ev down', timeout: 3000 }).toBe('down');
    expect(upstream('ev').status().lastError).toBe('process exited (SIGKILL)');
    expect(gw.logs).toContainEqual(expect.objectContaining({ msg: 'restarting upstream', upstream: 'ev', inMs: EV_RESTART_MS }));
    await expect.poll(() => upstream('ev').status().state, { message: 'ev up again', timeout: 8000 }).toBe('up');
    const secondPid = stdio('ev').pid()!;
    expect(secondPid).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
    const starts = gw.logs.filter((l) => l.upstream === 'ev' && l.line === 'Starting default (STDIO) server...');
    expect(starts).toHaveLength(2);
    const res = await modernClient.callTool({ name: 'ev__echo', arguments: { message: 'reborn' } });
    expect(res.content).toEqual([{ type: 'text', text: 'Echo: reborn' }]);
  });

  it('holds the restart backoff against calls: one during it fails at once and starts no child', async () => {
    const pid = stdio('ev').pid()!;
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => upstream('ev').status().state, { message: 'ev down', timeout: 3000 }).toBe('down');
    // The call is answered before the backoff (600 ms at least) is over, and starts nothing.
    await expect(modernClient.callTool({ name: 'ev__echo', arguments: { message: 'eager' } })).rejects.toThrow('Upstream "ev" is unavailable: not running');
    expect(childrenRunning(`node ${EVERYTHING_SERVER}`)).toEqual([]);
    await expect.poll(() => upstream('ev').status().state, { message: 'ev up again', timeout: 8000 }).toBe('up');
    expect(childrenRunning(`node ${EVERYTHING_SERVER}`)).toEqual([stdio('ev').pid()]);
    const res = await modernClient.callTool({ name: 'ev__echo', arguments: { message: 'later' } });
    expect(res.content).toEqual([{ type: 'text', text: 'Echo: later' }]);
  });

  it('closes promptly with calls in flight and leaves no child running', async () => {
    const pids = [stdio('ev').pid()!, stdio('tee').pid()!];
    expect(pids.every(alive)).toBe(true);
    // A legacy client's disconnect is no cancel (MCP 2026-07-28, basic/patterns/cancellation), so these would run on upstream.
    const inflight = [
      legacyClient.callTool({ name: 'lg__slow', arguments: { ms: 8000 } }),
      legacyClient.callTool({ name: 'md__slow', arguments: { ms: 8000 } }),
      legacyClient.callTool({ name: `ev__${LONG_OP}`, arguments: { duration: 8, steps: 2 } }),
    ].map((p) => p.then(() => 'answered', () => 'failed'));
    await expect.poll(() => legacy.received.some((r) => r.headers['mcp-method'] === 'tools/call' && (r.body as { params: { name: string } }).params.name === 'slow') && modern.received.some((r) => r.headers['mcp-name'] === 'slow'), { message: 'the HTTP calls upstream', timeout: 8000 }).toBe(true);
    await gw.close();
    closed = true;
    // Waited out, each would have been answered (they take 8 s, well within the test).
    expect(await Promise.all(inflight)).toEqual(['failed', 'failed', 'failed']);
    expect(pids.filter(alive)).toEqual([]);
    expect(childrenRunning('')).toEqual([]);
  });
});
