// A 2026-07-28 stdio upstream sends change notifications and task status only on a
// `subscriptions/listen` request (MCP 2026-07-28, basic/patterns/subscriptions): the gateway
// keeps one open for the list changes the process advertises and one, with the tasks extension
// declared, for the tasks it follows, as it does for HTTP upstreams. What arrives reaches the
// gateway's clients: list_changed on their listens, a task's status on a 2026-07-28 listen
// naming it and on a 2025-11-25 client's GET stream, and the audit of the task's end. A listen
// the process ends is opened again, and a restarted process is asked again. The upstream is a
// real child process (test/fixtures/stdio-task-server.mjs).
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CreateTaskResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { auditEvents, modernBody, modernHeaders, postJson, REPO_ROOT, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';
import { connectLegacyClient } from '../fixtures/clients.ts';
import { ALICE, IDENTITY_YAML } from '../harness/policy-env.ts';

const EXT = 'io.modelcontextprotocol/tasks';
const DECLARED = { extensions: { [EXT]: {} } };
const SERVER = join(REPO_ROOT, 'test/fixtures/stdio-task-server.mjs');
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-stdiolisten-'));
const LOG = join(dir, 'listens.jsonl');

interface Logged {
  pid: number;
  event: 'listen' | 'cancelled' | 'ended' | 'refused';
  id: string;
  notifications?: { toolsListChanged?: boolean; resourceSubscriptions?: string[]; taskIds?: string[] };
  declared?: boolean;
}

let gw: TestGateway;
let id = 1;
const streams: SseMessages[] = [];

beforeAll(async () => {
  gw = await startTestGateway(`
${IDENTITY_YAML}
audit: { dir: "${join(dir, 'audit')}" }
upstreams:
  - { name: st, command: node, args: ["${SERVER}"], env: { LISTEN_LOG: "${LOG}" } }
`);
  await gw.waitUp();
});

afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});

afterAll(async () => {
  await gw?.close();
});

const read = (file: string): Logged[] => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Logged) : []);
const logged = (): Logged[] => read(LOG);
const listensOf = (pid?: number) => logged().filter((l) => l.event === 'listen' && (pid === undefined || l.pid === pid));
const openListens = () => listensOf().filter((l) => !logged().some((c) => (c.event === 'cancelled' || c.event === 'ended') && c.id === l.id));
const follows = (upstreamId: string) => () => openListens().some((l) => l.notifications?.taskIds?.includes(upstreamId) === true);
const rpc = (method: string, params: Record<string, unknown>, caps: Record<string, unknown> = DECLARED) =>
  postJson(gw.url, modernBody(id++, method, params, caps), modernHeaders(method, (params.name ?? params.taskId) as string | undefined, ALICE));
const tool = (name: string, args: Record<string, unknown> = {}) => rpc('tools/call', { name: `st__${name}`, arguments: args }, {});
const listen = async (listenId: string, notifications: Record<string, unknown>) => {
  const { response, sse } = await openSse(gw.url, {
    method: 'POST',
    headers: modernHeaders('subscriptions/listen', undefined, ALICE),
    body: JSON.stringify(modernBody(listenId, 'subscriptions/listen', { notifications }, DECLARED)),
  });
  streams.push(sse);
  expect(response.status).toBe(200);
  await sse.waitFor(1);
  expect(sse.messages[0].method).toBe('notifications/subscriptions/acknowledged');
  return sse;
};
const startJob = async (label: string): Promise<{ taskId: string; upstreamId: string }> => {
  const created = await rpc('tools/call', { name: 'st__job', arguments: { label } });
  expect(created.json.result).toMatchObject({ resultType: 'task', status: 'working' });
  const taskId: string = created.json.result.taskId;
  const got = await rpc('tasks/get', { taskId });
  expect(got.json.result).toMatchObject({ taskId, status: 'working' });
  return { taskId, upstreamId: `stdio-task-${/\d+$/.exec(label)![0]}` };
};
const named = (sse: SseMessages, method: string) => sse.messages.filter((m) => m.method === method);

