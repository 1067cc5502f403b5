// The approval paths a client cannot see coming: a rule whose approver is the calling user
// falls back to the console for a client that cannot elicit, and a call waiting for a
// person keeps its stream alive with progress notifications (issue: approvals).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { openSse } from '../harness/sse-messages.ts';
import { approvalsIdentityYaml, CALLER_KEY as CALLER } from '../harness/approvals.ts';
import { approveOnConsole, rulesDir, startApprovalsGateway } from '../harness/approvals-gateway.ts';

let upstream: ModernUpstream;
let gw: TestGateway;
let origin: string;

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  ({ gw, origin } = await startApprovalsGateway({
    identity: approvalsIdentityYaml('http://gatehouse.test/mcp'),
    policyDir: rulesDir('gatehouse-fallback-', `rules:
  - { id: add-user-or-console, effect: approve, when: { tool: [up__add] }, approval: { approver: user, fallback: console } }
`),
    upstreamUrl: upstream.url,
    key: '3'.repeat(64),
  }));
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe('approval fallback and waiting', () => {
  it('a client that cannot elicit is handed to the fallback channel instead of refused', async () => {
    const pending = postJson(gw.url, modernBody(1, 'tools/call', { name: 'up__add', arguments: { a: 4, b: 5 } }), modernHeaders('tools/call', 'up__add', { 'x-api-key': CALLER }));
    expect(await approveOnConsole(origin, 'up__add')).toBe(200);
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
    expect(await approveOnConsole(origin, 'up__add')).toBe(200);
    await sse.waitFor(2, 10_000);
    expect(sse.messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: '2' }] } });
    sse.close();
  }, 30_000);
});
