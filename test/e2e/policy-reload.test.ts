// Hot reload end to end: a policy file written into the watched directory is validated and
// swapped in within moments; only clients whose visible lists changed get list_changed
// (modern listen streams and legacy GET streams alike); an invalid file is rejected with a
// logged error while the old policy keeps deciding; SIGHUP reloads a gateway that does not
// watch its files.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML, logged, modernCall, modernList, policyDir, sleep, toolNames, until } from '../harness/policy-env.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';

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
const LIST_CHANGED = 'notifications/tools/list_changed';

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
async function listen(gw: TestGateway, who: Record<string, string>, id: string): Promise<SseMessages> {
  const { response, sse } = await openSse(gw.url, {
    method: 'POST',
    headers: modernHeaders('subscriptions/listen', undefined, who),
    body: JSON.stringify(modernBody(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
  });
  streams.push(sse);
  expect(response.status).toBe(200);
  await sse.waitFor(1);
  expect(sse.messages[0].method).toBe('notifications/subscriptions/acknowledged');
  return sse;
}

const changes = (sse: SseMessages): any[] => sse.messages.filter((m) => m.method === LIST_CHANGED);

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
    await until('every listener to be registered', () => gw.notifier.size() >= before + 3);
  });

  afterAll(async () => {
    await bobLegacy?.close();
    await gw?.close();
  });

  it('starts with the boot policy', async () => {
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo']);
    expect(toolNames(await modernList(gw.url, ALICE))).toEqual(['up__echo', 'up__add']);
  });

  it('a new file reaches bob within 2 s: list_changed on his streams, and the tool in his list; alice hears nothing', async () => {
    const written = Date.now();
    writeFileSync(join(dir, '10-guests.yaml'), GUESTS_ADD);
    await until('bob list_changed', () => changes(bobStream).length > 0, 2000);
    expect(Date.now() - written).toBeLessThan(2000);
    expect(changes(bobStream)).toEqual([{ jsonrpc: '2.0', method: LIST_CHANGED, params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'bob-listen' } } }]);
    await until('bob legacy list_changed', () => bobLegacySeen.length > 0, 2000);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
    expect((await bobLegacy.listTools()).tools.map((t) => t.name)).toEqual(['up__echo', 'up__add']);
    expect((await modernCall(gw.url, BOB, 'up__add', { a: 2, b: 3 })).json.result.content).toEqual([{ type: 'text', text: '5' }]);
    await sleep(500);
    expect(changes(aliceStream)).toEqual([]);
    expect(logged(gw.logs, 'policy reloaded').at(-1)).toMatchObject({ reason: 'files changed', rules: 3 });
  });

  it('an invalid file is rejected and logged; the old policy keeps deciding', async () => {
    const bad = join(dir, '20-bad.yaml');
    writeFileSync(bad, 'rules:\n  - id: oops\n    effect: perhaps\n');
    await until('the rejection to be logged', () => logged(gw.logs, 'policy reload rejected').length > 0, 2000);
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
    await until('the empty file to be refused', () => logged(gw.logs, 'policy reload rejected').length > before, 2000);
    expect((logged(gw.logs, 'policy reload rejected').at(-1)!.issues as string[]).join('\n')).toContain(`${guests}: the file is empty`);
    // bob keeps what 10-guests.yaml gave him: the file's rules did not silently vanish.
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
    writeFileSync(guests, GUESTS_ADD);
    await sleep(400);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
  });

  it('taking a permission away tells bob, and his next call is an unknown tool', async () => {
    await sleep(300);
    const seen = changes(bobStream).length;
    rmSync(join(dir, '10-guests.yaml'));
    await until('bob second list_changed', () => changes(bobStream).length > seen, 2000);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo']);
    expect((await modernCall(gw.url, BOB, 'up__add', { a: 1, b: 1 })).json.error).toEqual({ code: -32602, message: 'Unknown tool: up__add' });
    await sleep(300);
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
    writeFileSync(join(dir, '10-guests.yaml'), GUESTS_ADD);
    await sleep(500);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo']);
    expect(changes(bob)).toEqual([]);
    process.emit('SIGHUP', 'SIGHUP');
    await until('bob list_changed after SIGHUP', () => changes(bob).length > 0, 2000);
    expect(toolNames(await modernList(gw.url, BOB))).toEqual(['up__echo', 'up__add']);
    expect(logged(gw.logs, 'policy reloaded').at(-1)).toMatchObject({ reason: 'SIGHUP' });
  });
});
