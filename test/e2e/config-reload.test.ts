// The whole config reloads in a running `gatehouse serve` process, laid out as a Kubernetes
// ConfigMap volume mounts it (gatehouse.yaml -> ..data/gatehouse.yaml, ..data -> a timestamped
// directory, updated by swapping the ..data link): SIGHUP after the file is edited in place,
// and the directory watch after a ..data swap. Upstreams are added, changed and removed with a
// call in flight that finishes on the old connection; a changed stdio upstream gets a new
// child and the old one exits, as does the child of a removed one;
// list_changed reaches the clients whose visible lists changed (a 2026-07-28 listen stream and
// a 2025-11-25 session's GET stream) and no other; a config that does not load, and one that
// changes a restart-only field, keep the running config, with one log line naming the file,
// the path and the reason, a metric and an audit record each.
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { killStarted, loggedLines, startServe, type CliRun } from '../harness/cli-process.ts';
import { REPO_ROOT } from '../harness/gateway.ts';
import { metricValue } from '../harness/metrics.ts';
import { ALICE, BOB, IDENTITY_YAML, modernCall, modernList, policyDir, toolNames } from '../harness/policy-env.ts';
import { alive } from '../harness/process-alive.ts';
import type { SseMessages } from '../harness/sse-messages.ts';
import { LIST_CHANGED, listenForToolChanges, toolChanges } from '../harness/listen-stream.ts';

const STDIO_SERVER = join(REPO_ROOT, 'test/fixtures/scripted-stdio-server.mjs');
// alice (analysts) sees every tool; bob (guests) only those of `up`.
const POLICY = `
rules:
  - { id: analysts-all, effect: allow, when: { principal: [{ groups: [analysts] }], tool: "*" } }
  - { id: guests-up, effect: allow, when: { principal: [{ groups: [guests] }], tool: "up__*" } }
`;

const root = mkdtempSync(join(tmpdir(), 'gatehouse-reload-'));
const mount = join(root, 'config');
const file = join(mount, 'gatehouse.yaml');
const spawnLog = join(root, 'spawns.log');
const auditDir = join(root, 'audit');
const policies = policyDir({ '10-rules.yaml': POLICY });
let version = 0;
let up: ModernUpstream;
let extra: ModernUpstream;
let gateway: CliRun;
let mcp: string;
const streams: SseMessages[] = [];
let aliceLegacy: LegacyClient;
const aliceLegacySeen: unknown[] = [];

interface Parts {
  upHeaders?: string;
  withExtra?: boolean;
  withKid?: boolean;
  /** Another setting of the stdio upstream, so that it is a changed one. */
  kidEnv?: string;
  tail?: string;
}

const configText = (p: Parts): string => `
${IDENTITY_YAML}
policy: { dir: "${policies}", watch: false }
audit: { dir: "${auditDir}" }
shutdown: { deadline: 20s }
upstreams:
  - { name: up, url: "${up.url}"${p.upHeaders ? `, headers: { ${p.upHeaders} }` : ''} }
${p.withExtra ? `  - { name: extra, url: "${extra.url}" }\n` : ''}${p.withKid ? `  - { name: kid, command: node, args: ["${STDIO_SERVER}"], env: { SPAWN_LOG: "${spawnLog}"${p.kidEnv ? `, ${p.kidEnv}` : ''} } }\n` : ''}${p.tail ?? ''}`;

/** A ConfigMap update: a new timestamped directory, then the ..data link swapped to it atomically. */
function publish(text: string): void {
  const dir = `..2026_12_01_${++version}`;
  mkdirSync(join(mount, dir));
  writeFileSync(join(mount, dir, 'gatehouse.yaml'), text);
  symlinkSync(dir, join(mount, '..data_tmp'));
  renameSync(join(mount, '..data_tmp'), join(mount, '..data'));
}

/** An edit of the file behind the links: nothing in the watched directory itself changes, so only SIGHUP reloads it. */
function editInPlace(text: string): void {
  writeFileSync(join(mount, `..2026_12_01_${version}`, 'gatehouse.yaml'), text);
}

const logged = (msg: string): Record<string, any>[] => loggedLines(gateway, msg);

const reloads = (result: string): Promise<number | undefined> => metricValue(mcp, 'gatehouse_config_reloads_total', { result });

const listen = (who: Record<string, string>, id: string): Promise<SseMessages> => listenForToolChanges(mcp, who, id, streams);
const changes = toolChanges;
const slowArrived = (u: ModernUpstream): boolean => u.received.some((r) => (r.body as { params?: { name?: string } } | undefined)?.params?.name === 'slow');
const TOLD = 'config reload: listeners told of changed lists';

