// tasks/list (MCP 2025-11-25 basic/utilities/tasks, basic/utilities/pagination) through the
// gateway: real SDK 1.x clients and a real SDK 1.x task server (its tasks/list pages hold 10
// tasks). The gateway lists each caller's own tasks only, in pages of its own under a sealed
// cursor bound to the caller, reading a bounded number of upstream pages for each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTaskResultSchema, ListTasksResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { LegacyClient } from '../fixtures/clients.ts';
import { startCoreTaskBed, type CoreTaskBed } from '../harness/core-task-bed.ts';

let bed: CoreTaskBed;
let alice: LegacyClient;
let bob: LegacyClient;
const mine: string[] = [];
const theirs: string[] = [];

beforeAll(async () => {
  bed = await startCoreTaskBed();
  ({ alice, bob } = bed);
  const job = (c: LegacyClient, label: string) => c.request({ method: 'tools/call', params: { name: 'up__quick_job', arguments: { label }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  // Interleaved, so that every upstream page holds both callers' tasks.
  for (let i = 0; i < 45; i++) {
    if (i % 3 === 2) theirs.push((await job(bob, `b${i}`)).task.taskId);
    else mine.push((await job(alice, `a${i}`)).task.taskId);
  }
});

afterAll(async () => {
  await bed?.close();
});

const listPage = (c: LegacyClient, cursor?: string) => c.request({ method: 'tasks/list', params: cursor === undefined ? {} : { cursor } }, ListTasksResultSchema);
const upstreamLists = () => bed.upstream.received.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tasks/list').length;

describe('tasks/list through the gateway', () => {
  it("pages over the caller's own tasks only, each once, reading a bounded number of upstream pages per page", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const before = upstreamLists();
      const page = await listPage(alice, cursor);
      expect(upstreamLists() - before).toBeLessThanOrEqual(10);
      expect(page.tasks.length).toBeLessThanOrEqual(20 + 10);
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    expect(cursor).toBeUndefined();
    expect(pages).toBeGreaterThan(1);
    expect([...seen].sort()).toEqual([...mine].sort());
    expect(seen.some((id) => theirs.includes(id))).toBe(false);
  });

  it("refuses another caller's cursor and a changed one with -32602, and sends nothing upstream", async () => {
    const first = await listPage(alice);
    expect(first.nextCursor).toBeDefined();
    const before = upstreamLists();
    const replayed = await listPage(bob, first.nextCursor).then(() => undefined, (e: { code?: number; message?: string }) => e);
    expect(replayed).toMatchObject({ code: -32602 });
    expect(replayed?.message).toContain('Invalid cursor: the cursor was cut for another caller');
    const changed = `${first.nextCursor!.slice(0, -2)}AA`;
    const edited = await listPage(alice, changed).then(() => undefined, (e: { code?: number; message?: string }) => e);
    expect(edited).toMatchObject({ code: -32602 });
    expect(edited?.message).toContain('Invalid cursor');
    expect(upstreamLists()).toBe(before);
  });
});
