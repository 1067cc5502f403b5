// The approval paths a client cannot see coming: a rule whose approver is the calling user
// falls back to the console for a client that cannot elicit, and a call waiting for a
// person keeps its stream alive with progress notifications (issue: approvals).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONSOLE_CSRF_HEADER, CONSOLE_CSRF_VALUE } from '../../src/approvals/console-routes.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { openSse } from '../harness/sse-messages.ts';
import { freePort } from '../harness/free-port.ts';
import { APPROVER_KEY as APPROVER, approvalsIdentityYaml, CALLER_KEY as CALLER } from '../harness/approvals.ts';

let upstream: ModernUpstream;
let gw: TestGateway;
let origin: string;

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-fallback-'));
  writeFileSync(join(dir, 'rules.yaml'), `rules:
  - { id: add-user-or-console, effect: approve, when: { tool: [up__add] }, approval: { approver: user, fallback: console } }
`);
  const port = await freePort();
  gw = await startTestGateway(`
${approvalsIdentityYaml('http://gatehouse.test/mcp')}
policy: { dir: "${dir}" }
approvals:
  keys: ["${'3'.repeat(64)}"]
  publicUrl: http://127.0.0.1:${port}
  console: { approvers: { groups: [approvers] } }
upstreams:
  - { name: up, url: "${upstream.url}" }
`, process.env, { port });
  origin = `http://127.0.0.1:${port}`;
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

async function approveOnConsole(name: string): Promise<void> {
  const id = await vi.waitUntil(async () => {
    const list = await (await fetch(`${origin}/approvals/api/pending`, { headers: { authorization: `Bearer ${APPROVER}` } })).json();
    return (list.approvals as { id: string; name: string }[]).find((a) => a.name === name)?.id;
  }, { timeout: 10_000, interval: 50 });
  const r = await fetch(`${origin}/approvals/${id}/decision`, {
    method: 'POST',
    headers: { authorization: `Bearer ${APPROVER}`, 'content-type': 'application/json', [CONSOLE_CSRF_HEADER]: CONSOLE_CSRF_VALUE, origin },
    body: JSON.stringify({ decision: 'approve' }),
  });
  expect(r.status).toBe(200);
}

describe('approval fallback and waiting', () => {
  it('a client that cannot elicit is handed to the fallback channel instead of refused', async () => {
    const pending = postJson(gw.url, modernBody(1, 'tools/call', { name: 'up__add', arguments: { a: 4, b: 5 } }), modernHeaders('tools/call', 'up__add', { 'x-api-key': CALLER }));
    await approveOnConsole('up__add');
    expect((await pending).json.result.content).toEqual([{ type: 'text', text: '9' }]);
  });

  it('keeps a waiting call alive with progress notifications on its stream, then answers', async () => {
    const { response, sse } = await openSse(gw.url, {
      method: 'POST',
      headers: modernHeaders('tools/call', 'up__add', { 'x-api-key': CALLER }),
      body: JSON.stringify(modernBody(2, 'tools/call', { name: 'up__add', arguments: { a: 1, b: 1 }, _meta: { progressToken: 'wait-1' } })),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    await sse.waitFor(1, 12_000);
    expect(sse.messages[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'wait-1', message: 'waiting for approval (console)' } });
    await approveOnConsole('up__add');
    await sse.waitFor(2, 10_000);
    expect(sse.messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: '2' }] } });
    sse.close();
  }, 30_000);
});
