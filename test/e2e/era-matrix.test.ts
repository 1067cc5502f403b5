// The 2x2 era matrix (README, Protocol eras: bridging): every client era (official SDK 1.x
// client, 2025-11-25; SDK 2.x client pinned to 2026-07-28) against every upstream era (SDK
// 1.x servers, SDK 2.x server) through one gateway, for lists, tool calls, prompts,
// resources, sampling, elicitation, roots, resource subscriptions, progress, cancellation
// and tasks (passed through within an era, bridged across eras both ways: README, Tasks). One
// row per pair and feature; each asserts what the client got and, where the flow crosses the
// gateway twice (input, cancellation), what the upstream got.
import { CallToolResultSchema, CreateMessageRequestSchema, CreateTaskResultSchema, ElicitRequestSchema, ListRootsRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startSdk1Server, type Sdk1Server } from '../conformance/sdk1-server.ts';
import { startTestGateway, modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { startTaskUpstream, type TaskUpstream } from '../fixtures/task-upstream.ts';
import { startModernTaskUpstream, type ModernTaskUpstream } from '../fixtures/modern-task-upstream.ts';

type Era = 'legacy' | 'modern';
type Result = { content?: Array<{ text?: string }>; isError?: boolean };

const CAPS = { sampling: {}, elicitation: { form: {} }, roots: {} };
const SAMPLED = { role: 'assistant' as const, content: { type: 'text' as const, text: 'sampled by the client' }, model: 'matrix-model' };
const ROOTS = { roots: [{ uri: 'file:///matrix', name: 'matrix' }] };
const ELICITED = { action: 'accept' as const, content: { name: 'mat' } };

/** What the matrix needs of a client, whichever SDK it is. */
interface Driver {
  toolNames(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>, opts?: { onprogress?: (p: { progress: number }) => void; signal?: AbortSignal }): Promise<Result>;
  prompt(name: string): Promise<string>;
  read(uri: string): Promise<string>;
  /** Subscribes; updates' URIs go to the returned list; `end()` unsubscribes. */
  subscribe(uri: string): Promise<{ updates: string[]; end(): Promise<void> }>;
  /** Runs `name` as a task in the client's era: creates it, lets `finish` end it upstream,
   * polls it to its end and returns the result's text. */
  task(name: string, args: Record<string, unknown>, finish: () => Promise<void>): Promise<string>;
  close(): Promise<void>;
}

function legacyDriver(c: LegacyClient): Driver {
  c.setRequestHandler(CreateMessageRequestSchema, async () => SAMPLED);
  c.setRequestHandler(ElicitRequestSchema, async () => ELICITED);
  c.setRequestHandler(ListRootsRequestSchema, async () => ROOTS);
  const updates: string[] = [];
  c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  return {
    toolNames: async () => (await c.listTools()).tools.map((t) => t.name),
    call: async (name, args, opts) => (await c.callTool({ name, arguments: args }, undefined, opts ?? {})) as Result,
    prompt: async (name) => JSON.stringify((await c.getPrompt({ name, arguments: { name: 'bob' } })).messages),
    read: async (uri) => JSON.stringify((await c.readResource({ uri })).contents),
    subscribe: async (uri) => {
      await c.subscribeResource({ uri });
      return { updates, end: async () => void (await c.unsubscribeResource({ uri })) };
    },
    task: async (name, args, finish) => {
      const { task } = await c.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
      await finish();
      await expect.poll(async () => (await c.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
      return (await c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    },
    close: () => c.close(),
  };
}

function modernDriver(c: ModernClient): Driver {
  c.setRequestHandler('sampling/createMessage', async () => SAMPLED);
  c.setRequestHandler('elicitation/create', async () => ELICITED);
  c.setRequestHandler('roots/list', async () => ROOTS);
  const updates: string[] = [];
  c.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
  return {
    toolNames: async () => (await c.listTools()).tools.map((t) => t.name),
    call: async (name, args, opts) => (await c.callTool({ name, arguments: args }, opts ?? {})) as Result,
    prompt: async (name) => JSON.stringify((await c.getPrompt({ name, arguments: { name: 'bob' } })).messages),
    read: async (uri) => JSON.stringify((await c.readResource({ uri })).contents),
    subscribe: async (uri) => {
      const sub = await c.listen({ resourceSubscriptions: [uri] });
      expect(sub.honoredFilter.resourceSubscriptions).toEqual([uri]);
      return { updates, end: () => sub.close() };
    },
    // The installed SDK 2.x has no client side of the tasks extension: these are raw requests
    // that declare it, as a 2026-07-28 client does on each request.
    task: async (name, args, finish) => {
      const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
      const rpc = async (method: string, params: Record<string, unknown>, mcpName: string) => (await postJson(gw.url, modernBody(method, method, params, caps), modernHeaders(method, mcpName))).json.result;
      const created = await rpc('tools/call', { name, arguments: args }, name);
      expect(created.resultType).toBe('task');
      await finish();
      await expect.poll(async () => (await rpc('tasks/get', { taskId: created.taskId }, created.taskId)).status).toBe('completed');
      return (await rpc('tasks/get', { taskId: created.taskId }, created.taskId)).result.content[0].text;
    },
    close: () => c.close(),
  };
}

let legacy: LegacyUpstream;
let modern: ModernUpstream;
let subs: Sdk1Server;
let legacyTasks: TaskUpstream;
let modernTasks: ModernTaskUpstream;
let gw: TestGateway;

beforeAll(async () => {
  [legacy, modern, subs, legacyTasks, modernTasks] = await Promise.all([
    startLegacyUpstream({ name: 'l', askClient: true }),
    startModernUpstream({ name: 'm', askMore: true, subscribable: true }),
    startSdk1Server(),
    startTaskUpstream(),
    startModernTaskUpstream(),
  ]);
  const tasks = `  - { name: lt, url: "${legacyTasks.url}" }\n  - { name: mt, url: "${modernTasks.url}" }\n`;
  gw = await startTestGateway(`upstreams:\n  - { name: l, url: "${legacy.url}" }\n  - { name: m, url: "${modern.url}" }\n  - { name: subs, url: "${subs.url}" }\n${tasks}`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([legacy?.close(), modern?.close(), subs?.close(), legacyTasks?.close(), modernTasks?.close()]);
});

/** Each upstream era's names, and how its SDK is made to ask, update and report cancels. */
const UPSTREAM = {
  legacy: {
    prefix: 'l',
    only: 'mem://legacy/only',
    ask: { sampling: ['l__ask_client', { what: 'sampling' }], elicitation: ['l__ask_client', { what: 'elicitation' }], roots: ['l__ask_client', { what: 'roots' }] },
    watched: 'test://watched-resource',
    update: (uri: string) => void subs.resourceUpdated(uri),
    cancelled: () => legacy.cancelled.length,
    // SDK 1.x, core tasks: `lt__job` runs only as a task; `lt__quick_job` also runs plain.
    tasks: { job: 'lt__job', plain: ['lt__quick_job', 'quick x'], finish: () => legacyTasks.finish(legacyTasks.taskIds().at(-1)!) },
  },
  modern: {
    prefix: 'm',
    only: 'mem://modern/only',
    ask: { sampling: ['m__sample_and_roots', {}], elicitation: ['m__elicit', {}], roots: ['m__sample_and_roots', {}] },
    watched: 'mem://modern/only',
    update: (uri: string) => modern.updateResource(uri),
    cancelled: () => modern.cancelled.length,
    tasks: { job: 'mt__job', plain: ['mt__plain', 'plain'], finish: async () => modernTasks.finish(modernTasks.taskIds().at(-1)!) },
  },
} as const;

const PAIRS: Array<[Era, Era]> = [['legacy', 'legacy'], ['legacy', 'modern'], ['modern', 'legacy'], ['modern', 'modern']];

describe.each(PAIRS)('%s client, %s upstream', (clientEra, upstreamEra) => {
  const up = UPSTREAM[upstreamEra];
  let client: Driver;
  beforeAll(async () => {
    client = clientEra === 'legacy' ? legacyDriver(await connectLegacyClient(gw.url, { capabilities: { ...CAPS, tasks: { list: {}, cancel: {} } } })) : modernDriver(await connectModernClient(gw.url, { capabilities: CAPS }));
  });
  afterAll(() => client?.close());

  it('lists and calls tools', async () => {
    expect(await client.toolNames()).toEqual(expect.arrayContaining([`${up.prefix}__echo`, `${up.prefix}__add`]));
    expect((await client.call(`${up.prefix}__add`, { a: 2, b: 3 })).content?.[0]?.text).toBe('5');
  });

  it('gets a prompt and reads a resource', async () => {
    expect(await client.prompt(`${up.prefix}__greet`)).toContain('Hello, bob!');
    expect(await client.read(up.only)).toContain(upstreamEra);
  });

  it.each(['sampling', 'elicitation', 'roots'] as const)('relays the upstream asking for %s, and its answer', async (kind) => {
    const [tool, args] = up.ask[kind];
    const r = await client.call(tool, args);
    expect(r.isError).toBeFalsy();
    const said = (r.content ?? []).map((c) => c.text ?? '').join('\n');
    const expected = { sampling: 'sampled by the client', elicitation: 'mat', roots: 'file:///matrix' }[kind];
    expect(said).toContain(expected);
  });

  it('relays resource updates to a subscriber until it unsubscribes', async () => {
    const sub = await client.subscribe(up.watched);
    const seen = sub.updates.length;
    // Sent again until one arrives: a 2026-07-28 upstream takes the URI on the listen stream it reopens.
    await expect.poll(() => (up.update(up.watched), sub.updates.length)).toBeGreaterThan(seen);
    expect(new Set(sub.updates.slice(seen))).toEqual(new Set([up.watched]));
    await sub.end();
  });

  it('relays progress while a tool works', async () => {
    const progress: number[] = [];
    const r = await client.call(`${up.prefix}__slow`, { ms: 30, steps: 3 }, { onprogress: (p) => void progress.push(p.progress) });
    expect(r.content?.[0]?.text).toBe('slept 30ms');
    expect(progress).toEqual([1, 2, 3]);
  });

  it('cancels the upstream call when the client cancels', async () => {
    const before = up.cancelled();
    const abort = new AbortController();
    const call = client.call(`${up.prefix}__slow`, { ms: 60_000, steps: 600 }, { onprogress: () => abort.abort(), signal: abort.signal });
    await expect(call).rejects.toThrow();
    await expect.poll(up.cancelled).toBe(before + 1);
  });

  // Same era: passed through; across eras: bridged, both ways.
  it('runs a tool as a task, polled to its result; its other tools run plain', async () => {
    const t = up.tasks;
    // Listed to a client that declared tasks (the 2026-07-28 driver lists without the extension).
    if (clientEra === 'legacy') expect(await client.toolNames()).toContain(t.job);
    expect(await client.task(t.job, { label: 'x' }, t.finish)).toBe('done x');
    expect((await client.call(t.plain[0], { label: 'x' })).content?.[0]?.text).toBe(t.plain[1]);
  });
});
