// Core tasks (MCP 2025-11-25 basic/utilities/tasks) through the gateway: real SDK 1.x clients
// (alice and bob, API keys) in front of a real SDK 1.x server with task support. A
// task-augmented tools/call is judged by policy and audited at creation; its id is the
// gateway's, bound to the caller; tasks/get, tasks/result, tasks/list and tasks/cancel reach the
// upstream for the creator only; the task's end is audited once; tools that run only as tasks
// are listed only to clients that declared tasks.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import type { TaskUpstream } from '../fixtures/task-upstream.ts';
import { CORE_TASKS, startCoreTaskBed, type CoreTaskBed } from '../harness/core-task-bed.ts';
import { auditEvents, auditRequests, type TestGateway } from '../harness/gateway.ts';
import { ALICE, policyDir } from '../harness/policy-env.ts';

const POLICY = `
rules:
  - { id: everyone, effect: allow, when: { tool: "up__*" } }
  - { id: no-guest-jobs, effect: deny, when: { principal: [{ groups: [guests] }], tool: "up__job" } }
`;
let bed: CoreTaskBed;
let upstream: TaskUpstream;
let gw: TestGateway;
let alice: LegacyClient;
let bob: LegacyClient;
let plain: LegacyClient;

beforeAll(async () => {
  bed = await startCoreTaskBed(`
policy: { dir: "${policyDir({ '10-rules.yaml': POLICY })}", watch: false }
audit: { dir: "${join(mkdtempSync(join(tmpdir(), 'gatehouse-tasks-')), 'trail')}" }`);
  ({ upstream, gw, alice, bob } = bed);
  plain = await connectLegacyClient(gw.url, { headers: ALICE });
});

afterAll(async () => {
  await plain?.close();
  await bed?.close();
});

