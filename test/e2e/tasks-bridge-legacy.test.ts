// A 2026-07-28 upstream's tasks (the extension io.modelcontextprotocol/tasks) bridged to
// 2025-11-25 clients as core tasks (README, Tasks): real SDK 1.x clients (alice and bob, API
// keys) that declared tasks, in front of the raw server speaking the extension. The gateway
// declares the extension upstream for a call that asks for a task, answers the core
// CreateTaskResult under an id bound to the caller, makes tasks/result out of polling the
// upstream's tasks/get (asking the task's questions on the tasks/result stream and answering
// them with tasks/update), keeps tasks/list itself, and refuses to cancel a task that ended.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startModernTaskUpstream, type ModernTaskUpstream } from '../fixtures/modern-task-upstream.ts';
import { auditEvents, auditRequests, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, BOB, IDENTITY_YAML, legacySession, policyDir } from '../harness/policy-env.ts';

const EXT = 'io.modelcontextprotocol/tasks';
const RELATED = 'io.modelcontextprotocol/related-task';
const CAPS = { tasks: { list: {}, cancel: {} }, elicitation: {} };

// The official 2025-11-25 schema (test/spec): what a 2025-11-25 client is sent must fit it.
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(JSON.parse(readFileSync(new URL('../spec/2025-11-25/schema.json', import.meta.url), 'utf8')), 'core');
const expectValid = (def: string, value: unknown) => {
  const validate = ajv.getSchema(`core#/$defs/${def}`)!;
  expect(validate(value) ? [] : validate.errors, def).toEqual([]);
};

let upstream: ModernTaskUpstream;
let slow: ModernTaskUpstream;
let gw: TestGateway;
let alice: LegacyClient;
let bob: LegacyClient;
let plain: LegacyClient;
const asked: Record<string, unknown>[] = [];

