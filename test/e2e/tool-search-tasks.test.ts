// Tasks through tool search's gatehouse__call_tool: it runs the named tool through the same
// task handling as a direct tools/call, so a client that declared tasks can run a tool that
// runs only as a task. A 2025-11-25 client sees gatehouse__call_tool marked
// `taskSupport: "optional"` (it may ask a task only of a tool that says it takes one); a
// client that did not declare tasks does not, and a task-only tool named through it answers
// as an unknown tool; a 2026-07-28 client that declares the extension gets the extension's task.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, CreateTaskResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startModernTaskUpstream, type ModernTaskUpstream } from '../fixtures/modern-task-upstream.ts';
import { startTaskUpstream, type TaskUpstream } from '../fixtures/task-upstream.ts';
import { auditRequests, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, IDENTITY_YAML } from '../harness/policy-env.ts';

const EXT = 'io.modelcontextprotocol/tasks';
const TASKS = { tasks: { list: {}, cancel: {} } };

let legacy: TaskUpstream;
let modern: ModernTaskUpstream;
let gw: TestGateway;
let declared: LegacyClient;
let plain: LegacyClient;

beforeAll(async () => {
  [legacy, modern] = await Promise.all([startTaskUpstream(), startModernTaskUpstream()]);
  gw = await startTestGateway(`
${IDENTITY_YAML}
toolSearch: { enabled: true }
audit: { dir: "${join(mkdtempSync(join(tmpdir(), 'gatehouse-tstasks-')), 'trail')}" }
upstreams:
  - { name: lt, url: "${legacy.url}" }
  - { name: mt, url: "${modern.url}" }
`);
  await gw.waitUp();
  declared = await connectLegacyClient(gw.url, { capabilities: TASKS, headers: ALICE });
  plain = await connectLegacyClient(gw.url, { headers: ALICE });
});

afterAll(async () => {
  await Promise.all([declared?.close(), plain?.close()]);
  await gw?.close();
  await Promise.all([legacy?.close(), modern?.close()]);
});

const callThrough = (c: LegacyClient, name: string, task?: Record<string, unknown>) =>
  c.request({ method: 'tools/call', params: { name: 'gatehouse__call_tool', arguments: { name, arguments: { label: 'via' } }, ...(task ? { task } : {}) } }, task ? CreateTaskResultSchema : CallToolResultSchema);

describe('gatehouse__call_tool and tasks', () => {
  it('is marked taskSupport optional for a 2025-11-25 client that declared tasks, and only for it', async () => {
    const forDeclared = (await declared.request({ method: 'tools/list', params: {} }, ListToolsResultSchema)).tools;
    expect(forDeclared.find((t) => t.name === 'gatehouse__call_tool')?.execution).toEqual({ taskSupport: 'optional' });
    expect(forDeclared.find((t) => t.name === 'gatehouse__search_tools')?.execution).toBeUndefined();
    const forPlain = (await plain.request({ method: 'tools/list', params: {} }, ListToolsResultSchema)).tools;
    expect(forPlain.every((t) => t.execution === undefined)).toBe(true);
  });

  it('runs a task-only tool as a task under a gateway id; the record names the real tool, the meta tool and the task', async () => {
    const created = await callThrough(declared, 'lt__job', { ttl: 60_000 });
    const taskId = (created as { task: { taskId: string } }).task.taskId;
    expect(taskId).toMatch(/^gt1\./);
    const upstreamId = legacy.taskIds().at(-1)!;
    expect((await declared.experimental.tasks.getTask(taskId)).status).toBe('working');
    await legacy.finish(upstreamId);
    await expect.poll(async () => (await declared.experimental.tasks.getTask(taskId)).status).toBe('completed');
    expect((await declared.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).content).toEqual([{ type: 'text', text: 'done via' }]);
    await expect.poll(() => auditRequests(gw).find((r) => r.method === 'tools/call' && r.task?.id === taskId)).toMatchObject({ name: 'lt__job', via: 'gatehouse__call_tool', task: { id: taskId, status: 'working' } });
  });

  it('answers a task-only tool named by a client that did not declare tasks as an unknown tool, creating nothing', async () => {
    const before = legacy.taskIds().length;
    const refused = await callThrough(plain, 'lt__job').then(() => undefined, (e: { code?: number }) => e);
    expect(refused).toMatchObject({ code: -32602 });
    expect(legacy.taskIds()).toHaveLength(before);
  });

  it('finds and describes a task-only tool only for a client that can run it', async () => {
    const search = (c: LegacyClient) => c.callTool({ name: 'gatehouse__search_tools', arguments: { query: 'job runs until the test finishes it', limit: 10 } });
    const names = (r: unknown) => ((r as { structuredContent: { tools: { name: string }[] } }).structuredContent.tools).map((t) => t.name);
    expect(names(await search(declared))).toContain('lt__job');
    expect(names(await search(plain))).not.toContain('lt__job');
    const described = (await plain.callTool({ name: 'gatehouse__describe_tools', arguments: { names: ['lt__job', 'lt__plain'] } })) as unknown as { structuredContent: { tools: { name: string }[]; unknown: string[] } };
    expect(described.structuredContent.unknown).toEqual(['lt__job']);
    expect(described.structuredContent.tools.map((t) => t.name)).toEqual(['lt__plain']);
  });

  it("gives a 2026-07-28 client that declared the extension the extension's task", async () => {
    const body = modernBody(1, 'tools/call', { name: 'gatehouse__call_tool', arguments: { name: 'mt__job', arguments: { label: 'm' } } }, { extensions: { [EXT]: {} } });
    const created = await postJson(gw.url, body, modernHeaders('tools/call', 'gatehouse__call_tool', ALICE));
    expect(created.json.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.json.result.taskId).toMatch(/^gt1\./);
  });
});
