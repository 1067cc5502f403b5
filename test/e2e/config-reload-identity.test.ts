// What else a config reload changes in a running `gatehouse serve`: the API keys (SIGHUP reads
// `apiKeysFile` again, as a rotated Secret needs), limits (a config file replaced as an editor
// saves it, seen by the directory watch), and the policy section itself (another directory),
// with list_changed to the client whose list that changed.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { killStarted, loggedLines, startServe, type CliRun } from '../harness/cli-process.ts';
import { modernBody, modernHeaders, postJson } from '../harness/gateway.ts';
import { ALICE, ALICE_KEY, BOB, BOB_KEY, modernCall, modernList, policyDir, toolNames } from '../harness/policy-env.ts';
import type { SseMessages } from '../harness/sse-messages.ts';
import { listenForToolChanges } from '../harness/listen-stream.ts';

const CAROL_KEY = 'gh_test_carol_0123456789abcdefghij';
const CAROL = { 'x-api-key': CAROL_KEY };
const sha = (k: string): string => createHash('sha256').update(k).digest('hex');
const key = (id: string, k: string, groups: string): string => `- { id: ${id}, sha256: "${sha(k)}", subject: ${id}, groups: [${groups}] }\n`;

const root = mkdtempSync(join(tmpdir(), 'gatehouse-reload-identity-'));
const confDir = mkdtempSync(join(tmpdir(), 'gatehouse-reload-conf-'));
const file = join(confDir, 'gatehouse.yaml');
const keysFile = join(root, 'api-keys.yaml');
const everyoneEcho = policyDir({ 'rules.yaml': 'rules:\n  - { id: everyone-echo, effect: allow, when: { tool: up__echo } }\n' });
const guestsAdd = policyDir({ 'rules.yaml': 'rules:\n  - { id: everyone-echo, effect: allow, when: { tool: up__echo } }\n  - { id: guests-add, effect: allow, when: { principal: [{ groups: [guests] }], tool: up__add } }\n' });
let upstream: ModernUpstream;
let gateway: CliRun;
let mcp: string;
const streams: SseMessages[] = [];
const dirs: string[] = [];

const configText = (policy: string, tail = ''): string => `
identity:
  resource: http://gatehouse.test/mcp
  apiKeysFile: "${keysFile}"
policy: { dir: "${policy}", watch: false }
audit: { dir: "${join(root, 'audit')}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
${tail}`;

/** Saved as editors save: a new file renamed over the old one. */
function save(text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

const logged = (msg: string): Record<string, any>[] => loggedLines(gateway, msg);

const reloaded = (n: number): Promise<void> => expect.poll(() => logged('config reloaded').length, { message: `reload ${n}`, timeout: 10_000 }).toBe(n);

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  writeFileSync(keysFile, key('alice', ALICE_KEY, 'analysts') + key('bob', BOB_KEY, 'guests'));
  save(configText(everyoneEcho));
  ({ run: gateway, mcp } = await startServe(file, root));
}, 30_000);

afterAll(async () => {
  for (const s of streams) s.close();
  killStarted();
  await upstream?.close();
  for (const d of [root, confDir, everyoneEcho, guestsAdd, ...dirs]) rmSync(d, { recursive: true, force: true });
});

describe('a config reload changes', () => {
  it('the API keys: SIGHUP reads apiKeysFile again; a new key works, a removed one is refused', async () => {
    expect((await modernList(mcp, CAROL)).status).toBe(401);
    writeFileSync(keysFile, key('bob', BOB_KEY, 'guests') + key('carol', CAROL_KEY, 'analysts'));
    gateway.child.kill('SIGHUP');
    await reloaded(1);
    expect((await modernList(mcp, CAROL)).status).toBe(200);
    expect((await modernList(mcp, ALICE)).status).toBe(401);
    expect((await modernList(mcp, BOB)).status).toBe(200);
  });

  it('limits, when the saved file is seen by the directory watch', async () => {
    const big = { message: 'x'.repeat(2000) };
    expect((await modernCall(mcp, BOB, 'up__echo', big)).status).toBe(200);
    save(configText(everyoneEcho, 'limits: { maxBodyBytes: 1000 }\n'));
    await reloaded(2);
    expect(logged('config reloaded')[1]).toMatchObject({ trigger: 'file changed', upstreams: { added: [], removed: [], changed: [] } });
    expect((await modernCall(mcp, BOB, 'up__echo', big)).status).toBe(413);
    expect((await modernCall(mcp, BOB, 'up__echo', { message: 'small' })).status).toBe(200);
  });

  it('the policy section: another directory decides, and only the client whose list changed hears of it', async () => {
    const listen = (who: Record<string, string>, id: string): Promise<SseMessages> => listenForToolChanges(mcp, who, id, streams);
    const bob = await listen(BOB, 'bob');
    const carol = await listen(CAROL, 'carol');
    expect(toolNames(await modernList(mcp, BOB))).toEqual(['up__echo']);
    save(configText(guestsAdd, 'limits: { maxBodyBytes: 1000 }\n'));
    await reloaded(3);
    await expect.poll(() => logged('config reload: listeners told of changed lists').length, { timeout: 10_000 }).toBe(3);
    expect(logged('config reload: listeners told of changed lists')[2]).toMatchObject({ listeners: 2, told: 1 });
    expect(bob.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toHaveLength(1);
    expect(carol.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toEqual([]);
    expect(toolNames(await modernList(mcp, BOB))).toEqual(['up__echo', 'up__add']);
    expect(toolNames(await modernList(mcp, CAROL))).toEqual(['up__echo']);
    const sum = await postJson(mcp, modernBody('sum', 'tools/call', { name: 'up__add', arguments: { a: 2, b: 3 } }), modernHeaders('tools/call', 'up__add', BOB));
    expect(sum.json.result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('not to a policy directory that does not load: the line names the policy file and the path in it', async () => {
    const broken = policyDir({ 'bad.yaml': 'rules:\n  - { id: oops, effect: perhaps }\n' });
    dirs.push(broken);
    save(configText(broken, 'limits: { maxBodyBytes: 1000 }\n'));
    await expect.poll(() => logged('config reload rejected; keeping the running config').length, { timeout: 10_000 }).toBe(1);
    const line = logged('config reload rejected; keeping the running config')[0]!;
    expect(line).toMatchObject({ file, trigger: 'file changed', policyFile: join(broken, 'bad.yaml'), path: '/rules/0/effect' });
    expect(toolNames(await modernList(mcp, BOB))).toEqual(['up__echo', 'up__add']);
  });
});