const startJob = (client: LegacyClient, label: string) =>
  client.request({ method: 'tools/call', params: { name: 'up__job', arguments: { label }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);

describe('legacy client, legacy upstream: core tasks', () => {
  it('advertises tasks to a 2025-11-25 session and lists the task-only tool to clients that declared tasks', async () => {
    expect(alice.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
    const declared = await alice.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    const job = declared.tools.find((t) => t.name === 'up__job');
    expect(job?.execution?.taskSupport).toBe('required');
    const undeclared = await plain.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    expect(undeclared.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['up__plain', 'up__quick_job']));
    expect(undeclared.tools.map((t) => t.name)).not.toContain('up__job');
    expect(undeclared.tools.every((t) => t.execution === undefined)).toBe(true);
  });

  it('creates a task under a gateway id, polls it, and reads its result once finished; creation and end are audited', async () => {
    const created = await startJob(alice, 'a1');
    const id = created.task.taskId;
    const upstreamId = upstream.taskIds().at(-1)!;
    expect(id).toMatch(/^gt1\./);
    expect(id).not.toContain(upstreamId);
    expect((await alice.experimental.tasks.getTask(id)).status).toBe('working');
    await upstream.finish(upstreamId);
    await expect.poll(async () => (await alice.experimental.tasks.getTask(id)).status).toBe('completed');
    const result = await alice.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'done a1' }]);
    expect(JSON.stringify(result)).not.toContain(upstreamId);

    const creation = auditRequests(gw).find((r) => r.method === 'tools/call' && r.task?.id === id);
    expect(creation).toMatchObject({ name: 'up__job', decision: { effect: 'allow', ruleId: 'everyone' }, task: { id, status: 'working' }, principal: { subject: 'alice' } });
    await expect.poll(() => auditEvents(gw).filter((e) => e.event === 'task_ended' && e.detail.task === id)).toHaveLength(1);
    const end = auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === id)!;
    expect(end.detail).toMatchObject({ upstream: 'up', upstreamTaskId: upstreamId, tool: 'up__job', principal: 'alice', status: 'completed', createdBy: creation!.requestId });
  });

  it("another principal gets 'unknown task' for get, result and cancel, exactly as for a task that does not exist", async () => {
    const created = await startJob(alice, 'a2');
    const id = created.task.taskId;
    const refusal = async (p: Promise<unknown>) => {
      const e = (await p.then(() => undefined, (x: unknown) => x)) as { code?: number; message?: string } | undefined;
      return { code: e?.code, message: e?.message };
    };
    const missing = await refusal(bob.experimental.tasks.getTask('gt1.dXA.bm9uZQ.AAAAAAAAAAAAAAAAAAAAAA'));
    expect(missing.code).toBe(-32602);
    expect(await refusal(bob.experimental.tasks.getTask(id))).toEqual(missing);
    expect(await refusal(bob.experimental.tasks.getTaskResult(id, CallToolResultSchema))).toEqual(missing);
    expect(await refusal(bob.experimental.tasks.cancelTask(id))).toEqual(missing);
    expect(await refusal(alice.experimental.tasks.getTask(upstream.taskIds().at(-1)!))).toEqual(missing);
    expect((await upstream.task(upstream.taskIds().at(-1)!))?.status).toBe('working');
  });

  it('tasks/list shows each principal only its own tasks', async () => {
    const mine = await startJob(alice, 'a3');
    const bobs = await bob.request({ method: 'tools/call', params: { name: 'up__quick_job', arguments: { label: 'b1' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const aliceIds = (await alice.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
    const bobIds = (await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId);
    expect(aliceIds).toContain(mine.task.taskId);
    expect(aliceIds).not.toContain(bobs.task.taskId);
    expect(bobIds).toEqual([bobs.task.taskId]);
  });

  it('tasks/cancel reaches the upstream and the end is audited as cancelled', async () => {
    const created = await startJob(alice, 'a4');
    const upstreamId = upstream.taskIds().at(-1)!;
    const cancelled = await alice.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled).toMatchObject({ taskId: created.task.taskId, status: 'cancelled' });
    expect((await upstream.task(upstreamId))?.status).toBe('cancelled');
    const cancels = upstream.received.map((r) => r.body as { method?: string; params?: { taskId?: string } } | undefined).filter((b) => b?.method === 'tasks/cancel');
    expect(cancels.map((b) => b?.params?.taskId)).toContain(upstreamId);
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === created.task.taskId)?.detail).toMatchObject({ status: 'cancelled', seen: 'tasks/cancel' });
  });

  it('a task denied by policy is never created upstream, answers as an unknown tool, and is audited as denied', async () => {
    const before = upstream.taskIds().length;
    const e = (await startJob(bob, 'b2').then(() => undefined, (x: unknown) => x)) as { code?: number } | undefined;
    expect(e?.code).toBe(-32602);
    expect(upstream.taskIds()).toHaveLength(before);
    const rec = auditRequests(gw).filter((r) => r.method === 'tools/call' && r.principal.subject === 'bob' && r.name === 'up__job').at(-1);
    expect(rec).toMatchObject({ decision: { effect: 'deny', ruleId: 'no-guest-jobs' }, outcome: 'denied' });
    expect(rec?.task).toBeUndefined();
  });

  it('a client that did not declare tasks gets a plain result and no task, and cannot call tasks/*', async () => {
    const result = await plain.request({ method: 'tools/call', params: { name: 'up__quick_job', arguments: { label: 'p1' }, task: { ttl: 60_000 } } }, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'quick p1' }]);
    expect((result as { task?: unknown }).task).toBeUndefined();
    const sent = upstream.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call').at(-1)!.body as { params: Record<string, unknown> };
    expect(sent.params.task).toBeUndefined();
    const raw = await plain.request({ method: 'tasks/list', params: {} }, CallToolResultSchema.passthrough()).then(() => undefined, (x: unknown) => x as { code?: number });
    expect(raw?.code).toBe(-32601);
  });

  it('relays the upstream status notification to the session that owns the task, under its gateway id', async () => {
    const seen: { taskId: string; status: string }[] = [];
    const streams = () => auditEvents(gw).filter((e) => e.event === 'stream_opened').length;
    const before = streams();
    const watcher = await connectLegacyClient(gw.url, { capabilities: CORE_TASKS, headers: ALICE });
    try {
      const { TaskStatusNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
      watcher.setNotificationHandler(TaskStatusNotificationSchema, (n) => void seen.push({ taskId: n.params.taskId, status: n.params.status }));
      const created = await startJob(watcher, 'w1');
      // The client opens its GET stream after initialize; the notification travels on it.
      await expect.poll(streams).toBe(before + 1);
      await upstream.finish(upstream.taskIds().at(-1)!);
      await expect.poll(() => seen).toContainEqual({ taskId: created.task.taskId, status: 'completed' });
    } finally {
      await watcher.close();
    }
  });

  it("relays the question a task asks on the tasks/result stream to the client's own tasks/result stream, naming the task by its gateway id", async () => {
    const asker = await connectLegacyClient(gw.url, { capabilities: { ...CORE_TASKS, elicitation: {} }, headers: ALICE });
    try {
      const asked: Record<string, unknown>[] = [];
      asker.setRequestHandler(ElicitRequestSchema, async (r) => {
        asked.push(r.params as Record<string, unknown>);
        return { action: 'accept', content: { name: 'Grace' } };
      });
      const created = await asker.request({ method: 'tools/call', params: { name: 'up__ask_job', arguments: { label: 'q' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
      const result = await asker.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      expect(result.content).toEqual([{ type: 'text', text: 'answered Grace' }]);
      expect(asked).toHaveLength(1);
      expect((asked[0]!._meta as Record<string, unknown>)['io.modelcontextprotocol/related-task']).toEqual({ taskId: created.task.taskId });
    } finally {
      await asker.close();
    }
  });
});
