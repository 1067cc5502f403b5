// Config reloads of a running `gatehouse serve` with virtual servers: a replaced upstream
// connection is the one every server's calls reach from then on (the call in flight finishing
// on the old one), and list_changed goes to the listeners of the endpoints whose view changed,
// judged on each server's own lists, and to nobody else. `servers:` itself reloads live: an
// added server answers at its path, a changed selection tells that server's listeners, and a
// removed server's streams end and its path is gone; its legacy sessions were bound to it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { killStarted, loggedLines, startServe, type CliRun } from '../harness/cli-process.ts';
import { modernBody, modernHeaders, postJson } from '../harness/gateway.ts';
import { ALICE, IDENTITY_YAML, modernCall, modernList, toolNames } from '../harness/policy-env.ts';
import type { SseMessages } from '../harness/sse-messages.ts';
import { LIST_CHANGED, listenForToolChanges, toolChanges } from '../harness/listen-stream.ts';

const TOLD = 'config reload: listeners told of changed lists';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-vreload-'));
const file = join(root, 'gatehouse.yaml');
const auditDir = join(root, 'audit');
let up: ModernUpstream;
let other: ModernUpstream;
let bigger: ModernUpstream;
let gateway: CliRun;
let base: string;
const streams: SseMessages[] = [];
let teamLegacy: LegacyClient;
const teamLegacySeen: unknown[] = [];

interface Parts {
  upHeaders?: string;
  otherUrl?: string;
  servers?: string;
}

const TEAM = '  - { name: team, upstreams: [up], tools: { include: [up__echo, up__slow] } }\n';
const OTHERS = '  - { name: others, upstreams: [other] }\n';

const configText = (p: Parts): string => `
${IDENTITY_YAML}
audit: { dir: "${auditDir}" }
shutdown: { deadline: 20s }
upstreams:
  - { name: up, url: "${up.url}"${p.upHeaders ? `, headers: { ${p.upHeaders} }` : ''} }
  - { name: other, url: "${p.otherUrl ?? other.url}" }
servers:
${p.servers ?? TEAM + OTHERS}`;

function reload(p: Parts): void {
  writeFileSync(file, configText(p));
  gateway.child.kill('SIGHUP');
}

const logged = (msg: string): Record<string, any>[] => loggedLines(gateway, msg);

const listen = (url: string, id: string): Promise<SseMessages> => listenForToolChanges(url, ALICE, id, streams);
const changes = toolChanges;
const callsOf = (u: ModernUpstream, tool: string): ModernUpstream['received'] =>
  u.received.filter((r) => (r.body as { params?: { name?: string } } | undefined)?.params?.name === tool);

beforeAll(async () => {
  [up, other, bigger] = await Promise.all([startModernUpstream({ name: 'up' }), startModernUpstream({ name: 'other' }), startModernUpstream({ name: 'other', toolCount: 2 })]);
  writeFileSync(file, configText({}));
  ({ run: gateway, mcp: base } = await startServe(file, root));
}, 30_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await teamLegacy?.close().catch(() => undefined);
  killStarted();
  await Promise.all([up?.close(), other?.close(), bigger?.close()]);
  rmSync(root, { recursive: true, force: true });
});

