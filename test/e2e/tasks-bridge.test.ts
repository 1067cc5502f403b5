// A 2025-11-25 upstream's core tasks (SDK 1.x task support) bridged to 2026-07-28 clients as
// the tasks extension (README, Tasks): raw 2026-07-28 requests from alice and bob (API keys)
// that declare io.modelcontextprotocol/tasks. The gateway asks the upstream for the task the
// client cannot ask for, shows it in the extension's shapes under an id bound to the caller,
// inlines the result in tasks/get once done, and turns tasks/cancel into the upstream's. A
// task's question, which core asks on the stream of a tasks/result, is shown as the
// extension's `inputRequests`, and tasks/update answers it upstream.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTaskUpstream, type TaskUpstream } from '../fixtures/task-upstream.ts';
import { auditEvents, auditRequests, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML, policyDir } from '../harness/policy-env.ts';

const EXT = 'io.modelcontextprotocol/tasks';
const DECLARED = { extensions: { [EXT]: {} } };

let upstream: TaskUpstream;
let doomed: TaskUpstream;
let gw: TestGateway;
let id = 1;

beforeAll(async () => {
  [upstream, doomed] = await Promise.all([startTaskUpstream(), startTaskUpstream()]);
  gw = await startTestGateway(`
${IDENTITY_YAML}
policy: { dir: "${policyDir({ '10-rules.yaml': 'rules:\n  - { id: everyone, effect: allow, when: { tool: "*" } }\n' })}", watch: false }
audit: { dir: "${join(mkdtempSync(join(tmpdir(), 'gatehouse-btasks-')), 'trail')}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
  - { name: doomed, url: "${doomed.url}" }
`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await doomed?.close();
});

const rpc = (who: Record<string, string>, method: string, params: Record<string, unknown>, caps: Record<string, unknown> = DECLARED) =>
  postJson(gw.url, modernBody(id++, method, params, caps), modernHeaders(method, (params.name ?? params.taskId) as string | undefined, who));
const startJob = (who: Record<string, string>, label: string, caps: Record<string, unknown> = DECLARED) => rpc(who, 'tools/call', { name: 'up__job', arguments: { label } }, caps);
const lastCall = () => upstream.received.map((r) => r.body as { method?: string; params?: Record<string, unknown> } | undefined).filter((b) => b?.method === 'tools/call').at(-1)!;

describe('modern client, legacy upstream: core tasks bridged to the tasks extension', () => {
  it('advertises the extension and lists the task-only tool, with execution, to requests that declare it', async () => {
    expect((await rpc(ALICE, 'server/discover', {})).json.result.capabilities.extensions[EXT]).toEqual({});
    const declared = (await rpc(ALICE, 'tools/list', {})).json.result.tools;
    expect(declared.find((t: { name: string }) => t.name === 'up__job')?.execution).toEqual({ taskSupport: 'required' });
    const plain = (await rpc(ALICE, 'tools/list', {}, {})).json.result.tools;
    expect(plain.map((t: { name: string }) => t.name)).not.toContain('up__job');
  });

  it('creates the task upstream with params.task and answers the extension CreateTaskResult; tasks/get inlines the result once done', async () => {
    const created = await startJob(ALICE, 'x1');
    const upstreamId = upstream.taskIds().at(-1)!;
    expect(lastCall().params?.task).toEqual({});
    const r = created.json.result;
    expect(r).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 50 });
    expect(r.task).toBeUndefined();
    expect(r.ttl).toBeUndefined();
    expect(r.taskId).toMatch(/^gt1\./);
    expect((await rpc(ALICE, 'tasks/get', { taskId: r.taskId })).json.result).toMatchObject({ resultType: 'complete', taskId: r.taskId, status: 'working' });
    await upstream.finish(upstreamId);
    const done = (await rpc(ALICE, 'tasks/get', { taskId: r.taskId })).json.result;
    expect(done).toMatchObject({ taskId: r.taskId, status: 'completed', result: { content: [{ type: 'text', text: 'done x1' }] } });
    expect(JSON.stringify(done)).not.toContain('related-task');
    expect(auditRequests(gw).find((q) => q.method === 'tools/call' && q.task?.id === r.taskId)).toMatchObject({ era: 'modern', name: 'up__job', task: { status: 'working' } });
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === r.taskId)?.detail).toMatchObject({ status: 'completed', upstreamTaskId: upstreamId });
  });

  it('a request without the extension gets -32021 with requiredCapabilities, and nothing is created', async () => {
    const before = upstream.taskIds().length;
    const refused = await startJob(ALICE, 'x2', {});
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    expect(upstream.taskIds()).toHaveLength(before);
  });

  it('another principal gets unknown task; cancel reaches the upstream and acks empty', async () => {
    const taskId: string = (await startJob(ALICE, 'x3')).json.result.taskId;
    const upstreamId = upstream.taskIds().at(-1)!;
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) expect((await rpc(BOB, method, { taskId, inputResponses: {} })).json.error).toMatchObject({ code: -32602, message: 'Unknown task' });
    // No question is open: the extension has answers to keys not outstanding ignored.
    expect((await rpc(ALICE, 'tasks/update', { taskId, inputResponses: { nothing: { action: 'cancel' } } })).json.result).toMatchObject({ resultType: 'complete' });
    expect((await rpc(ALICE, 'tasks/update', { taskId, inputResponses: 'yes' })).json.error).toMatchObject({ code: -32602, message: 'inputResponses must be an object' });
    expect((await rpc(ALICE, 'tasks/cancel', { taskId })).json.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    // Again, on a task that has ended: the extension's idempotent ack, where 2025-11-25 refuses.
    expect((await rpc(ALICE, 'tasks/cancel', { taskId })).json.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    expect((await upstream.task(upstreamId))?.status).toBe('cancelled');
    expect((await rpc(ALICE, 'tasks/get', { taskId })).json.result.status).toBe('cancelled');
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === taskId)?.detail).toMatchObject({ status: 'cancelled', seen: 'tasks/cancel' });
  });

  it('a tool that may run as a task runs plain for a 2026-07-28 client', async () => {
    const r = await rpc(ALICE, 'tools/call', { name: 'up__quick_job', arguments: { label: 'q' } });
    expect(r.json.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'quick q' }] });
    expect(lastCall().params?.task).toBeUndefined();
  });

  it("shows the question the upstream's task asks on tasks/result as inputRequests, and answers it upstream with tasks/update", async () => {
    const caps = { ...DECLARED, elicitation: {} };
    const taskId: string = (await rpc(ALICE, 'tools/call', { name: 'up__ask_job', arguments: { label: 'i1' } }, caps)).json.result.taskId;
    await expect.poll(async () => (await rpc(ALICE, 'tasks/get', { taskId }, caps)).json.result.status).toBe('input_required');
    const asking = (await rpc(ALICE, 'tasks/get', { taskId }, caps)).json.result;
    const [key, ...more] = Object.keys(asking.inputRequests);
    expect(more).toEqual([]);
    expect(asking.inputRequests[key!]).toEqual({ method: 'elicitation/create', params: { message: 'Which name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } });
    // Asked again on the next poll, under the same key, until answered.
    expect(Object.keys((await rpc(ALICE, 'tasks/get', { taskId }, caps)).json.result.inputRequests)).toEqual([key]);
    expect((await rpc(BOB, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { name: 'Mallory' } } } })).json.error).toMatchObject({ code: -32602, message: 'Unknown task' });
    expect((await rpc(ALICE, 'tasks/update', { taskId, inputResponses: { [key!]: 'Ada' } })).json.error).toMatchObject({ code: -32602, message: expect.stringContaining(`inputResponses["${key}"] must be an object`) });
    expect((await rpc(ALICE, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } } })).json.result).toMatchObject({ resultType: 'complete' });
    await expect.poll(async () => (await rpc(ALICE, 'tasks/get', { taskId }, caps)).json.result.status).toBe('completed');
    expect((await rpc(ALICE, 'tasks/get', { taskId }, caps)).json.result.result).toMatchObject({ content: [{ type: 'text', text: 'answered Ada' }] });
    const answered = upstream.received.map((r) => r.body as { id?: unknown; method?: string; result?: { content?: { name?: string } } } | undefined).filter((b) => b?.method === undefined && b?.result !== undefined);
    expect(answered.map((b) => b?.result?.content?.name)).toEqual(['Ada']);
    const updates = auditRequests(gw).filter((q) => q.method === 'tasks/update' && q.task?.id === taskId);
    expect(updates.map((q) => q.outcome)).toEqual(['error', 'ok']);
    expect(auditRequests(gw).filter((q) => q.method === 'tasks/update' && q.principal.subject === 'bob').at(-1)).toMatchObject({ outcome: 'error' });
  });

  it('a question the polling request cannot answer (no elicitation declared) is refused upstream, and the task fails', async () => {
    const asked: string = (await rpc(ALICE, 'tools/call', { name: 'up__ask_job', arguments: { label: 'i2' } })).json.result.taskId;
    await expect.poll(async () => (await rpc(ALICE, 'tasks/get', { taskId: asked })).json.result.status).toBe('failed');
    expect((await rpc(ALICE, 'tasks/get', { taskId: asked })).json.result.error).toMatchObject({ code: -32603 });
    const refused = upstream.received.map((r) => r.body as { method?: string; error?: { code: number } } | undefined).filter((b) => b?.method === undefined && b?.error !== undefined);
    expect(refused.at(-1)?.error?.code).toBe(-32601);
  });

  it('an upstream gone mid-task: tasks/get and tasks/cancel answer its error, each audited with the task', async () => {
    const taskId: string = (await startJob(ALICE, 'd1')).json.result.taskId;
    const onDoomed: string = (await rpc(ALICE, 'tools/call', { name: 'doomed__job', arguments: { label: 'd1' } })).json.result.taskId;
    await doomed.close();
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const e = (await rpc(ALICE, method, { taskId: onDoomed })).json.error;
      expect(e?.message).toContain('doomed');
    }
    expect(auditRequests(gw).filter((q) => q.task?.id === onDoomed && q.method.startsWith('tasks/')).map((q) => [q.method, q.outcome])).toEqual([
      ['tasks/get', 'error'],
      ['tasks/cancel', 'error'],
    ]);
    expect((await rpc(ALICE, 'tasks/get', { taskId })).json.result.status).toBe('working');
  });
});