beforeAll(async () => {
  [upstream, slow] = await Promise.all([startModernTaskUpstream(), startModernTaskUpstream()]);
  gw = await startTestGateway(`
${IDENTITY_YAML}
policy: { dir: "${policyDir({ '10-rules.yaml': 'rules:\n  - { id: everyone, effect: allow, when: { tool: "*" } }\n' })}", watch: false }
audit: { dir: "${join(mkdtempSync(join(tmpdir(), 'gatehouse-ltasks-')), 'trail')}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
  - { name: slow, url: "${slow.url}", timeout: 1s }
`);
  await gw.waitUp();
  alice = await connectLegacyClient(gw.url, { capabilities: CAPS, headers: ALICE });
  alice.setRequestHandler(ElicitRequestSchema, async (r) => {
    asked.push(r.params as Record<string, unknown>);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  bob = await connectLegacyClient(gw.url, { capabilities: CAPS, headers: BOB });
  plain = await connectLegacyClient(gw.url, { headers: ALICE });
});

afterAll(async () => {
  await Promise.all([alice?.close(), bob?.close(), plain?.close()]);
  await gw?.close();
  await Promise.all([upstream?.close(), slow?.close()]);
});

const startJob = (client: LegacyClient, label: string, name = 'up__job') => client.request({ method: 'tools/call', params: { name, arguments: { label }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
const refusal = async (p: Promise<unknown>) => {
  const e = (await p.then(() => undefined, (x: unknown) => x)) as { code?: number; message?: string } | undefined;
  return { code: e?.code, message: e?.message };
};
const sentUpstream = (method: string) => upstream.received.filter((r) => r.method === method);

describe('legacy client, modern upstream: the tasks extension bridged to core tasks', () => {
  it('declares tasks at initialize and lists the task-only tool, with execution, only to clients that declared tasks', async () => {
    expect(alice.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const declared = await alice.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    expect(declared.tools.find((t) => t.name === 'up__job')?.execution).toEqual({ taskSupport: 'required' });
    const undeclared = await plain.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    expect(undeclared.tools.map((t) => t.name)).not.toContain('up__job');
    expect((await refusal(plain.request({ method: 'tools/call', params: { name: 'up__job', arguments: { label: 'p' } } }, CallToolResultSchema))).code).toBe(-32602);
    expect(auditRequests(gw).filter((r) => r.name === 'up__job').at(-1)).toMatchObject({ decision: { effect: 'hidden', ruleId: 'tasks' } });
  });

  it('creates the task with the extension declared upstream, answers core shapes, and tasks/result waits for the end', async () => {
    const created = await startJob(alice, 'c1');
    const id = created.task.taskId;
    const upstreamId = upstream.taskIds().at(-1)!;
    expect(id).toMatch(/^gt1\./);
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 50 });
    const call = sentUpstream('tools/call').at(-1)!;
    expect(call.params.task).toBeUndefined();
    expect((call.params._meta as Record<string, any>)['io.modelcontextprotocol/clientCapabilities'].extensions).toEqual({ [EXT]: {} });
    expect(await alice.experimental.tasks.getTask(id)).toMatchObject({ taskId: id, status: 'working', ttl: 60_000 });
    expect(sentUpstream('tasks/get').at(-1)).toMatchObject({ params: { taskId: upstreamId }, mcpName: upstreamId });

    const polls = sentUpstream('tasks/get').length;
    const result = alice.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    // tasks/result is polling the upstream; the task ends only then.
    await expect.poll(() => sentUpstream('tasks/get').length).toBeGreaterThan(polls);
    upstream.finish(upstreamId);
    const done = await result;
    expect(done.content).toEqual([{ type: 'text', text: 'done c1' }]);
    expect(done._meta?.[RELATED]).toEqual({ taskId: id });
    expect(auditRequests(gw).filter((r) => r.task?.id === id).map((r) => [r.method, r.task.status])).toEqual([
      ['tools/call', 'working'],
      ['tasks/get', 'working'],
      ['tasks/result', 'completed'],
    ]);
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === id)?.detail).toMatchObject({ status: 'completed', seen: expect.stringMatching(/^(tasks\/result|notifications\/tasks)$/), upstreamTaskId: upstreamId });
  });

  it("puts the task's question to the client on the tasks/result stream, naming the task, and answers it upstream with tasks/update", async () => {
    const id = (await startJob(alice, 'q1', 'up__ask_job')).task.taskId;
    const upstreamId = upstream.taskIds().at(-1)!;
    expect((await alice.experimental.tasks.getTask(id)).status).toBe('input_required');
    const result = await alice.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'answered Ada' }]);
    expect(asked.at(-1)).toMatchObject({ message: 'Which name?', _meta: { [RELATED]: { taskId: id } } });
    expect(sentUpstream('tasks/update').at(-1)?.params).toMatchObject({ taskId: upstreamId, inputResponses: { [`${upstreamId}-name`]: { action: 'accept', content: { name: 'Ada' } } } });
  });

  it('a question the client cannot answer (no elicitation declared) fails the tasks/result with a clear error, and nothing is sent upstream', async () => {
    const noInput = await connectLegacyClient(gw.url, { capabilities: { tasks: { list: {}, cancel: {} } }, headers: ALICE });
    try {
      const id = (await startJob(noInput, 'q2', 'up__ask_job')).task.taskId;
      const updates = sentUpstream('tasks/update').length;
      const e = await refusal(noInput.experimental.tasks.getTaskResult(id, CallToolResultSchema));
      expect(e).toEqual({ code: -32603, message: expect.stringContaining('elicitation/create') });
      expect(sentUpstream('tasks/update')).toHaveLength(updates);
      expect(auditRequests(gw).filter((r) => r.method === 'tasks/result' && r.task?.id === id).at(-1)).toMatchObject({ outcome: 'error', task: { status: 'input_required' } });
    } finally {
      await noInput.close();
    }
  });

  it('a question of a kind no 2025-11-25 client is asked fails the tasks/result with a clear error', async () => {
    const id = (await startJob(alice, 'odd', 'up__ask_job')).task.taskId;
    const e = await refusal(alice.experimental.tasks.getTaskResult(id, CallToolResultSchema));
    expect(e).toEqual({ code: -32603, message: expect.stringContaining('input the gateway cannot put to a 2025-11-25 client') });
  });

  it('a client that cancels its tasks/result stops the polling; the task goes on', async () => {
    const id = (await startJob(alice, 'c2')).task.taskId;
    const polls = sentUpstream('tasks/get').length;
    const abort = new AbortController();
    const result = alice.experimental.tasks.getTaskResult(id, CallToolResultSchema, { signal: abort.signal });
    await expect.poll(() => sentUpstream('tasks/get').length).toBeGreaterThan(polls);
    abort.abort();
    await expect(result).rejects.toThrow();
    await expect.poll(() => auditRequests(gw).filter((r) => r.method === 'tasks/result' && r.task?.id === id).at(-1)).toMatchObject({ outcome: 'cancelled' });
    expect((await alice.experimental.tasks.getTask(id)).status).toBe('working');
  });

  it("tasks/list shows each principal its own tasks, from the gateway's ledger", async () => {
    const mine = (await startJob(alice, 'l1')).task.taskId;
    const bobs = (await startJob(bob, 'l2')).task.taskId;
    const listed = (await alice.experimental.tasks.listTasks()).tasks;
    expect(listed.find((t) => t.taskId === mine)).toMatchObject({ status: 'working', ttl: 60_000 });
    expect(listed.map((t) => t.taskId)).not.toContain(bobs);
    expect((await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([bobs]);
    expect(sentUpstream('tasks/list')).toEqual([]);
  });

  it('tasks/cancel reaches the upstream and answers the task; a task that has ended cannot be cancelled', async () => {
    const id = (await startJob(alice, 'x1')).task.taskId;
    const upstreamId = upstream.taskIds().at(-1)!;
    expect(await alice.experimental.tasks.cancelTask(id)).toMatchObject({ taskId: id, status: 'cancelled' });
    expect(upstream.task(upstreamId)?.status).toBe('cancelled');
    expect(await refusal(alice.experimental.tasks.cancelTask(id))).toMatchObject({ code: -32602, message: expect.stringContaining('cancelled') });
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === id)?.detail).toMatchObject({ status: 'cancelled', seen: expect.stringMatching(/^(tasks\/cancel|notifications\/tasks)$/) });
    expect((await refusal(alice.experimental.tasks.getTaskResult(id, CallToolResultSchema))).message).toContain('cancelled');
  });

  it("a failed task: tasks/result answers the task's own error", async () => {
    const id = (await startJob(alice, 'f1')).task.taskId;
    upstream.fail(upstream.taskIds().at(-1)!, 'the job broke');
    expect(await refusal(alice.experimental.tasks.getTaskResult(id, CallToolResultSchema))).toEqual({ code: -32603, message: expect.stringContaining('the job broke') });
  });

  it("another principal gets 'unknown task' for get, result and cancel, and nothing reaches the upstream", async () => {
    const id = (await startJob(alice, 'o1')).task.taskId;
    const before = upstream.received.length;
    const missing = await refusal(bob.experimental.tasks.getTask('gt1.dXA.bm9uZQ.AAAAAAAAAAAAAAAAAAAAAA'));
    expect(missing.code).toBe(-32602);
    expect(await refusal(bob.experimental.tasks.getTask(id))).toEqual(missing);
    expect(await refusal(bob.experimental.tasks.getTaskResult(id, CallToolResultSchema))).toEqual(missing);
    expect(await refusal(bob.experimental.tasks.cancelTask(id))).toEqual(missing);
    expect(upstream.received.length).toBe(before);
  });

  it("tasks/result is bounded by the upstream's timeout; an upstream gone mid-task answers an error", async () => {
    const id = (await startJob(alice, 's1', 'slow__job')).task.taskId;
    const late = await refusal(alice.experimental.tasks.getTaskResult(id, CallToolResultSchema));
    expect(late.message).toContain('slow');
    await slow.close();
    const gone = await refusal(alice.experimental.tasks.getTask(id));
    expect(gone.message).toContain('slow');
    expect(auditRequests(gw).filter((r) => r.task?.id === id && r.method.startsWith('tasks/')).map((r) => [r.method, r.outcome])).toEqual([
      ['tasks/result', 'error'],
      ['tasks/get', 'error'],
    ]);
  });

  it('answers in shapes valid for 2025-11-25: CreateTaskResult, GetTaskResult, ListTasksResult, CancelTaskResult, the tasks/result result', async () => {
    const raw = await legacySession(gw.url, ALICE, { tasks: { list: {}, cancel: {} } });
    const created = (await raw('tools/call', { name: 'up__job', arguments: { label: 'v1' }, task: { ttl: 60_000 } })).json.result;
    expectValid('CreateTaskResult', created);
    const taskId = created.task.taskId;
    expectValid('GetTaskResult', (await raw('tasks/get', { taskId })).json.result);
    expectValid('ListTasksResult', (await raw('tasks/list', {})).json.result);
    upstream.finish(upstream.taskIds().at(-1)!);
    const result = (await raw('tasks/result', { taskId })).json.result;
    expectValid('CallToolResult', result);
    expect(result._meta[RELATED]).toEqual({ taskId });
    const other = (await raw('tools/call', { name: 'up__job', arguments: { label: 'v2' }, task: { ttl: 60_000 } })).json.result.task.taskId;
    expectValid('CancelTaskResult', (await raw('tasks/cancel', { taskId: other })).json.result);
  });
});
