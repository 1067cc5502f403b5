import { describe, expect, it } from 'vitest';
import { MAX_TASK_KEEP_MS, TaskLedger, type EndSeen, type TaskEntry } from './task-ledger.ts';

function ledger(max?: number) {
  let now = 1_000;
  const ends: { id: string; status: string; seen: EndSeen }[] = [];
  const l = new TaskLedger(() => now, (e: TaskEntry, status, seen) => void ends.push({ id: e.id, status, seen }), max);
  const add = (id: string, authContext = 'alice', ttl?: number) =>
    l.add({ id, upstream: 'up', upstreamTaskId: `u-${id}`, era: 'legacy', authContext, principal: { subject: authContext, method: 'api_key' }, tool: 'up__job' }, ttl);
  return { l, ends, add, advance: (ms: number) => void (now += ms) };
}

describe('task ledger', () => {
  it('records a task end once, on the first terminal status seen', () => {
    const { l, ends, add } = ledger();
    const e = add('t1');
    l.saw(e, 'working', 'tasks/get');
    l.saw(e, 'completed', 'notifications/tasks/status');
    l.saw(e, 'completed', 'tasks/get');
    expect(ends).toEqual([{ id: 't1', status: 'completed', seen: 'notifications/tasks/status' }]);
  });

  it('knows whose each upstream task is, and on which upstreams a principal has tasks', () => {
    const { l, add } = ledger();
    add('t1', 'alice');
    add('t2', 'bob');
    expect(l.owns('alice', 'up', 'u-t1')).toBe(true);
    expect(l.owns('alice', 'up', 'u-t2')).toBe(false);
    expect(l.ofUpstream('up', 'u-t2')?.id).toBe('t2');
    expect([...l.upstreamsOf('bob')]).toEqual(['up']);
    expect([...l.upstreamsOf('carol')]).toEqual([]);
  });

  it('keeps the last status seen and when it changed, and lists a principal\'s tasks on one upstream', () => {
    const { l, add, advance } = ledger();
    const e = add('t1');
    add('t2', 'bob');
    l.saw(e, 'working', 'created');
    advance(500);
    l.saw(e, 'input_required', 'tasks/get');
    advance(500);
    l.saw(e, 'input_required', 'tasks/get');
    expect([e.status, e.statusAt]).toEqual(['input_required', 1_500]);
    expect(l.tasksOf('alice', 'up').map((t) => t.id)).toEqual(['t1']);
    expect(l.tasksOf('alice', 'other')).toEqual([]);
  });

  it('tells apart tasks of different users that an upstream reached per user gave the same id', () => {
    const { l } = ledger();
    l.add({ id: 'a', upstream: 'up', upstreamTaskId: 'task-1', era: 'modern', authContext: 'alice', principal: { subject: 'alice', method: 'jwt' }, tool: 'up__job' }, undefined);
    l.add({ id: 'b', upstream: 'up', upstreamTaskId: 'task-1', era: 'modern', authContext: 'bob', principal: { subject: 'bob', method: 'jwt' }, tool: 'up__job' }, undefined);
    expect(l.ofUpstream('up', 'task-1', 'bob')?.id).toBe('b');
    expect(l.ofUpstream('up', 'task-1', 'alice')?.id).toBe('a');
    expect(l.ofUpstream('up', 'task-1', 'carol')).toBeUndefined();
    expect([l.owns('alice', 'up', 'task-1'), l.owns('bob', 'up', 'task-1'), l.owns('carol', 'up', 'task-1')]).toEqual([true, true, false]);
    l.close();
    expect(l.ofUpstream('up', 'task-1')).toBeUndefined();
  });

  it('forgets a task past its ttl (capped), recording an end never seen as unobserved', () => {
    const { l, ends, add, advance } = ledger();
    add('short', 'alice', 10_000);
    add('unlimited', 'alice', undefined);
    advance(70_000);
    add('later');
    expect(l.get('short')).toBeUndefined();
    expect(l.get('unlimited')).toBeDefined();
    expect(ends).toEqual([{ id: 'short', status: 'unobserved', seen: 'unobserved' }]);
    advance(MAX_TASK_KEEP_MS);
    add('last');
    expect(l.get('unlimited')).toBeUndefined();
  });

  it('holds at most its bound, the oldest going first', () => {
    const { l, ends, add } = ledger(2);
    add('a');
    add('b');
    add('c');
    expect([l.get('a'), l.get('b')?.id, l.get('c')?.id]).toEqual([undefined, 'b', 'c']);
    expect(ends).toEqual([{ id: 'a', status: 'unobserved', seen: 'unobserved' }]);
    l.close();
    expect(ends.map((e) => e.id)).toEqual(['a', 'b', 'c']);
  });
});
