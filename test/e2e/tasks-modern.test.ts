// The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) through the gateway: raw
// 2026-07-28 clients (alice and bob, API keys; the installed SDK 2.x has no client side of
// the extension) in front of a server speaking the extension. Offered only to a request that
// declares the extension; `resultType: "task"` under a gateway id bound to the caller;
// tasks/get, tasks/update and tasks/cancel reach the upstream with Mcp-Name = its own task id,
// for the creator only; creation and end are audited.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernTaskUpstream, type ModernTaskUpstream } from '../fixtures/modern-task-upstream.ts';
import { auditEvents, auditRequests, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML, policyDir } from '../harness/policy-env.ts';

const EXT = 'io.modelcontextprotocol/tasks';
const DECLARED = { extensions: { [EXT]: {} } };
/** The poll, or the upstream's status notification on the gateway's listen, whichever came first. */
const SEEN = expect.stringMatching(/^(tasks\/get|notifications\/tasks)$/);
const POLICY = `
rules:
  - { id: everyone, effect: allow, when: { tool: "up__*" } }
  - { id: no-guest-jobs, effect: deny, when: { principal: [{ groups: [guests] }], tool: "up__job" } }
`;

let upstream: ModernTaskUpstream;
let gw: TestGateway;
let id = 1;

beforeAll(async () => {
  upstream = await startModernTaskUpstream();
  gw = await startTestGateway(`
${IDENTITY_YAML}
policy: { dir: "${policyDir({ '10-rules.yaml': POLICY })}", watch: false }
audit: { dir: "${join(mkdtempSync(join(tmpdir(), 'gatehouse-mtasks-')), 'trail')}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

/** One 2026-07-28 request; `name` is what Mcp-Name carries (the tool, or the task id). */
const rpc = (who: Record<string, string>, method: string, params: Record<string, unknown>, caps: Record<string, unknown> = DECLARED, name?: string) =>
  postJson(gw.url, modernBody(id++, method, params, caps), modernHeaders(method, name ?? ((params.name ?? params.taskId) as string | undefined), who));
const startJob = (who: Record<string, string>, label: string, caps: Record<string, unknown> = DECLARED) => rpc(who, 'tools/call', { name: 'up__job', arguments: { label } }, caps);

describe('modern client, modern upstream: the tasks extension', () => {
  it('advertises the extension in server/discover and lists the task-only tool only to requests that declare it', async () => {
    const discover = await rpc(ALICE, 'server/discover', {});
    expect(discover.json.result.capabilities.extensions[EXT]).toEqual({});
    const declared = await rpc(ALICE, 'tools/list', {});
    expect(declared.json.result.tools.find((t: { name: string }) => t.name === 'up__job')?.execution).toEqual({ taskSupport: 'required' });
    const plain = await rpc(ALICE, 'tools/list', {}, {});
    expect(plain.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['up__plain']);
    expect(plain.json.result.tools[0].execution).toBeUndefined();
  });

  it('creates a task under a gateway id, polls it to its inlined result, with Mcp-Name = the upstream id upstream; audited at creation and end', async () => {
    const created = await startJob(ALICE, 'm1');
    expect(created.json.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 50 });
    const taskId: string = created.json.result.taskId;
    const upstreamId = upstream.taskIds().at(-1)!;
    expect(taskId).toMatch(/^gt1\./);
    expect((await rpc(ALICE, 'tasks/get', { taskId })).json.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(upstream.received.filter((r) => r.method === 'tasks/get').at(-1)).toMatchObject({ params: { taskId: upstreamId }, mcpName: upstreamId });
    upstream.finish(upstreamId);
    const done = await rpc(ALICE, 'tasks/get', { taskId });
    expect(done.json.result).toMatchObject({ taskId, status: 'completed', result: { content: [{ type: 'text', text: 'done m1' }] } });
    const creation = auditRequests(gw).find((r) => r.method === 'tools/call' && r.task?.id === taskId);
    expect(creation).toMatchObject({ era: 'modern', name: 'up__job', decision: { effect: 'allow' }, task: { id: taskId, status: 'working' } });
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === taskId)?.detail).toMatchObject({ status: 'completed', seen: SEEN, principal: 'alice', createdBy: creation!.requestId });
  });

  it("another principal, an edited id and a missing task all get the same -32602 'Unknown task'; tasks/update passes for the creator", async () => {
    const taskId: string = (await startJob(ALICE, 'm2')).json.result.taskId;
    const missing = (await rpc(BOB, 'tasks/get', { taskId: `${taskId.slice(0, -3)}AAA` })).json.error;
    expect(missing).toMatchObject({ code: -32602, message: 'Unknown task' });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      expect((await rpc(BOB, method, { taskId, inputResponses: {} })).json.error).toEqual(missing);
    }
    expect(upstream.task(upstream.taskIds().at(-1)!)?.status).toBe('working');
    const update = await rpc(ALICE, 'tasks/update', { taskId, inputResponses: { q1: { action: 'accept', content: { ok: true } } } });
    expect(update.json.result).toMatchObject({ resultType: 'complete' });
    expect(upstream.task(upstream.taskIds().at(-1)!)?.updates).toEqual([{ q1: { action: 'accept', content: { ok: true } } }]);
  });

  it('tasks/cancel reaches the upstream; the next tasks/get shows and audits the end', async () => {
    const taskId: string = (await startJob(ALICE, 'm3')).json.result.taskId;
    const upstreamId = upstream.taskIds().at(-1)!;
    expect((await rpc(ALICE, 'tasks/cancel', { taskId })).json.result).toMatchObject({ resultType: 'complete' });
    expect(upstream.task(upstreamId)?.status).toBe('cancelled');
    expect((await rpc(ALICE, 'tasks/get', { taskId })).json.result.status).toBe('cancelled');
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === taskId)?.detail).toMatchObject({ status: 'cancelled', seen: SEEN });
  });

  it('policy denies at creation: no task upstream, the unknown-tool answer, a denied record', async () => {
    const before = upstream.taskIds().length;
    const denied = await startJob(BOB, 'b1');
    expect(denied.json.error.code).toBe(-32602);
    expect(upstream.taskIds()).toHaveLength(before);
    expect(auditRequests(gw).filter((r) => r.principal.subject === 'bob' && r.name === 'up__job').at(-1)).toMatchObject({ decision: { ruleId: 'no-guest-jobs' }, outcome: 'denied' });
  });

  it('a request that did not declare the extension gets no task: the upstream answers -32021 with requiredCapabilities', async () => {
    const before = upstream.taskIds().length;
    const refused = await startJob(ALICE, 'p1', {});
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    expect(upstream.taskIds()).toHaveLength(before);
    const sent = upstream.received.filter((r) => r.method === 'tools/call').at(-1)!;
    expect((sent.params._meta as Record<string, any>)['io.modelcontextprotocol/clientCapabilities'].extensions).toBeUndefined();
    expect((await rpc(ALICE, 'tasks/get', { taskId: 'gt1.x.y.z' }, {})).json.error.code).toBe(-32601);
  });

  it('checks Mcp-Name against the task id (-32020), and has no tasks/list or tasks/result in this era', async () => {
    const taskId: string = (await startJob(ALICE, 'm4')).json.result.taskId;
    const mismatch = await rpc(ALICE, 'tasks/get', { taskId }, DECLARED, 'some-other-task');
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.code).toBe(-32020);
    for (const method of ['tasks/list', 'tasks/result']) expect((await rpc(ALICE, method, method === 'tasks/result' ? { taskId } : {})).json.error.code).toBe(-32601);
  });
});