describe('the listens of a 2026-07-28 stdio upstream', () => {
  it('ask for the list changes it advertises, and its list_changed reaches a client listen, the new tool listed', async () => {
    await expect.poll(() => listensOf().length).toBeGreaterThan(0);
    expect(listensOf()[0]).toMatchObject({ notifications: { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false } });
    const sse = await listen('tools-listen', { toolsListChanged: true });
    expect((await tool('grow')).json.result.content).toEqual([{ type: 'text', text: '7 tools' }]);
    await expect.poll(() => named(sse, 'notifications/tools/list_changed').length).toBe(1);
    expect(named(sse, 'notifications/tools/list_changed')[0].params).toEqual({ _meta: { 'io.modelcontextprotocol/subscriptionId': 'tools-listen' } });
    const names = (await rpc('tools/list', {}, {})).json.result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain('st__extra6');
  });

  it("ask for the resources a client subscribes to, and the process's update reaches that client's listen", async () => {
    const note = (await rpc('resources/list', {}, {})).json.result.resources.find((r: { name: string }) => r.name === 'note');
    expect(note).toBeDefined();
    const sse = await listen('note-listen', { resourceSubscriptions: [note.uri] });
    expect(sse.messages[0].params.notifications.resourceSubscriptions).toEqual([note.uri]);
    // The list listen was opened again with the URI, and the one before it cancelled.
    await expect.poll(() => openListens().some((l) => l.notifications?.resourceSubscriptions?.includes('mem://note') === true)).toBe(true);
    expect(openListens().filter((l) => l.notifications?.toolsListChanged === true)).toHaveLength(1);
    await tool('touch', { uri: 'mem://note' });
    await expect.poll(() => named(sse, 'notifications/resources/updated').length).toBe(1);
    expect(named(sse, 'notifications/resources/updated')[0].params).toMatchObject({ uri: note.uri, _meta: { 'io.modelcontextprotocol/subscriptionId': 'note-listen' } });
    // The client's listen closes: the URI leaves the process's listen.
    sse.close();
    await expect.poll(() => openListens().some((l) => l.notifications?.resourceSubscriptions !== undefined)).toBe(false);
  });

  it("carry a task's status to a 2026-07-28 listen naming it, and the audit of its end says it was seen there", async () => {
    const { taskId, upstreamId } = await startJob('job1');
    const sse = await listen('tasks-listen', { taskIds: [taskId] });
    expect(sse.messages[0].params.notifications.taskIds).toEqual([taskId]);
    await expect.poll(follows(upstreamId)).toBe(true);
    // The listen that names task ids declares the extension, as the extension requires.
    expect(openListens().find((l) => l.notifications?.taskIds?.includes(upstreamId))!.declared).toBe(true);
    await tool('finish', { label: 'job1' });
    await expect.poll(() => named(sse, 'notifications/tasks').length).toBe(1);
    expect(named(sse, 'notifications/tasks')[0].params).toMatchObject({
      taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'done job1' }] },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'tasks-listen' },
    });
    expect(JSON.stringify(named(sse, 'notifications/tasks')[0])).not.toContain(upstreamId);
    await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === taskId)?.detail).toMatchObject({ status: 'completed', seen: 'notifications/tasks' });
  });

  it("carry a bridged task's status to a 2025-11-25 client's GET stream as notifications/tasks/status", async () => {
    const client = await connectLegacyClient(gw.url, { capabilities: { tasks: { list: {}, cancel: {} } }, headers: ALICE });
    try {
      const seen: { taskId: string; status: string }[] = [];
      client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void seen.push({ taskId: n.params.taskId, status: n.params.status }));
      const opened = () => auditEvents(gw).filter((e) => e.event === 'stream_opened' && e.detail.stream === 'get').length;
      const before = opened();
      const created = await client.request({ method: 'tools/call', params: { name: 'st__job', arguments: { label: 'job2' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
      await expect.poll(opened).toBeGreaterThan(before);
      await expect.poll(follows('stdio-task-2')).toBe(true);
      await tool('finish', { label: 'job2' });
      await expect.poll(() => seen).toContainEqual({ taskId: created.task.taskId, status: 'completed' });
      await expect.poll(() => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === created.task.taskId)?.detail).toMatchObject({ status: 'completed', seen: 'notifications/tasks' });
    } finally {
      await client.close();
    }
  });

  it('cancel the task listen they replace, and open again the listens the process ends', async () => {
    const { upstreamId } = await startJob('job3');
    await expect.poll(follows(upstreamId)).toBe(true);
    // Following job3 replaced the task listen: the one before it was cancelled.
    expect(logged().filter((l) => l.event === 'cancelled').length).toBeGreaterThan(0);
    const before = new Set(listensOf().map((l) => l.id));
    await tool('end_listens');
    expect(openListens()).toEqual([]);
    // Both are asked again (after a backoff): the list changes, and the task still followed.
    await expect.poll(() => openListens().filter((l) => !before.has(l.id)).length, { timeout: 5000 }).toBe(2);
    expect(openListens().some((l) => l.notifications?.toolsListChanged === true)).toBe(true);
    expect(follows(upstreamId)()).toBe(true);
    const sse = await listen('after-end', { toolsListChanged: true });
    await tool('grow');
    await expect.poll(() => named(sse, 'notifications/tools/list_changed').length).toBe(1);
  });

  it('are opened again on the restarted process', async () => {
    const { upstreamId } = await startJob('job4');
    await expect.poll(follows(upstreamId)).toBe(true);
    const first = listensOf().at(-1)!.pid;
    const upstream = gw.upstreams.find((u) => u.name === 'st')!;
    expect((await tool('die')).json.error).toBeDefined();
    await expect.poll(() => upstream.status().state === "up" && listensOf().some((l) => l.pid !== first), { timeout: 15_000 }).toBe(true);
    const pid = listensOf().at(-1)!.pid;
    // The new process is asked for list changes; it knows none of the old process's tasks.
    await expect.poll(() => listensOf(pid).some((l) => l.notifications?.toolsListChanged === true)).toBe(true);
    await expect.poll(() => listensOf(pid).some((l) => l.declared === true && Array.isArray(l.notifications?.taskIds))).toBe(true);
    const sse = await listen('after-restart', { toolsListChanged: true });
    await tool('grow');
    await expect.poll(() => named(sse, 'notifications/tools/list_changed').length).toBe(1);
  }, 20_000);
});