describe('a config reload with virtual servers', () => {
  let onDefault: SseMessages;
  let onTeam: SseMessages;
  let onOthers: SseMessages;

  it("a changed upstream: the server's calls reach the new connection, its call in flight ends on the old one, and no view changed so nobody is told", async () => {
    onDefault = await listen(base, 'default-listen');
    onTeam = await listen(`${base}/team`, 'team-listen');
    onOthers = await listen(`${base}/others`, 'others-listen');
    teamLegacy = await connectLegacyClient(`${base}/team`, { headers: ALICE });
    teamLegacy.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void teamLegacySeen.push(n));
    await expect.poll(async () => toolNames(await modernList(`${base}/team`, ALICE)), { timeout: 10_000 }).toEqual(['up__echo', 'up__slow']);
    const slow = modernCall(`${base}/team`, ALICE, 'up__slow', { ms: 1500 });
    await expect.poll(() => callsOf(up, 'slow').length, { message: 'the slow call to reach the upstream', timeout: 10_000 }).toBe(1);

    reload({ upHeaders: 'x-generation: "2"' });
    await expect.poll(() => logged('config reloaded').length, { timeout: 10_000 }).toBe(1);
    expect(logged('config reloaded')[0]).toMatchObject({ upstreams: { added: [], removed: [], changed: ['up'] } });
    // Four listeners (three listen streams and the team session's GET stream), none told.
    await expect.poll(() => logged(TOLD).length, { timeout: 10_000 }).toBe(1);
    expect(logged(TOLD)[0]).toMatchObject({ listeners: 4, told: 0 });

    const reply = await modernCall(`${base}/team`, ALICE, 'up__echo', { message: 'after' });
    expect(reply.json.result.structuredContent).toEqual({ message: 'after' });
    expect(callsOf(up, 'echo').at(-1)!.headers['x-generation']).toBe('2');
    // The legacy session made on the server before the reload goes on there, on the new connection too.
    const legacy = await teamLegacy.callTool({ name: 'up__echo', arguments: { message: 'legacy' } });
    expect(legacy.structuredContent).toEqual({ message: 'legacy' });
    expect(callsOf(up, 'echo').at(-1)!.headers['x-generation']).toBe('2');
    const done = await slow;
    expect(done.json.result.content).toEqual([{ type: 'text', text: 'slept 1500ms' }]);
    expect(callsOf(up, 'slow')[0]!.headers['x-generation']).toBeUndefined();
    await expect.poll(() => logged('retired upstream connection closed').some((l) => l.upstream === 'up'), { timeout: 10_000 }).toBe(true);
    expect([changes(onDefault), changes(onTeam), changes(onOthers), teamLegacySeen]).toEqual([[], [], [], []]);
  });

  it('an upstream replaced by one with more tools tells the listeners of the endpoints that show them, and not the server without it', async () => {
    reload({ upHeaders: 'x-generation: "2"', otherUrl: bigger.url });
    await expect.poll(() => logged('config reloaded').length, { timeout: 10_000 }).toBe(2);
    expect(logged('config reloaded')[1]).toMatchObject({ upstreams: { changed: ['other'] } });
    await expect.poll(() => logged(TOLD).length, { timeout: 10_000 }).toBe(2);
    expect(logged(TOLD)[1]).toMatchObject({ listeners: 4, told: 2 });
    // Told means written: the bytes reach the listeners' sockets at the end of the gateway's turn.
    await expect.poll(() => changes(onDefault), { timeout: 5000 }).toHaveLength(1);
    await expect.poll(() => changes(onOthers), { timeout: 5000 }).toEqual([{ jsonrpc: '2.0', method: LIST_CHANGED, params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'others-listen' } } }]);
    expect([changes(onTeam), teamLegacySeen]).toEqual([[], []]);
    expect(toolNames(await modernList(`${base}/others`, ALICE))).toContain('other__tool_1');
    expect((await modernCall(`${base}/others`, ALICE, 'other__echo', { message: 'bigger' })).json.result.structuredContent).toEqual({ message: 'bigger' });
    expect(callsOf(bigger, 'echo')).toHaveLength(1);
    expect(callsOf(other, 'echo')).toHaveLength(0);
  });

  it('servers: reloads live: a new server answers, a wider selection tells its listeners, a removed server ends its streams and leaves its path', async () => {
    const servers = '  - { name: team, upstreams: [up], tools: { include: [up__echo, up__slow, up__add] } }\n  - { name: late, upstreams: [up], prefix: none }\n';
    reload({ upHeaders: 'x-generation: "2"', otherUrl: bigger.url, servers });
    await expect.poll(() => logged('config reloaded').length, { timeout: 10_000 }).toBe(3);
    expect(logged('config reloaded')[2]).toMatchObject({ upstreams: { added: [], removed: [], changed: [] }, servers: { added: ['late'], removed: ['others'], changed: ['team'] } });
    await expect.poll(() => onOthers.ended(), { message: "the removed server's listen stream to end", timeout: 10_000 }).toBe(true);
    await expect.poll(() => logged(TOLD).length, { timeout: 10_000 }).toBe(3);
    // Of the three still open, the team's two streams were told; the default endpoint's view is the same.
    expect(logged(TOLD)[2]).toMatchObject({ told: 2 });
    await expect.poll(() => changes(onTeam), { timeout: 5000 }).toHaveLength(1);
    await expect.poll(() => teamLegacySeen.length, { timeout: 5000 }).toBe(1);
    expect(changes(onDefault)).toHaveLength(1);
    expect(toolNames(await modernList(`${base}/team`, ALICE))).toEqual(['up__echo', 'up__add', 'up__slow']);
    expect(toolNames(await modernList(`${base}/late`, ALICE))).toEqual(expect.arrayContaining(['echo', 'slow', 'add']));
    expect((await modernCall(`${base}/late`, ALICE, 'echo', { message: 'late' })).json.result.structuredContent).toEqual({ message: 'late' });
    const gone = await postJson(`${base}/others`, modernBody(1, 'tools/list'), modernHeaders('tools/list', undefined, ALICE));
    expect(gone.status).toBe(404);
    // The audit trail says why the stream ended (written behind the stream, so polled).
    await expect.poll(() => closedStreams().filter((d) => d.reason === 'server_removed'), { timeout: 10_000 }).toEqual([expect.objectContaining({ server: 'others', subscriptionId: 'others-listen' })]);
  });
});

/** The detail of every stream_closed event in the audit trail. */
function closedStreams(): Record<string, unknown>[] {
  return readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"stream_closed"'))
    .map((l) => (JSON.parse(l) as { detail: Record<string, unknown> }).detail);
}
