// When record() resolves, the record is on disk: in sync mode at once, in batch mode after
// the batch window, with one write and one fsync for every record of the batch.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { verifyFiles } from '../../src/audit/verify-files.ts';
import { openSink, requestRecord, tempDir } from './audit-fixtures.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
afterEach(() => void vi.useRealTimers());

function fresh(label: string): { dir: string; file: string } {
  const dir = tempDir(label);
  dirs.push(dir);
  return { dir, file: path.join(dir, 'gatehouse-audit.jsonl') };
}

function requestIds(file: string): string[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { requestId: string }).requestId);
}

describe('sync durability', () => {
  it('has the line in the file by the time record() resolves', async () => {
    const { dir, file } = fresh('sync');
    const { sink } = await openSink(dir, { durability: 'sync' });
    for (let i = 1; i <= 20; i++) {
      await sink.record(requestRecord(i));
      expect(requestIds(file).at(-1)).toBe(`req-${i}`);
    }
    expect(sink.stats()).toMatchObject({ written: 20, flushes: 20, writes: 20, syncs: 20, queueDepth: 0, lagMs: 0, state: 'ok' });
    await sink.close();
  });

  it('lets records that arrive during an fsync share the next one (group commit), each resolved only once written', async () => {
    const { dir, file } = fresh('sync-group');
    const { sink } = await openSink(dir, { durability: 'sync' });
    const seen: boolean[] = [];
    await Promise.all(Array.from({ length: 50 }, (_, i) => sink.record(requestRecord(i)).then(() => seen.push(requestIds(file).includes(`req-${i}`)))));
    expect(seen).toHaveLength(50);
    expect(seen.every(Boolean)).toBe(true);
    // Fifty records of one tick: one write(2) and one sync (O_DSYNC write or fdatasync) for all.
    expect(sink.stats()).toMatchObject({ written: 50, flushes: 1, writes: 1, syncs: 1 });
    await sink.close();
    expect(await verifyFiles([file])).toMatchObject({ ok: true, records: 50 });
  });

  it('writes the records of separate I/O callbacks in one event-loop turn with one write and one sync', async () => {
    const { dir, file } = fresh('sync-turn');
    const { sink } = await openSink(dir, { durability: 'sync' });
    // Ten immediates queued together run in one check phase, each its own callback (with
    // microtasks drained in between), like the upstream replies that one poll of the event loop
    // delivers. (Ten timers of 0 ms are not sure to share a phase: each reads the clock when
    // it is set, and on a loaded machine the later ones may fall due a millisecond later.)
    const done = Array.from({ length: 10 }, (_, i) => new Promise<boolean>((resolve) => setImmediate(() => void sink.record(requestRecord(i)).then(() => resolve(requestIds(file).includes(`req-${i}`))))));
    expect(await Promise.all(done)).toEqual(Array(10).fill(true));
    expect(sink.stats()).toMatchObject({ written: 10, flushes: 1, writes: 1, syncs: 1 });
    await sink.close();
  });

  it('lets records arriving while a write is in flight accumulate into the next one', async () => {
    const { dir, file } = fresh('sync-inflight');
    const { sink } = await openSink(dir, { durability: 'sync' });
    const first = sink.record(requestRecord(0));
    // Once the first batch is handed to the disk, these five wait for it and go together.
    await new Promise((r) => setImmediate(r));
    expect(sink.stats().queueDepth).toBe(1);
    const rest = [1, 2, 3, 4, 5].map((i) => sink.record(requestRecord(i)));
    await first;
    expect(requestIds(file)).toEqual(['req-0']);
    await Promise.all(rest);
    expect(requestIds(file)).toEqual(['req-0', 'req-1', 'req-2', 'req-3', 'req-4', 'req-5']);
    expect(sink.stats()).toMatchObject({ written: 6, flushes: 2, writes: 2, syncs: 2 });
    await sink.close();
  });
});

describe('batch durability', () => {
  it('resolves many concurrent record() calls after one write and fsync, not before the batch window', async () => {
    const { dir, file } = fresh('batch');
    // The batch window passes on fake timers and Date; the file system is the real one.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { sink } = await openSink(dir, { durability: 'batch', batchWindowMs: 100 });
    const started = Date.now();
    const resolvedAt: number[] = [];
    const onDisk: boolean[] = [];
    const all = Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        sink.record(requestRecord(i)).then(() => {
          resolvedAt.push(Date.now());
          onDisk.push(readFileSync(file, 'utf8').includes(`"requestId":"req-${i}"`));
        }),
      ),
    );
    await vi.advanceTimersByTimeAsync(99);
    expect(requestIds(file)).toEqual([]);
    expect(sink.stats()).toMatchObject({ queueDepth: 500, written: 0, lagMs: 99 });
    expect(resolvedAt).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await all;
    expect(Math.min(...resolvedAt) - started).toBe(100);
    expect(onDisk.every(Boolean)).toBe(true);
    expect(sink.stats()).toMatchObject({ written: 500, flushes: 1, writes: 1, syncs: 1, queueDepth: 0 });
    await sink.close();
  });

  it('writes what is waiting when closed', async () => {
    const { dir, file } = fresh('batch-close');
    const { sink } = await openSink(dir, { durability: 'batch', batchWindowMs: 10_000 });
    const pending = Promise.all([1, 2, 3].map((i) => sink.record(requestRecord(i))));
    await sink.close();
    await pending;
    expect(requestIds(file)).toEqual(['req-1', 'req-2', 'req-3']);
    await expect(sink.record(requestRecord(4))).rejects.toMatchObject({ reason: 'closed' });
  });

  it('rejects a record that is not chainable without harming the batch', async () => {
    const { dir, file } = fresh('batch-bad');
    const { sink } = await openSink(dir, { durability: 'batch', batchWindowMs: 5 });
    const bad = { ...requestRecord(1), seq: 5 } as unknown as Parameters<typeof sink.record>[0];
    const results = await Promise.allSettled([sink.record(requestRecord(0)), sink.record(bad), sink.record(requestRecord(2))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(requestIds(file)).toEqual(['req-0', 'req-2']);
    await sink.close();
  });
});
