// Group commit, watched through the audit file's fdatasyncs (gated-audit-file.ts): records
// that arrive while one sync is in flight all share the next write and sync; no caller is
// released before the sync that covers its line; under overlapping calls the next write waits
// up to groupCommitWait for more, a lone caller never waits; a failing fdatasync fails every
// caller of its batch, and the chain verifies afterwards; the queue is bounded in bytes.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { AuditUnavailableError } from '../../src/audit/jsonl-sink.ts';
import { resolveAuditFiles, verifyFiles } from '../../src/audit/verify-files.ts';
import { openSink, requestRecord, tempDir } from './audit-fixtures.ts';
import { gatedAuditFile } from './gated-audit-file.ts';

const FILE = 'gatehouse-audit.jsonl';
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
afterEach(() => void vi.useRealTimers());

function fresh(label: string): string {
  const dir = tempDir(label);
  dirs.push(dir);
  return dir;
}

function lines(dir: string): Record<string, unknown>[] {
  const text = readFileSync(path.join(dir, FILE), 'utf8');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const ids = (dir: string): unknown[] => lines(dir).map((l) => l['requestId']);

/** Lets the event loop turn (real immediates and I/O; tests here fake only timeouts, which
 * expect.poll would wait on) until `done` holds, for at most 5 s of the real clock. */
async function turnsUntil(done: () => boolean): Promise<void> {
  const until = Date.now() + 5000;
  while (!done() && Date.now() < until) await new Promise((r) => setImmediate(r));
  expect(done()).toBe(true);
}

/** record(), remembering when it settled. */
function tracked(p: Promise<void>): { done: () => boolean; failed: () => unknown; settled: Promise<void> } {
  let done = false;
  let failed: unknown;
  const settled = p.then(
    () => void (done = true),
    (e: unknown) => void (failed = e),
  );
  return { done: () => done, failed: () => failed, settled };
}

/** A sync sink told of the requests under way (`active.n`, one at first) with a minute's
 * groupCommitWait and the clock frozen, so only records arriving can end a wait; its first
 * record's fdatasync is held. */
async function countedSinkSyncing(label: string) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const dir = fresh(label);
  const fs = gatedAuditFile();
  const active = { n: 1 };
  const { sink } = await openSink(dir, { durability: 'sync', groupCommitWaitMs: 60_000 }, { openFile: fs.openFile, activeRequests: () => active.n });
  const first = sink.record(requestRecord(0));
  await turnsUntil(() => fs.waiting() === 1);
  return { dir, fs, active, sink, first };
}

