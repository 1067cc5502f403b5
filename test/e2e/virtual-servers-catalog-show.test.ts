// `gatehouse catalog show --server S` and `gatehouse overlays confirm` over a server's own
// overlays, through the real CLI against a real legacy upstream on 127.0.0.1: what a caller
// sees on the server with each item's origin (upstream, own name, overlay, rule, the name
// policy judges), an unknown server refused with exit 2, and the server overlays that cannot
// apply reported with file, line, path under /servers/N/overlays and reason.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTicketUpstream, type TicketUpstream } from '../fixtures/ticket-upstream.ts';
import { killStarted, runCliToEnd } from '../harness/cli-process.ts';
import { policyDir } from '../harness/policy-env.ts';

let tickets: TicketUpstream;
const work = mkdtempSync(join(tmpdir(), 'gatehouse-server-catalog-'));

beforeAll(async () => {
  tickets = await startTicketUpstream();
});

afterAll(async () => {
  killStarted();
  await tickets?.close();
});

const head = (policy: string): string => `policy: { dir: "${policyDir({ '10-rules.yaml': policy })}", defaultEffect: allow, watch: false }
upstreams:
  - { name: tickets, url: "${tickets.url}" }
`;

describe('gatehouse catalog show --server', () => {
  const config = (): string => `${head('rules:\n  - { id: ops-no-search, effect: deny, when: { server: ops, tool: tickets__search } }\n')}servers:
  - name: ops
    prefix: none
    overlays:
      tools:
        - { tool: create_ticket, name: file_incident, arguments: { project: { fixed: ops } } }
`;

  it("prints what a caller sees on the server, with each item's upstream, own name, overlay, rule and policy name", async () => {
    const file = join(work, 'show.yaml');
    writeFileSync(file, config());
    expect((await runCliToEnd(['overlays', 'confirm', '--config', file])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/name: file_incident, arguments: \{ project: \{ fixed: ops \} \}, sha256: [0-9a-f]{64} \}/);
    const json = await runCliToEnd(['catalog', 'show', '--config', file, '--server', 'ops', '--as', '{"subject":"ann"}', '--json']);
    expect(json.code).toBe(0);
    const tools = JSON.parse(json.stdout).tools;
    expect(tools).toEqual([
      { name: 'file_incident', upstream: 'tickets', original: 'create_ticket', overlay: `${file}:9 /servers/0/overlays/tools/0`, rule: 'default', state: 'visible', reason: expect.any(String) },
      { name: 'search', policyName: 'tickets__search', upstream: 'tickets', original: 'search', rule: 'ops-no-search', state: 'hidden', reason: expect.any(String) },
    ]);
    const plain = await runCliToEnd(['catalog', 'show', '--config', file, '--server', 'ops']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('tools: 1 visible to anonymous on server ops, 1 not');
    expect(plain.stdout).toContain(`  file_incident  <- tickets "create_ticket"  overlay ${file}:9 /servers/0/overlays/tools/0  rule default`);
    expect(plain.stdout).toContain('  (hidden) search (policy name tickets__search)  <- tickets "search"  rule ops-no-search');
    // The default endpoint has no overlay: its own names, nothing denied.
    const main = JSON.parse((await runCliToEnd(['catalog', 'show', '--config', file, '--json'])).stdout).tools;
    expect(main.map((e: { name: string; state: string }) => [e.name, e.state])).toEqual([['tickets__create_ticket', 'visible'], ['tickets__search', 'visible']]);
  });

  it('refuses a server the config does not have, naming the ones it has, with exit 2', async () => {
    const file = join(work, 'show.yaml');
    const r = await runCliToEnd(['catalog', 'show', '--config', file, '--server', 'nope']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toContain('gatehouse catalog show: no server is named "nope" (servers: ops)');
  });
});

describe("a server's overlay that does not fit the server's view", () => {
  it('is a config error of `overlays confirm` under /servers/N/overlays with file, line and reason, and nothing is written', async () => {
    const file = join(work, 'bad.yaml');
    // Lines: policy 1, upstreams 2-3, servers 4, ops 5-10, bugs 11-15.
    const text = `${head('rules: []\n')}servers:
  - name: ops
    prefix: none
    tools: { exclude: [search] }
    overlays:
      tools:
        - { tool: search, description: not on this server }
  - name: bugs
    prefix: none
    overlays:
      tools:
        - { tool: search, name: tickets__create_ticket }
`;
    writeFileSync(file, text);
    const r = await runCliToEnd(['overlays', 'confirm', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'gatehouse: invalid overlays (nothing written)',
      `${file}:10:1 /servers/0/overlays/tools/0: no tool is exposed as "search"`,
      `${file}:15:1 /servers/1/overlays/tools/0: the rename to "tickets__create_ticket" collides with the name policy knows the tool "create_ticket" of upstream "tickets" by`,
    ]);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
