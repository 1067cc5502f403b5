// Hot reload end to end: a policy file written into the watched directory is validated and
// swapped in within moments; only clients whose visible lists changed get list_changed
// (modern listen streams and legacy GET streams alike); an invalid file is rejected with a
// logged error while the old policy keeps deciding; SIGHUP reloads a gateway that does not
// watch its files.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML, logged, modernCall, modernList, policyDir, toolNames } from '../harness/policy-env.ts';
import type { SseMessages } from '../harness/sse-messages.ts';
import { LIST_CHANGED, listenForToolChanges } from '../harness/listen-stream.ts';

const BASE = `
rules:
  - id: everyone-echo
    effect: allow
    when: { tool: up__echo }
  - id: analysts-add
    effect: allow
    when: { principal: [{ groups: [analysts] }], tool: up__add }
`;
const GUESTS_ADD = `
rules:
  - id: guests-add
    effect: allow
    when: { principal: [{ groups: [guests] }], tool: up__add }
`;

let upstream: ModernUpstream;
const streams: SseMessages[] = [];

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
});

afterAll(async () => {
  for (const s of streams) s.close();
  await upstream?.close();
});

const gatewayYaml = (dir: string, watch: boolean): string => `
${IDENTITY_YAML}
policy: { dir: "${dir}", watch: ${watch} }
upstreams:
  - { name: up, url: "${upstream.url}" }
`;

/** A raw modern subscriptions/listen stream for `who`; resolves once acknowledged. */
const listen = (gw: TestGateway, who: Record<string, string>, id: string): Promise<SseMessages> => listenForToolChanges(gw.url, who, id, streams);

const changes = (sse: SseMessages): any[] => sse.messages.filter((m) => m.method === LIST_CHANGED);
/** The gateway's line once every listener's lists were compared after a reload: `n` of them so far. */
const TOLD = 'policy reload: listeners told of changed lists';
const toldAfter = (gw: TestGateway, n: number) => expect.poll(() => logged(gw.logs, TOLD).length, { message: `reload ${n} told`, timeout: 5000 }).toBe(n);

