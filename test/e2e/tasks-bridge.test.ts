// A 2025-11-25 upstream's core tasks (SDK 1.x task support) bridged to 2026-07-28 clients as
// the tasks extension (README, Tasks): raw 2026-07-28 requests from alice and bob (API keys)
// that declare io.modelcontextprotocol/tasks. The gateway asks the upstream for the task the
// client cannot ask for, shows it in the extension's shapes under an id bound to the caller,
// inlines the result in tasks/get once done, and turns tasks/cancel into the upstream's.
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
let gw: TestGateway;
let id = 1;

beforeAll(async () => {
  upstream = await startTaskUpstream();
  gw = await startTestGateway(`
${IDENTITY_YAML}
policy: { dir: "${policyDir({ '10-rules.yaml': 'rules:\n  - { id: everyone, effect: allow, when: { tool: "up__*" } }\n' })}", watch: false }
audit: { dir: "${join(mkdtempSync(join(tmpdir(), 'gatehouse-btasks-')), 'trail')}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
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

  it('another principal gets unknown task; cancel reaches the upstream and acks empty; input is not bridged', async () => {
    const taskId: string = (await startJob(ALICE, 'x3')).json.result.taskId;
    const upstreamId = upstream.taskIds().at(-1)!;
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) expect((await rpc(BOB, method, { taskId, inputResponses: {} })).json.error).toMatchObject({ code: -32602, message: 'Unknown task' });
    expect((await rpc(ALICE, 'tasks/update', { taskId, inputResponses: {} })).json.error).toMatchObject({ code: -32602, message: expect.stringContaining('not bridged') });
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
});
