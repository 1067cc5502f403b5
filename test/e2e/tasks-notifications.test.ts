// Task status notifications of a 2026-07-28 upstream with the tasks extension
// (io.modelcontextprotocol/tasks, "Task Status Notifications"): the upstream sends
// `notifications/tasks` only on a listen that named the task, so the gateway's own listen to
// it names the tasks open in its ledger and those its clients' listens named. A 2026-07-28
// client's `subscriptions/listen` with `notifications.taskIds` (gateway ids) gets them under
// its id, tagged with its subscription id; through another replica that shares the sessions
// secret too. Each counts for the audit of the task's end.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startModernTaskUpstream, type ModernTaskUpstream } from '../fixtures/modern-task-upstream.ts';
import { startTaskUpstream, type TaskUpstream } from '../fixtures/task-upstream.ts';
import { auditEvents, auditRequests, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';
import { CreateTaskResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { ALICE, BOB, IDENTITY_YAML } from '../harness/policy-env.ts';

const EXT = 'io.modelcontextprotocol/tasks';
const DECLARED = { extensions: { [EXT]: {} } };
const SECRET = randomBytes(32).toString('base64');

let upstream: ModernTaskUpstream;
let legacy: TaskUpstream;
let gw: TestGateway;
let other: TestGateway;
let id = 1;
const streams: SseMessages[] = [];

const config = (trail: string) => `
${IDENTITY_YAML}
sessions: { secret: "${SECRET}" }
audit: { dir: "${join(mkdtempSync(join(tmpdir(), 'gatehouse-tnotes-')), trail)}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
  - { name: lt, url: "${legacy.url}" }
`;

beforeAll(async () => {
  [upstream, legacy] = await Promise.all([startModernTaskUpstream(), startTaskUpstream()]);
  [gw, other] = await Promise.all([startTestGateway(config('a')), startTestGateway(config('b'))]);
  await Promise.all([gw.waitUp(), other.waitUp()]);
});

afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

afterAll(async () => {
  await gw?.close();
  await other?.close();
  await upstream?.close();
  await legacy?.close();
});

const rpc = (at: TestGateway, who: Record<string, string>, method: string, params: Record<string, unknown>, caps: Record<string, unknown> = DECLARED) =>
  postJson(at.url, modernBody(id++, method, params, caps), modernHeaders(method, (params.name ?? params.taskId) as string | undefined, who));
const startJob = async (at: TestGateway, who: Record<string, string>, label: string): Promise<{ taskId: string; upstreamId: string }> => {
  const created = await rpc(at, who, 'tools/call', { name: 'up__job', arguments: { label } });
  expect(created.json.result).toMatchObject({ resultType: 'task', status: 'working' });
  return { taskId: created.json.result.taskId, upstreamId: upstream.taskIds().at(-1)! };
};
/** A 2026-07-28 listen for task ids; the acknowledgement is its first message. */
const listenFor = async (at: TestGateway, who: Record<string, string>, listenId: string, taskIds: unknown, caps: Record<string, unknown> = DECLARED) => {
  const { response, sse } = await openSse(at.url, {
    method: 'POST',
    headers: modernHeaders('subscriptions/listen', undefined, who),
    body: JSON.stringify(modernBody(listenId, 'subscriptions/listen', { notifications: { taskIds } }, caps)),
  });
  streams.push(sse);
  return { response, sse };
};
/** Whether the gateway's listen to the upstream now asks for `upstreamId`. */
const upstreamFollows = (upstreamId: string) => () => upstream.listens().some((l) => l.taskIds.includes(upstreamId));
const taskNotes = (sse: SseMessages) => sse.messages.filter((m) => m.method === 'notifications/tasks');

describe('task status notifications of a 2026-07-28 upstream', () => {
  it("reach the creator's listen under the gateway id with the inlined result, tagged with its subscription id, and count for the end's audit", async () => {
    const { taskId, upstreamId } = await startJob(gw, ALICE, 'n1');
    const { response, sse } = await listenFor(gw, ALICE, 'tasks-listen-1', [taskId]);
    expect(response.status).toBe(200);
    await sse.waitFor(1);
    expect(sse.messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [taskId] }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'tasks-listen-1' } } });
    await expect.poll(upstreamFollows(upstreamId)).toBe(true);
    // The upstream's listen declared the extension, as the extension requires of a client.
    const asked = upstream.received.filter((r) => r.method === 'subscriptions/listen').at(-1)!;
    expect((asked.params._meta as Record<string, any>)['io.modelcontextprotocol/clientCapabilities'].extensions[EXT]).toEqual({});
    upstream.finish(upstreamId);
    await expect.poll(() => taskNotes(sse).length).toBe(1);
    expect(taskNotes(sse)[0].params).toMatchObject({
      taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'done n1' }] },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'tasks-listen-1' },
    });
    expect(JSON.stringify(taskNotes(sse)[0])).not.toContain(upstreamId);
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === taskId)?.detail).toMatchObject({ status: 'completed', seen: 'notifications/tasks', principal: 'alice' });
  });

  it("follows a task nobody listens to, so its end is audited from the upstream's notification without a poll", async () => {
    const { taskId, upstreamId } = await startJob(gw, ALICE, 'n2');
    await expect.poll(upstreamFollows(upstreamId)).toBe(true);
    upstream.finish(upstreamId);
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === taskId)?.detail).toMatchObject({ status: 'completed', seen: 'notifications/tasks' });
    expect(auditRequests(gw).filter((r) => r.method === 'tasks/get' && r.task?.id === taskId)).toEqual([]);
  });

  it('acknowledges only the caller\'s own tasks: another principal\'s id and an edited one are left out', async () => {
    const { taskId } = await startJob(gw, ALICE, 'n3');
    const { sse } = await listenFor(gw, BOB, 'bob-listen', [taskId, `${taskId.slice(0, -3)}AAA`, 'not-a-task']);
    await sse.waitFor(1);
    expect(sse.messages[0].method).toBe('notifications/subscriptions/acknowledged');
    expect(sse.messages[0].params.notifications.taskIds).toBeUndefined();
  });

  it('reach a listen through another replica that shares the sessions secret', async () => {
    const { taskId, upstreamId } = await startJob(gw, ALICE, 'n4');
    const { sse } = await listenFor(other, ALICE, 'replica-listen', [taskId]);
    await sse.waitFor(1);
    expect(sse.messages[0].params.notifications.taskIds).toEqual([taskId]);
    // Both replicas' listens to the upstream name it: the creator's ledger and the other's listener.
    await expect.poll(() => upstream.listens().filter((l) => l.taskIds.includes(upstreamId)).length).toBe(2);
    expect((await rpc(other, ALICE, 'tasks/cancel', { taskId })).json.result).toMatchObject({ resultType: 'complete' });
    await expect.poll(() => taskNotes(sse).length).toBe(1);
    expect(taskNotes(sse)[0].params).toMatchObject({ taskId, status: 'cancelled' });
  });

  it('refuses task ids without the extension declared on the listen (-32021), and ill-formed or too many ids (-32602)', async () => {
    const { taskId } = await startJob(gw, ALICE, 'n5');
    const undeclared = await postJson(gw.url, modernBody('l-1', 'subscriptions/listen', { notifications: { taskIds: [taskId] } }, {}), modernHeaders('subscriptions/listen', undefined, ALICE));
    expect(undeclared.status).toBe(400);
    expect(undeclared.json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    const notStrings = await postJson(gw.url, modernBody('l-2', 'subscriptions/listen', { notifications: { taskIds: [42] } }, DECLARED), modernHeaders('subscriptions/listen', undefined, ALICE));
    expect(notStrings.json.error).toMatchObject({ code: -32602, message: 'subscriptions/listen "taskIds" must be an array of task id strings' });
    const many = Array.from({ length: 101 }, (_, i) => `t${i}`);
    const tooMany = await postJson(gw.url, modernBody('l-3', 'subscriptions/listen', { notifications: { taskIds: many } }, DECLARED), modernHeaders('subscriptions/listen', undefined, ALICE));
    expect(tooMany.json.error).toMatchObject({ code: -32602, message: 'subscriptions/listen names 101 taskIds; at most 100 per listen' });
    // Each refusal is audited.
    await expect.poll(() => auditRequests(gw).filter((r) => r.method === 'subscriptions/listen' && r.outcome !== 'ok').length).toBeGreaterThanOrEqual(3);
  });

  it("relay a 2025-11-25 upstream's status of a task bridged to a 2026-07-28 client, with the result read from the upstream once it ended", async () => {
    const created = await rpc(gw, ALICE, 'tools/call', { name: 'lt__job', arguments: { label: 'b1' } });
    expect(created.json.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId: string = created.json.result.taskId;
    const { sse } = await listenFor(gw, ALICE, 'bridged-listen', [taskId]);
    await sse.waitFor(1);
    expect(sse.messages[0].params.notifications.taskIds).toEqual([taskId]);
    // Through another replica the task's session is not that replica's: left out.
    const elsewhere = await listenFor(other, ALICE, 'bridged-elsewhere', [taskId]);
    await elsewhere.sse.waitFor(1);
    expect(elsewhere.sse.messages[0].params.notifications.taskIds).toBeUndefined();
    await legacy.finish(legacy.taskIds().at(-1)!);
    await expect.poll(() => taskNotes(sse).filter((n) => n.params.status === 'completed').length).toBe(1);
    expect(taskNotes(sse).find((n) => n.params.status === 'completed')!.params).toMatchObject({
      taskId,
      result: { content: [{ type: 'text', text: 'done b1' }] },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'bridged-listen' },
    });
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === taskId)?.detail).toMatchObject({ status: 'completed', seen: 'notifications/tasks/status' });
  });

  it("reach a 2025-11-25 client's GET stream as notifications/tasks/status for a task bridged from a 2026-07-28 upstream", async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { tasks: { list: {}, cancel: {} } }, headers: ALICE });
    try {
      const seen: { taskId: string; status: string; ttl?: number | null }[] = [];
      client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void seen.push({ taskId: n.params.taskId, status: n.params.status, ttl: n.params.ttl }));
      const streams = () => auditEvents(gw).filter((e) => e.event === 'stream_opened' && e.detail.stream === 'get').length;
      const before = streams();
      const created = await client.request({ method: 'tools/call', params: { name: 'up__job', arguments: { label: 'l1' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
      const upstreamId = upstream.taskIds().at(-1)!;
      await expect.poll(streams).toBeGreaterThan(before);
      await expect.poll(upstreamFollows(upstreamId)).toBe(true);
      upstream.finish(upstreamId);
      await expect.poll(() => seen).toContainEqual({ taskId: created.task.taskId, status: 'completed', ttl: 60_000 });
      await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === created.task.taskId)?.detail).toMatchObject({ status: 'completed', seen: 'notifications/tasks' });
    } finally {
      await client.close();
    }
  });
});