describe('watched policy directory', () => {
  let dir: string;
  let gw: TestGateway;
  let bobStream: SseMessages;
  let aliceStream: SseMessages;
  let bobLegacy: LegacyClient;
  const bobLegacySeen: unknown[] = [];

  beforeAll(async () => {
    dir = policyDir({ '00-base.yaml': BASE });
    gw = await startTestGateway(gatewayYaml(dir, true));
    await gw.waitUp();
    const before = gw.notifier.size();
    bobLegacy = await connectLegacyClient(gw.url, { headers: BOB });
    bobLegacy.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void bobLegacySeen.push(n));
    bobStream = await listen(gw, BOB, 'bob-listen');
    aliceStream = await listen(gw, ALICE, 'alice-listen');
    // Two listen streams and bob's legacy GET stream.
    await vi.waitUntil(() => gw.notifier.size() >= before + 3, { timeout: 5000, interval: 20 });
  });

  afterAll(async () => {
    await bobLegacy?.close();
    await gw?.close();
  });

  it('starts with the boot policy', async () => {
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo']);
    expect(toolNames(await modernList(gw.url, ALICE))).toEqual(['up__echo', 'up__add']);
  });

  it('a new file reaches bob: list_changed on his streams, and the tool in his list; alice hears nothing', async () => {
    writeFileSync(join(dir, '10-guests.yaml'), GUESTS_ADD);
    await expect.poll(() => changes(bobStream).length, { message: 'bob list_changed', timeout: 5000 }).toBeGreaterThan(0);
    expect(changes(bobStream)).toEqual([{ jsonrpc: '2.0', method: LIST_CHANGED, params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'bob-listen' } } }]);
    await expect.poll(() => bobLegacySeen.length, { message: 'bob legacy list_changed', timeout: 5000 }).toBeGreaterThan(0);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
    expect((await bobLegacy.listTools()).tools.map((t) => t.name)).toEqual(['up__echo', 'up__add']);
    expect((await modernCall(gw.url, BOB, 'up__add', { a: 2, b: 3 })).json.result.content).toEqual([{ type: 'text', text: '5' }]);
    // Every listener's lists compared: bob's two streams told, alice's not.
    await toldAfter(gw, 1);
    expect(logged(gw.logs, TOLD).at(-1)).toMatchObject({ listeners: 3, told: 2 });
    expect(changes(aliceStream)).toEqual([]);
    expect(logged(gw.logs, 'policy reloaded').at(-1)).toMatchObject({ reason: 'files changed', rules: 3 });
  });

  it('an invalid file is rejected and logged; the old policy keeps deciding', async () => {
    const bad = join(dir, '20-bad.yaml');
    writeFileSync(bad, 'rules:\n  - id: oops\n    effect: perhaps\n');
    await expect.poll(() => logged(gw.logs, 'policy reload rejected').length, { message: 'the rejection to be logged', timeout: 5000 }).toBeGreaterThan(0);
    const rejection = logged(gw.logs, 'policy reload rejected')[0]!;
    expect(rejection.level).toBe('error');
    expect((rejection.issues as string[]).join('\n')).toContain(`${bad}:3:`);
    expect((rejection.issues as string[]).join('\n')).toMatch(/\/rules\/0\/effect/);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
    expect((await modernCall(gw.url, BOB, 'up__add', { a: 1, b: 1 })).status).toBe(200);
    expect(changes(bobStream)).toHaveLength(1);
    rmSync(bad);
  });

  it('a file caught emptied (truncated before it is rewritten) keeps the running policy, its rules included', async () => {
    const guests = join(dir, '10-guests.yaml');
    const before = logged(gw.logs, 'policy reload rejected').length;
    writeFileSync(guests, '');
    await expect.poll(() => logged(gw.logs, 'policy reload rejected').length, { message: 'the empty file to be refused', timeout: 5000 }).toBeGreaterThan(before);
    expect((logged(gw.logs, 'policy reload rejected').at(-1)!.issues as string[]).join('\n')).toContain(`${guests}: the file is empty`);
    // bob keeps what 10-guests.yaml gave him: the file's rules did not silently vanish.
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
    const unchanged = logged(gw.logs, 'policy reload: nothing changed').length;
    writeFileSync(guests, GUESTS_ADD);
    // Read again, and the same policy as the one running.
    await expect.poll(() => logged(gw.logs, 'policy reload: nothing changed').length, { timeout: 5000 }).toBeGreaterThan(unchanged);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
  });

  it('taking a permission away tells bob, and his next call is an unknown tool', async () => {
    const seen = changes(bobStream).length;
    rmSync(join(dir, '10-guests.yaml'));
    await expect.poll(() => changes(bobStream).length, { message: 'bob second list_changed', timeout: 5000 }).toBeGreaterThan(seen);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo']);
    expect((await modernCall(gw.url, BOB, 'up__add', { a: 1, b: 1 })).json.error).toEqual({ code: -32602, message: 'Unknown tool: up__add' });
    await toldAfter(gw, 2);
    expect(logged(gw.logs, TOLD).at(-1)).toMatchObject({ listeners: 3, told: 2 });
    expect(changes(aliceStream)).toEqual([]);
  });
});

describe('SIGHUP', () => {
  let dir: string;
  let gw: TestGateway;

  beforeAll(async () => {
    dir = policyDir({ '00-base.yaml': BASE });
    gw = await startTestGateway(gatewayYaml(dir, false));
    await gw.waitUp();
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('reloads an unwatched directory only when told to', async () => {
    const bob = await listen(gw, BOB, 'bob-hup');
    // Nothing watches the directory: a written file waits for SIGHUP.
    expect(logged(gw.logs, 'policy loaded').at(-1)).toMatchObject({ watching: false });
    writeFileSync(join(dir, '10-guests.yaml'), GUESTS_ADD);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo']);
    expect(changes(bob)).toEqual([]);
    process.emit('SIGHUP', 'SIGHUP');
    await expect.poll(() => changes(bob).length, { message: 'bob list_changed after SIGHUP', timeout: 5000 }).toBeGreaterThan(0);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
    expect(logged(gw.logs, 'policy reloaded').at(-1)).toMatchObject({ reason: 'SIGHUP' });
  });
});
