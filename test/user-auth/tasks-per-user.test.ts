// Tasks through upstreams reached per user (token exchange, RFC 8693: one connection per
// caller, each with a token exchanged for the caller's own): a real SDK 1.x task server
// (2025-11-25 core tasks), once with the default shared session per user and once with
// `session: perClient` (each client session its own upstream session, with that user's token),
// and a 2026-07-28 server with the tasks extension. Status notifications of each reach the
// client that created the task, under its gateway id, and count for the audit of its end;
// tasks/list shows each caller its own tasks only.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTaskResultSchema, ListTasksResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startModernTaskUpstream, type ModernTaskUpstream } from '../fixtures/modern-task-upstream.ts';
import { startProtectedUpstream, type ProtectedUpstream } from '../fixtures/oauth-protected-upstream.ts';
import { startTaskUpstream, type TaskUpstream } from '../fixtures/task-upstream.ts';
import { freePort } from '../harness/free-port.ts';
import { auditEvents, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { openSse, type SseMessages } from '../harness/sse-messages.ts';

const EXT = 'io.modelcontextprotocol/tasks';
const TASKS = { tasks: { list: {}, cancel: {} } };

let oauth: ProtectedUpstream;
let legacy: TaskUpstream;
let modern: ModernTaskUpstream;
let gw: TestGateway;
const open: { close(): unknown }[] = [];

beforeAll(async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  [oauth, legacy, modern] = await Promise.all([startProtectedUpstream({ redirectUri: `${resource}/callback`, gatewayAudience: resource }), startTaskUpstream(), startModernTaskUpstream()]);
  // Each upstream is reached with a token the authorization server exchanged for the caller's.
  const exchanged = `{ type: token_exchange, tokenUrl: "${oauth.exchangeUrl}", clientId: gatehouse-exchange, audience: mcp-server, actorToken: gateway-actor-token, resource: "${oauth.url}" }`;
  gw = await startTestGateway(
    `
identity:
  resource: ${resource}
  jwt: { issuer: "${oauth.issuer}", jwksUrl: "${oauth.issuer}/jwks" }
audit: { dir: "${join(mkdtempSync(join(tmpdir(), 'gatehouse-utasks-')), 'trail')}" }
upstreams:
  - { name: lt, url: "${legacy.url}", auth: ${exchanged} }
  - { name: pc, url: "${legacy.url}", session: perClient, auth: ${exchanged} }
  - { name: mt, url: "${modern.url}", auth: ${exchanged} }
`,
    process.env,
    { port },
  );
  await gw.waitUp();
}, 60_000);

afterAll(async () => {
  for (const o of open.splice(0)) await o.close();
  await gw?.close();
  await Promise.all([oauth?.close(), legacy?.close(), modern?.close()]);
});

const bearer = async (sub: string): Promise<Record<string, string>> => ({ authorization: `Bearer ${await oauth.callerToken(sub)}` });

/** A 2025-11-25 client that declared tasks and collects the status notifications it gets. */
async function watcher(sub: string): Promise<{ client: LegacyClient; seen: { taskId: string; status: string }[] }> {
  const client = await connectLegacyClient(gw.url, { capabilities: TASKS, headers: await bearer(sub) });
  open.push(client);
  const seen: { taskId: string; status: string }[] = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void seen.push({ taskId: n.params.taskId, status: n.params.status }));
  return { client, seen };
}

