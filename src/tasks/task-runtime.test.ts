import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonRpcNotification } from '../protocol/message.ts';
import { err } from '../protocol/result.ts';
import type { Era } from '../protocol/versions.ts';
import type { Upstream, UpstreamEvent } from '../upstream/upstream.ts';
import { createTaskRuntime } from './task-runtime.ts';

/** An upstream offering tasks in `era`, at the Upstream interface: its events are the test's to send. */
function upstreamOf(name: string, era: Era) {
  const listeners: ((ev: UpstreamEvent) => void)[] = [];
  const followed: string[][] = [];
  const capabilities: JsonObject = era === 'legacy' ? { tasks: { requests: { tools: { call: {} } } } } : { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const u = {
    name,
    status: () => ({ name, transport: 'http', state: 'up', era, since: 0 }),
    identity: () => ({ capabilities }),
    onEvent: (l: (ev: UpstreamEvent) => void) => void listeners.push(l),
    // The task's result cannot be read: the upstream went away after saying the task ended.
    request: async () => err({ kind: 'upstream_unavailable' as const, upstream: name, reason: 'gone' }),
    followTasks: (ids: readonly string[]) => void followed.push([...ids]),
  } as unknown as Upstream;
  return { u, followed, emit: (ev: UpstreamEvent) => listeners.forEach((l) => l(ev)) };
}

function runtime() {
  const ended: JsonObject[] = [];
  const rt = createTaskRuntime({ secret: undefined, now: () => 1_000, deliver: () => undefined, ended: (d) => void ended.push(d) });
  const add = (upstream: string, taskId: string, authContext = 'alice') =>
    rt.ledger.add({ id: rt.ids.mint({ upstream, taskId }, authContext), upstream, upstreamTaskId: taskId, era: 'modern', authContext, principal: { subject: authContext, method: 'api_key' }, tool: `${upstream}__job` }, undefined);
  return { rt, ended, add };
}

describe('task runtime', () => {
  it("asks a 2026-07-28 upstream for the status of tasks open in the ledger and of those listens name, letting ended ones go at the next ask", () => {
    const { rt, add } = runtime();
    const up = upstreamOf('m', 'modern');
    rt.watch(up.u);
    rt.created(add('m', 't1'));
    rt.created(add('m', 't2'));
    expect(up.followed.at(-1)).toEqual(['t1', 't2']);
    up.emit({ type: 'task_status', era: 'modern', task: { taskId: 't1', status: 'completed' } });
    const other = rt.ids.mint({ upstream: 'm', taskId: 't3' }, 'alice');
    const sink: JsonRpcNotification[] = [];
    const listen = rt.listen('alice', [other, rt.ids.mint({ upstream: 'm', taskId: 't3' }, 'bob')], (n) => void sink.push(n));
    expect(listen.honoured).toEqual([other]);
    expect(up.followed.at(-1)).toEqual(['t2', 't3']);
    up.emit({ type: 'task_status', era: 'modern', task: { taskId: 't3', status: 'working', _meta: { 'io.modelcontextprotocol/subscriptionId': 'gatehouse-tasks' } } });
    expect(sink).toEqual([{ jsonrpc: '2.0', method: 'notifications/tasks', params: { taskId: other, status: 'working' } }]);
    listen.end();
    listen.end();
    up.emit({ type: 'task_status', era: 'modern', task: { taskId: 't3', status: 'completed' } });
    expect(sink).toHaveLength(1);
  });

  it("relays a bridged 2025-11-25 task's end with the error of a result that could not be read", async () => {
    const { rt, ended, add } = runtime();
    const up = upstreamOf('l', 'legacy');
    rt.watch(up.u);
    const entry = add('l', 'u1');
    const sink: JsonRpcNotification[] = [];
    expect(rt.listen('alice', [entry.id], (n) => void sink.push(n)).honoured).toEqual([entry.id]);
    expect(up.followed).toEqual([]);
    up.emit({ type: 'task_status', era: 'legacy', task: { taskId: 'u1', status: 'completed' } });
    await expect.poll(() => sink.length).toBe(1);
    expect(sink[0]!.params).toMatchObject({ taskId: entry.id, status: 'completed', error: { code: -32603 } });
    expect(ended).toMatchObject([{ task: entry.id, status: 'completed', seen: 'notifications/tasks/status' }]);
  });
});
