// Overlays that do not fit their upstream's definition, found when they meet its lists: by
// `gatehouse overlays confirm` (a config error naming file, line, path and reason, exit 2,
// nothing written) and by a running gateway (the item is held back, the error logged and
// audited). And `gatehouse catalog show`: what one caller sees, with each item's origin.
// The CLI runs as a real process against real upstreams on 127.0.0.1.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startTicketUpstream, type TicketUpstream } from '../fixtures/ticket-upstream.ts';
import { killStarted, runCliToEnd } from '../harness/cli-process.ts';
import { auditEvents, startTestGateway } from '../harness/gateway.ts';
import { logged, policyDir } from '../harness/policy-env.ts';

let tickets: TicketUpstream;
let modern: ModernUpstream;
const work = mkdtempSync(join(tmpdir(), 'gatehouse-overlay-errors-'));

beforeAll(async () => {
  [tickets, modern] = await Promise.all([startTicketUpstream(), startModernUpstream({ name: 'modern' })]);
});

afterAll(async () => {
  killStarted();
  await Promise.all([tickets?.close(), modern?.close()]);
});

const upstreams = (): string => `upstreams:\n  - { name: tickets, url: "${tickets.url}" }\n  - { name: modern, url: "${modern.url}" }\n`;

// Line numbers below count from the first line of the file: upstreams take lines 1-3.
const BAD = `overlays:
  tools:
    - { tool: nope, upstream: tickets }
    - { tool: create_ticket, upstream: tickets, arguments: { title: { hidden: true } } }
    - { tool: search, upstream: tickets, name: modern__echo }
    - { tool: add, upstream: modern, arguments: { a: { enum: [1, 2.5] } } }
    - { tool: create_ticket_x, arguments: {} }
    - { tool: modern__slow, arguments: { ms: { maximum: 10, minimum: -5 } } }
  prompts:
    - { prompt: summarize, upstream: tickets, arguments: { text: { hidden: true } } }
`;

const REASONS: [string, number, string][] = [
  ['/overlays/tools/0', 6, 'upstream "tickets" lists no tool "nope"'],
  ['/overlays/tools/1', 7, '/arguments/title/hidden: the upstream requires "title": a hidden required argument needs a `fixed` value'],
  ['/overlays/tools/2', 8, 'the rename to "modern__echo" collides with the tool "modern__echo" of upstream "modern"'],
  ['/overlays/tools/3', 9, '/arguments/a/enum: not a subset of the upstream schema: the upstream does not accept 2.5'],
  ['/overlays/tools/4', 10, 'no tool is exposed as "create_ticket_x"'],
  ['/overlays/tools/5', 11, "/arguments/ms/minimum: not a subset of the upstream schema: minimum -5 is below the upstream's minimum 0"],
  ['/overlays/prompts/0', 13, '/arguments/text/hidden: the upstream requires "text": a hidden required argument needs a `fixed` value'],
];

describe('an overlay that does not fit its upstream definition', () => {
  it('is a config error for `gatehouse overlays confirm`, with file, line, path and reason, and nothing is written', async () => {
    const file = join(work, 'bad.yaml');
    const text = `${upstreams()}${BAD}`;
    writeFileSync(file, text);
    const r = await runCliToEnd(['overlays', 'confirm', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('gatehouse: invalid overlays (nothing written)');
    for (const [path, line, reason] of REASONS) expect(r.stderr).toContain(`${file}:${line}:1 ${path}: ${reason}`);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('holds its item back in a running gateway, logged and audited as a config error', async () => {
    const gw = await startTestGateway(`${upstreams()}${BAD}`);
    try {
      await gw.waitUp();
      const client = await connectLegacyClient(gw.url);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['modern__echo', 'modern__query']));
      for (const held of ['tickets__create_ticket', 'tickets__search', 'modern__add', 'modern__slow']) expect(names).not.toContain(held);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).not.toContain('tickets__summarize');
      await expect(client.callTool({ name: 'tickets__create_ticket', arguments: { project: 'p', title: 't' } })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: tickets__create_ticket') });
      expect(tickets.calls).toEqual([]);
      await client.close();
      const errors = logged(gw.logs, 'invalid overlay');
      for (const [path, , reason] of REASONS) expect(errors).toContainEqual(expect.objectContaining({ level: 'error', overlay: expect.stringMatching(new RegExp(`gatehouse\\.yaml:\\d+ ${path}$`)), reason: expect.stringContaining(reason) }));
      await expect.poll(() => auditEvents(gw).filter((e) => e.event === 'overlay_changed').map((e) => e.detail.state)).toEqual(expect.arrayContaining(['invalid', 'missing']));
    } finally {
      await gw.close();
    }
  });

  it('without a hash it is held back as unconfirmed until `gatehouse overlays confirm`', async () => {
    const gw = await startTestGateway(`${upstreams()}overlays:\n  tools:\n    - { tool: search, upstream: tickets, name: find_tickets }\n`);
    try {
      await gw.waitUp();
      const client = await connectLegacyClient(gw.url);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('find_tickets');
      expect(names).not.toContain('tickets__search');
      await client.close();
      expect(logged(gw.logs, 'overlaid item held back').at(-1)).toMatchObject({ level: 'warn', state: 'unconfirmed', target: 'search', current: expect.stringMatching(/^[0-9a-f]{64}$/) });
    } finally {
      await gw.close();
    }
  });
});

describe('gatehouse catalog show', () => {
  it('prints what a caller sees after overlays and policy, with each item’s upstream, own name, overlay and rule', async () => {
    const dir = policyDir({ '10-rules.yaml': 'rules:\n  - { id: support-tickets, effect: allow, when: { principal: [{ groups: [support] }], tool: ["file_bug", "tickets__*"] } }\n' });
    const file = join(work, 'show.yaml');
    writeFileSync(file, `policy: { dir: "${dir}", watch: false }\n${upstreams()}overlays:\n  tools:\n    - { tool: create_ticket, upstream: tickets, name: file_bug }\n`);
    expect((await runCliToEnd(['overlays', 'confirm', '--config', file])).code).toBe(0);
    const support = await runCliToEnd(['catalog', 'show', '--config', file, '--as', '{"subject":"ann","groups":["support"]}']);
    expect(support.stderr).toBe('');
    expect(support.code).toBe(0);
    expect(support.stdout).toMatch(new RegExp(`^  file_bug  <- tickets "create_ticket"  overlay ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:7 /overlays/tools/0  rule support-tickets$`, 'm'));
    expect(support.stdout).toMatch(/^ {2}tickets__search {2}<- tickets "search" {2}rule support-tickets$/m);
    expect(support.stdout).toMatch(/^ {2}\(hidden\) modern__echo {2}<- modern "echo" {2}rule default/m);
    const json = await runCliToEnd(['catalog', 'show', '--config', file, '--json']);
    const tools = (JSON.parse(json.stdout) as { tools: { name: string; state: string; original: string; overlay?: string }[] }).tools;
    expect(tools.find((t) => t.name === 'file_bug')).toMatchObject({ state: 'hidden', original: 'create_ticket', overlay: expect.stringContaining('/overlays/tools/0') });
  });

  it('exits 2 on a principal it cannot read', async () => {
    const file = join(work, 'plain.yaml');
    writeFileSync(file, upstreams());
    const r = await runCliToEnd(['catalog', 'show', '--config', file, '--as', '{"subject":']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--as: invalid JSON');
  });
});