describe('group commit in sync mode', () => {
  it('writes every record that arrived during a sync in one write with one sync, and releases each caller only after the sync covering it', async () => {
    const dir = fresh('gc-share');
    const fs = gatedAuditFile();
    const { sink } = await openSink(dir, { durability: 'sync', groupCommitWaitMs: 0 }, { openFile: fs.openFile });
    const first = tracked(sink.record(requestRecord(0)));
    await expect.poll(() => fs.waiting()).toBe(1);
    // The line is in the file (written), but not yet synced: its caller must still wait.
    expect(ids(dir)).toEqual(['req-0']);
    const rest = Array.from({ length: 30 }, (_, i) => tracked(sink.record(requestRecord(i + 1))));
    expect(first.done()).toBe(false);
    expect(sink.stats()).toMatchObject({ queueDepth: 31, written: 0 });

    fs.release();
    await first.settled;
    expect(first.done()).toBe(true);
    // The thirty went out together: one more write, one more sync, still not released.
    await expect.poll(() => fs.waiting()).toBe(1);
    expect(ids(dir)).toHaveLength(31);
    expect(rest.some((r) => r.done())).toBe(false);

    fs.release();
    await Promise.all(rest.map((r) => r.settled));
    expect(rest.every((r) => r.done())).toBe(true);
    expect(sink.stats()).toMatchObject({ written: 31, flushes: 2, writes: 2, syncs: 2, queueDepth: 0, queueBytes: 0 });
    expect(fs.asked()).toBe(2);
    await sink.close();
    expect(await verifyFiles(await resolveAuditFiles([dir]))).toMatchObject({ ok: true, records: 31 });
  });

  it('lets the next write wait up to groupCommitWait for more records when two or more arrived during the sync', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const dir = fresh('gc-wait');
    const fs = gatedAuditFile();
    const { sink } = await openSink(dir, { durability: 'sync', groupCommitWaitMs: 5 }, { openFile: fs.openFile });
    const first = sink.record(requestRecord(0));
    await expect.poll(() => fs.waiting()).toBe(1);
    const followers = [1, 2].map((i) => sink.record(requestRecord(i)));
    fs.release();
    await first;
    // Two followers: calls overlap, so the next write waits for more instead of starting.
    await turnsUntil(() => sink.stats().commitWaits === 1);
    const late = [3, 4, 5].map((i) => sink.record(requestRecord(i)));
    expect(fs.waiting()).toBe(0);
    await vi.advanceTimersByTimeAsync(5);
    await turnsUntil(() => fs.waiting() === 1);
    fs.release();
    await Promise.all([...followers, ...late]);
    expect(ids(dir)).toEqual(['req-0', 'req-1', 'req-2', 'req-3', 'req-4', 'req-5']);
    expect(sink.stats()).toMatchObject({ written: 6, syncs: 2, commitWaits: 1 });
    await sink.close();
  });

  it('never makes a lone caller, or a single follower, wait for the timer', async () => {
    // With the clock frozen, any write that waited for followers would never start.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const dir = fresh('gc-lone');
    const fs = gatedAuditFile();
    fs.gated = false;
    const { sink } = await openSink(dir, { durability: 'sync', groupCommitWaitMs: 60_000 }, { openFile: fs.openFile });
    for (let i = 0; i < 5; i++) await sink.record(requestRecord(i));
    fs.gated = true;
    const first = sink.record(requestRecord(5));
    await expect.poll(() => fs.waiting()).toBe(1);
    const single = sink.record(requestRecord(6));
    fs.release();
    await first;
    await expect.poll(() => fs.waiting()).toBe(1);
    fs.release();
    await single;
    expect(sink.stats()).toMatchObject({ written: 7, syncs: 7, commitWaits: 0 });
    await sink.close();
  });

  it('with the requests under way counted, waits for the records still coming and writes once the last has come, not at groupCommitWait', async () => {
    const { dir, fs, active, sink, first } = await countedSinkSyncing('gc-coming');
    // Five more requests arrive; two record during the sync, three are still under way.
    active.n = 6;
    const followers = [1, 2].map((i) => tracked(sink.record(requestRecord(i))));
    active.n = 5;
    fs.gated = false;
    fs.release();
    await first;
    await turnsUntil(() => sink.stats().commitWaits === 1);
    const later = [3, 4].map((i) => tracked(sink.record(requestRecord(i))));
    await new Promise((r) => setImmediate(r));
    // One record is still coming: nothing written, nobody released.
    expect(fs.asked()).toBe(1);
    expect([...followers, ...later].some((r) => r.done())).toBe(false);
    const last = sink.record(requestRecord(5));
    await Promise.all([...followers, ...later].map((r) => r.settled).concat(last));
    expect(ids(dir)).toEqual(['req-0', 'req-1', 'req-2', 'req-3', 'req-4', 'req-5']);
    expect(sink.stats()).toMatchObject({ written: 6, writes: 2, syncs: 2, commitWaits: 1 });
    await sink.close();
  });

  it('with the requests under way counted, writes at once when nothing more is coming, however many arrived during the previous sync', async () => {
    const { fs, active, sink, first } = await countedSinkSyncing('gc-none-coming');
    active.n = 6;
    const followers = [1, 2, 3, 4, 5].map((i) => sink.record(requestRecord(i)));
    // The first request is answered once its record is durable: the five queued are all that is under way.
    active.n = 5;
    fs.release();
    await first;
    await turnsUntil(() => fs.waiting() === 1);
    fs.release();
    await Promise.all(followers);
    expect(sink.stats()).toMatchObject({ written: 6, syncs: 2, commitWaits: 0 });
    await sink.close();
  });

  it('fails every caller of a batch whose fdatasync fails, turns unhealthy, and recovers with a gap event and an intact chain', async () => {
    const dir = fresh('gc-fail');
    const fs = gatedAuditFile();
    const { sink, logs } = await openSink(dir, { durability: 'sync', groupCommitWaitMs: 0, onFailure: 'closed', retryIntervalMs: 20 }, { openFile: fs.openFile });
    fs.gated = false;
    await sink.record(requestRecord(0));
    fs.gated = true;
    const first = tracked(sink.record(requestRecord(1)));
    await expect.poll(() => fs.waiting()).toBe(1);
    const batch = Array.from({ length: 12 }, (_, i) => tracked(sink.record(requestRecord(i + 2))));
    fs.release();
    await first.settled;
    await expect.poll(() => fs.waiting()).toBe(1);
    fs.failSyncs = true;
    fs.gated = false;
    fs.release();
    await Promise.all(batch.map((b) => b.settled));
    for (const b of batch) {
      expect(b.failed()).toBeInstanceOf(AuditUnavailableError);
      expect(b.failed()).toMatchObject({ reason: 'write_failed', message: expect.stringContaining('EIO') });
    }
    expect(first.done()).toBe(true);
    expect(sink.healthy()).toBe(false);
    expect(sink.stats()).toMatchObject({ state: 'failing', written: 2, rejected: 12 });
    expect(logs.some((l) => l['level'] === 'error' && String(l['msg']).includes('ALARM'))).toBe(true);
    // Refused at once while failing, not queued behind the broken disk.
    await expect(sink.record(requestRecord(50))).rejects.toMatchObject({ reason: 'write_failed' });

    fs.failSyncs = false;
    await expect.poll(() => sink.healthy(), { timeout: 5000 }).toBe(true);
    await sink.record(requestRecord(51));
    await sink.close();
    expect(await verifyFiles(await resolveAuditFiles([dir]))).toMatchObject({ ok: true, records: 4, fromGenesis: true });
    const all = lines(dir);
    // The failed batch's lines were cut off the file: only what was acknowledged stays.
    expect(all.map((l) => l['requestId'] ?? l['event'])).toEqual(['req-0', 'req-1', 'audit_gap', 'req-51']);
    expect(all[2]).toMatchObject({ detail: { reason: 'write_failed', error: 'EIO', rejected: 13, dropped: 0 } });
  });
});