beforeAll(async () => {
  [up, extra] = await Promise.all([startModernUpstream({ name: 'up' }), startModernUpstream({ name: 'extra' })]);
  mkdirSync(mount);
  publish(configText({ withKid: true }));
  symlinkSync('..data/gatehouse.yaml', file);
  ({ run: gateway, mcp } = await startServe(file, root));
}, 30_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await aliceLegacy?.close().catch(() => undefined);
  killStarted();
  await Promise.all([up?.close(), extra?.close()]);
  rmSync(root, { recursive: true, force: true });
  rmSync(policies, { recursive: true, force: true });
});

describe('gatehouse serve reloads its whole config', () => {
  let alice: SseMessages;
  let bob: SseMessages;

  it('adds an upstream on SIGHUP; list_changed reaches alice in both eras, bob hears nothing', async () => {
    alice = await listen(ALICE, 'alice-listen');
    bob = await listen(BOB, 'bob-listen');
    aliceLegacy = await connectLegacyClient(mcp, { headers: ALICE });
    aliceLegacy.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void aliceLegacySeen.push(n));
    // Both listen streams and the legacy session's GET stream are open.
    await expect.poll(() => metricValue(mcp, 'gatehouse_streams'), { timeout: 10_000 }).toBe(3);
    await expect.poll(async () => toolNames(await modernList(mcp, ALICE)), { timeout: 10_000 }).toContain('kid__echo');
    expect(toolNames(await modernList(mcp, ALICE))).not.toContain('extra__echo');

    editInPlace(configText({ withKid: true, withExtra: true }));
    gateway.child.kill('SIGHUP');
    await expect.poll(() => logged('config reloaded').length, { message: 'the reload to be applied', timeout: 10_000 }).toBe(1);
    expect(logged('config reloaded')[0]).toMatchObject({ file, trigger: 'SIGHUP', upstreams: { added: ['extra'], removed: [], changed: [] } });
    await expect.poll(() => logged(TOLD).length, { timeout: 10_000 }).toBe(1);
    // Two listeners of three were told: alice's listen stream and her session's GET stream.
    expect(logged(TOLD)[0]).toMatchObject({ listeners: 3, told: 2 });
    // Told means written: the bytes reach the listeners' sockets at the end of the gateway's turn.
    await expect.poll(() => changes(alice), { timeout: 5000 }).toEqual([{ jsonrpc: '2.0', method: LIST_CHANGED, params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'alice-listen' } } }]);
    await expect.poll(() => aliceLegacySeen.length, { message: 'alice legacy list_changed', timeout: 5000 }).toBe(1);
    expect(changes(bob)).toEqual([]);
    expect(toolNames(await modernList(mcp, ALICE))).toContain('extra__echo');
    expect((await aliceLegacy.listTools()).tools.map((t) => t.name)).toContain('extra__echo');
    expect(toolNames(await modernList(mcp, BOB)).every((n) => n.startsWith('up__'))).toBe(true);
    expect((await modernCall(mcp, ALICE, 'extra__echo', { message: 'hi' })).json.result.structuredContent).toEqual({ message: 'hi' });
    expect(await reloads('applied')).toBe(1);
  });

  it('a changed upstream gets a new connection after a ..data swap; the call in flight finishes on the old one', async () => {
    const slow = modernCall(mcp, ALICE, 'up__slow', { ms: 1500 });
    await expect.poll(() => slowArrived(up), { message: 'the slow call to reach the upstream', timeout: 10_000 }).toBe(true);
    publish(configText({ withKid: true, withExtra: true, upHeaders: 'x-generation: "2"' }));
    await expect.poll(() => logged('config reloaded').length, { timeout: 10_000 }).toBe(2);
    expect(logged('config reloaded')[1]).toMatchObject({ trigger: 'file changed', upstreams: { added: [], removed: [], changed: ['up'] } });
    expect(logged('upstream connection retiring: its calls in flight finish first')[0]).toMatchObject({ upstream: 'up', inFlight: 1 });
    // New calls go out on the new connection, with its header.
    expect((await modernCall(mcp, ALICE, 'up__echo', { message: 'new' })).status).toBe(200);
    expect(up.received.filter((r) => r.headers['x-generation'] === '2').length).toBeGreaterThan(0);
    const done = await slow;
    expect(done.status).toBe(200);
    expect(done.json.result.content).toEqual([{ type: 'text', text: 'slept 1500ms' }]);
    await expect.poll(() => logged('retired upstream connection closed').some((l) => l.upstream === 'up'), { timeout: 10_000 }).toBe(true);
    expect(logged('retired upstream connection still had calls in flight at the deadline; closing it')).toEqual([]);
  });

  it('a changed stdio upstream gets a new child, and the old one exits', async () => {
    const pids = (): number[] => readFileSync(spawnLog, 'utf8').trim().split('\n').map(Number);
    const [old] = pids().slice(-1);
    editInPlace(configText({ withKid: true, withExtra: true, upHeaders: 'x-generation: "2"', kidEnv: 'GENERATION: "2"' }));
    gateway.child.kill('SIGHUP');
    await expect.poll(() => logged('config reloaded').length, { timeout: 10_000 }).toBe(3);
    expect(logged('config reloaded')[2]).toMatchObject({ upstreams: { added: [], removed: [], changed: ['kid'] } });
    await expect.poll(() => pids().length, { message: 'a new child to start', timeout: 10_000 }).toBe(2);
    await expect.poll(() => alive(old!), { message: 'the old child to exit', timeout: 10_000 }).toBe(false);
    expect(alive(pids()[1]!)).toBe(true);
    await expect.poll(async () => (await modernCall(mcp, ALICE, 'kid__echo', { text: 'again' })).json?.result?.content, { timeout: 10_000 }).toEqual([{ type: 'text', text: 'again' }]);
  });

  it('removing upstreams: the call in flight on one finishes, the stdio child of the other exits', async () => {
    const pid = Number(readFileSync(spawnLog, 'utf8').trim().split('\n').at(-1));
    expect(alive(pid)).toBe(true);
    const slow = modernCall(mcp, ALICE, 'extra__slow', { ms: 1500 });
    await expect.poll(() => slowArrived(extra), { message: 'the slow call to reach extra', timeout: 10_000 }).toBe(true);
    const told = changes(alice).length;
    editInPlace(configText({ upHeaders: 'x-generation: "2"' }));
    gateway.child.kill('SIGHUP');
    await expect.poll(() => logged('config reloaded').length, { timeout: 10_000 }).toBe(4);
    expect(logged('config reloaded')[3]).toMatchObject({ upstreams: { added: [], removed: ['extra', 'kid'], changed: [] } });
    const done = await slow;
    expect(done.json.result.content).toEqual([{ type: 'text', text: 'slept 1500ms' }]);
    await expect.poll(() => alive(pid), { message: 'the removed stdio child to exit', timeout: 10_000 }).toBe(false);
    expect(toolNames(await modernList(mcp, ALICE)).filter((n) => !n.startsWith('up__'))).toEqual([]);
    expect((await modernCall(mcp, ALICE, 'extra__echo', { message: 'gone' })).json.error.message).toBe('Unknown tool: extra__echo');
    await expect.poll(() => changes(alice).length, { timeout: 5000 }).toBe(told + 1);
    expect(changes(bob)).toEqual([]);
  });

  it('a ..data swap that leaves gatehouse.yaml the same still reloads (the policy files beside it may have changed)', async () => {
    const unchanged = logged('config reload: nothing changed').length;
    publish(readFileSync(file, 'utf8'));
    await expect.poll(() => logged('config reload: nothing changed').length, { timeout: 10_000 }).toBe(unchanged + 1);
    expect(logged('config reload: nothing changed').at(-1)).toMatchObject({ file, trigger: 'file changed' });
    expect(await reloads('unchanged')).toBe(1);
  });

  it('a config that does not load keeps the running one: one line names the file, the path and the reason', async () => {
    editInPlace(configText({ tail: 'listDeadline: soon\n' }));
    gateway.child.kill('SIGHUP');
    await expect.poll(() => logged('config reload rejected; keeping the running config').length, { timeout: 10_000 }).toBe(1);
    const line = logged('config reload rejected; keeping the running config')[0]!;
    expect(line).toMatchObject({ level: 'error', file, trigger: 'SIGHUP', path: '/listDeadline' });
    expect(line.reason).toMatch(/duration/i);
    expect(typeof line.line).toBe('number');
    expect((await modernCall(mcp, ALICE, 'up__echo', { message: 'still' })).status).toBe(200);
    expect(await reloads('invalid')).toBe(1);
  });

  it('a change to a restart-only field is refused, naming it, and the running config stays', async () => {
    editInPlace(configText({ upHeaders: 'x-generation: "3"', tail: 'listen: { path: /elsewhere }\n' }));
    gateway.child.kill('SIGHUP');
    await expect.poll(() => logged('config reload refused; keeping the running config').length, { timeout: 10_000 }).toBe(1);
    const line = logged('config reload refused; keeping the running config')[0]!;
    expect(line).toMatchObject({ file, path: '/listen/path' });
    expect(line.reason).toContain('listen.path cannot change while the gateway runs');
    // Nothing of it was taken: not even the upstream change beside it.
    const before = up.received.length;
    expect((await modernCall(mcp, ALICE, 'up__echo', { message: 'same' })).status).toBe(200);
    expect(up.received.slice(before).some((r) => r.headers['x-generation'] === '3')).toBe(false);
    expect(await reloads('refused')).toBe(1);
    expect(await reloads('applied')).toBe(4);
  });

  it('leaves an audit record of every reload', async () => {
    const events = readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"config_reload"'))
      .map((l) => JSON.parse(l).detail as Record<string, unknown>);
    expect(events.map((e) => e.result)).toEqual(['applied', 'applied', 'applied', 'applied', 'unchanged', 'invalid', 'refused']);
    expect(events[5]).toMatchObject({ file, path: '/listDeadline' });
  });
});
