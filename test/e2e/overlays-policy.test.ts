// Overlays and policy together: rules are written for the name clients see, and judge the
// arguments as they will run (fixed values included), so a rule can rely on what the overlay
// fixed; the audit record names the overlaid tool and the upstream's own name.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { overlaysCommand } from '../../src/cli/overlays-command.ts';
import { startTicketUpstream, type TicketUpstream } from '../fixtures/ticket-upstream.ts';
import { auditRequests, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML, modernCall, modernList, policyDir, toolNames } from '../harness/policy-env.ts';

// Only calls whose project is "web" are allowed: the client never sends a project, the overlay does.
const RULES = `
rules:
  - id: analysts-file-web-bugs
    effect: allow
    when:
      principal: [{ groups: [analysts] }]
      tool: file_bug
      arguments: { required: [project], properties: { project: { const: web } } }
`;

let tickets: TicketUpstream;
let gw: TestGateway;

beforeAll(async () => {
  tickets = await startTicketUpstream();
  const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-overlay-policy-')), 'gatehouse.yaml');
  writeFileSync(file, `${IDENTITY_YAML}\npolicy: { dir: "${policyDir({ '10-rules.yaml': RULES })}", watch: false }\nupstreams:\n  - { name: tickets, url: "${tickets.url}" }\noverlays:\n  tools:\n    - { tool: create_ticket, upstream: tickets, name: file_bug, arguments: { project: { fixed: web } } }\n`);
  expect(await overlaysCommand(['confirm', '--config', file])).toBe(0);
  gw = await startTestGateway(readFileSync(file, 'utf8'));
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await tickets?.close();
});

it('a rule on the overlaid name sees the fixed argument and allows the call', async () => {
  expect(toolNames(await modernList(gw.url, ALICE))).toEqual(['file_bug']);
  const r = await modernCall(gw.url, ALICE, 'file_bug', { title: 'broken' });
  expect(JSON.parse(r.json.result.content[0].text)).toEqual({ tool: 'create_ticket', args: { title: 'broken', project: 'web' } });
  await expect.poll(() => auditRequests(gw).find((rec) => rec.rpcId === r.json.id)).toMatchObject({
    outcome: 'ok',
    decision: { effect: 'allow', ruleId: 'analysts-file-web-bugs' },
    name: 'file_bug',
    upstream: 'tickets',
    upstreamName: 'create_ticket',
  });
});

it('a caller no rule allows sees nothing and gets the unknown-tool error', async () => {
  expect(toolNames(await modernList(gw.url, BOB))).toEqual([]);
  const r = await modernCall(gw.url, BOB, 'file_bug', { title: 'x' });
  expect(r.json.error).toEqual({ code: -32602, message: 'Unknown tool: file_bug' });
  expect(tickets.calls.map((c) => c.args.title)).toEqual(['broken']);
});