describe('the queue bound in bytes', () => {
  it('refuses records past maxQueueBytes while the disk is slow (unhealthy: new calls are refused), and takes them again once drained', async () => {
    const dir = fresh('gc-bytes');
    const fs = gatedAuditFile();
    const sizes = [0, 1, 2].map((i) => Buffer.byteLength(JSON.stringify(requestRecord(i))));
    const three = sizes.reduce((a, b) => a + b);
    const { sink } = await openSink(dir, { durability: 'sync', groupCommitWaitMs: 0, maxQueueBytes: three + 10 }, { openFile: fs.openFile });
    const accepted = [0, 1, 2].map((i) => sink.record(requestRecord(i)));
    await expect.poll(() => fs.waiting()).toBe(1);
    expect(sink.healthy()).toBe(true);
    const refused = sink.record(requestRecord(3));
    await expect(refused).rejects.toMatchObject({ reason: 'queue_full' });
    expect(sink.stats()).toMatchObject({ queueDepth: 3, rejected: 1 });
    expect(sink.stats().queueBytes).toBe(three);

    fs.gated = false;
    fs.release();
    await Promise.all(accepted);
    expect(sink.stats()).toMatchObject({ queueBytes: 0, state: 'ok' });
    await sink.record(requestRecord(4));
    await sink.close();
    expect(lines(dir).map((l) => l['requestId'] ?? l['event'])).toEqual(['req-0', 'req-1', 'req-2', 'audit_gap', 'req-4']);
  });

  it('reports overloaded and unhealthy while the bytes waiting reach the bound, and lets one record larger than the bound through alone', async () => {
    const dir = fresh('gc-bytes-big');
    const fs = gatedAuditFile();
    const { sink } = await openSink(dir, { durability: 'sync', groupCommitWaitMs: 0, maxQueueBytes: 2_000 }, { openFile: fs.openFile });
    const big = sink.record(requestRecord(0, { arguments: { full: 'x'.repeat(5_000) } }));
    await expect.poll(() => fs.waiting()).toBe(1);
    expect(sink.healthy()).toBe(false);
    expect(sink.stats().state).toBe('overloaded');
    fs.gated = false;
    fs.release();
    await big;
    expect(sink.healthy()).toBe(true);
    await sink.close();
    expect(ids(dir)).toEqual(['req-0']);
  });
});