describe('a 2026-07-28 stdio upstream that refuses a listen', () => {
  const start = async (refuse: string): Promise<{ other: TestGateway; log: string }> => {
    const log = join(dir, `refuse-${refuse}.jsonl`);
    const other = await startTestGateway(`
upstreams:
  - { name: st, command: node, args: ["${SERVER}"], env: { LISTEN_LOG: "${log}", LISTEN_REFUSE: ${refuse} } }
`);
    await other.waitUp();
    return { other, log };
  };

  it('as an unknown method: a warning says it sends no change notifications, and the upstream stays up', async () => {
    const { other, log } = await start('always');
    try {
      await expect.poll(() => other.logs.some((l) => l.msg === 'upstream refuses subscriptions/listen; no change notifications from it' && l.upstream === 'st' && l.listen === 'lists')).toBe(true);
      expect(read(log).map((l) => l.event)).toEqual(['refused']);
      expect(other.upstreams.find((u) => u.name === 'st')!.status().state).toBe('up');
    } finally {
      await other.close();
    }
  });

  it('with another error is asked again after a backoff, and the listen then holds', async () => {
    const { other, log } = await start('once');
    try {
      await expect.poll(() => other.logs.some((l) => l.msg === 'upstream refused a listen' && l.upstream === 'st' && l.code === -32603)).toBe(true);
      await expect.poll(() => read(log).map((l) => l.event), { timeout: 5000 }).toEqual(['refused', 'listen']);
      expect(read(log)[1]).toMatchObject({ notifications: { toolsListChanged: true } });
    } finally {
      await other.close();
    }
  });
});