const startJob = (client: LegacyClient, tool: string, label: string) =>
  client.request({ method: 'tools/call', params: { name: tool, arguments: { label }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
const streamsOf = (sub: string): number => auditEvents(gw).filter((e) => e.event === 'stream_opened' && e.detail.principal?.subject === sub).length;
const ended = (taskId: string) => () => auditEvents(gw).find((e) => e.event === 'task_ended' && e.detail.task === taskId)?.detail;
/** Whose token (the exchanged one's subject) the upstream saw on a request. */
const subjectOf = (authorization: string | undefined): string => JSON.parse(Buffer.from((authorization ?? '').replace(/^Bearer /, '').split('.')[1] ?? '', 'base64url').toString('utf8')).sub;

describe('tasks through upstreams reached per user', () => {
  for (const tool of ['lt__job', 'pc__job']) {
    it(`relays a 2025-11-25 upstream's status notification to the creating client only (${tool === 'lt__job' ? 'shared session per user' : 'session: perClient'})`, async () => {
      const before = streamsOf('carol');
      const carol = await watcher('carol');
      const dave = await watcher('dave');
      const created = await startJob(carol.client, tool, `c-${tool}`);
      expect(created.task.taskId).toMatch(/^gt1\./);
      const mine = legacy.taskIds().at(-1)!;
      await startJob(dave.client, tool, `d-${tool}`);
      // Each reached the upstream with the token exchanged for their own.
      const calls = legacy.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call').slice(-2);
      expect(calls.map((r) => subjectOf(r.headers.authorization))).toEqual(['carol', 'dave']);
      // The status travels on the GET streams: the upstream session's (opened by the gateway
      // after initialize) and the client's own (opened by the SDK after initialize).
      await expect.poll(() => legacy.received.some((r) => r.method === 'GET' && r.headers['mcp-session-id'] === calls[0]!.headers['mcp-session-id'])).toBe(true);
      await expect.poll(() => streamsOf('carol')).toBe(before + 1);
      await legacy.finish(mine);

      await expect.poll(() => carol.seen).toContainEqual({ taskId: created.task.taskId, status: 'completed' });
      expect(dave.seen.filter((s) => s.status === 'completed')).toEqual([]);
      await expect.poll(ended(created.task.taskId)).toMatchObject({ status: 'completed', seen: 'notifications/tasks/status', principal: 'carol' });
    });
  }

  it('with session: perClient, gives each client session of a user its own upstream session, with that user\'s token', async () => {
    const first = await watcher('erin');
    const second = await watcher('erin');
    await startJob(first.client, 'pc__job', 'e1');
    await startJob(second.client, 'pc__job', 'e2');
    const calls = legacy.received.filter((r) => (r.body as { method?: string; params?: { name?: string } } | undefined)?.params?.name === 'job').slice(-2);
    expect(calls.map((r) => subjectOf(r.headers.authorization))).toEqual(['erin', 'erin']);
    expect(new Set(calls.map((r) => r.headers['mcp-session-id'])).size).toBe(2);
  });

  it("lists each caller's own tasks of an upstream reached per user", async () => {
    const frank = await watcher('frank');
    const grace = await watcher('grace');
    const mine = await startJob(frank.client, 'lt__job', 'f1');
    const theirs = await startJob(grace.client, 'lt__job', 'g1');
    const listed = (await frank.client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema)).tasks.map((t) => t.taskId);
    expect(listed).toContain(mine.task.taskId);
    expect(listed).not.toContain(theirs.task.taskId);
  });

  it("relays a 2026-07-28 upstream's notifications/tasks, asked for on that user's own connection", async () => {
    const who = await bearer('heidi');
    const created = await postJson(gw.url, modernBody(1, 'tools/call', { name: 'mt__job', arguments: { label: 'h1' } }, { extensions: { [EXT]: {} } }), modernHeaders('tools/call', 'mt__job', who));
    expect(created.json.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId: string = created.json.result.taskId;
    const upstreamId = modern.taskIds().at(-1)!;
    const { sse } = await openSse(gw.url, {
      method: 'POST',
      headers: modernHeaders('subscriptions/listen', undefined, who),
      body: JSON.stringify(modernBody('heidi-listen', 'subscriptions/listen', { notifications: { taskIds: [taskId] } }, { extensions: { [EXT]: {} } })),
    });
    open.push(sse as SseMessages);
    await sse.waitFor(1);
    expect(sse.messages[0].params.notifications.taskIds).toEqual([taskId]);
    // The gateway's listen for it carries heidi's exchanged token, nobody else's.
    await expect.poll(() => modern.listens().filter((l) => l.taskIds.includes(upstreamId)).map((l) => subjectOf(l.authorization))).toEqual(['heidi']);
    modern.finish(upstreamId);
    await expect.poll(() => sse.messages.filter((m) => m.method === 'notifications/tasks').map((m) => m.params.taskId)).toEqual([taskId]);
    await expect.poll(ended(taskId)).toMatchObject({ status: 'completed', seen: 'notifications/tasks', principal: 'heidi' });
  });
});
