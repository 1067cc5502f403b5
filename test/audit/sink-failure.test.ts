// The sink on a failing disk, with real failures: /dev/full (every write fails with ENOSPC),
// a FIFO nobody reads (open blocks: a stalled disk), and a queue longer than maxQueue.
// Tests run as root, where a read-only mode does not stop writes, so permissions are no use.
import { spawnSync } from 'node:child_process';
import { renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AuditUnavailableError } from '../../src/audit/jsonl-sink.ts';
import { resolveAuditFiles, verifyFiles } from '../../src/audit/verify-files.ts';
import { readLines } from '../../src/audit/line-reader.ts';
import { openSink, requestRecord, tempDir } from './audit-fixtures.ts';

const FILE = 'gatehouse-audit.jsonl';
const CHILD = fileURLToPath(new URL('./fixtures/file-size-limit-child.ts', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A directory with 3 records already rotated out, and the current file pointing at /dev/full. */
async function failingDisk(label: string): Promise<string> {
  const dir = tempDir(label);
  dirs.push(dir);
  const { sink } = await openSink(dir);
  for (let i = 1; i <= 3; i++) await sink.record(requestRecord(i));
  await sink.close();
  renameSync(path.join(dir, FILE), path.join(dir, 'gatehouse-audit.000000000001.jsonl'));
  symlinkSync('/dev/full', path.join(dir, FILE));
  return dir;
}

async function records(dir: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const f of await resolveAuditFiles([dir])) for await (const l of readLines(f)) out.push(JSON.parse(l.text) as Record<string, unknown>);
  return out;
}

describe('fail closed', () => {
  it('rejects record() and turns unhealthy while writes fail (ENOSPC), then recovers by itself and records the gap', async () => {
    const dir = await failingDisk('closed');
    const { sink, logs } = await openSink(dir, { onFailure: 'closed', durability: 'batch', batchWindowMs: 5 });
    expect(sink.healthy()).toBe(true);

    const first = sink.record(requestRecord(10));
    await expect(first).rejects.toBeInstanceOf(AuditUnavailableError);
    await expect(first).rejects.toMatchObject({ reason: 'write_failed', message: expect.stringContaining('ENOSPC') });
    expect(sink.healthy()).toBe(false);
    await expect(sink.record(requestRecord(11))).rejects.toMatchObject({ reason: 'write_failed' });
    expect(sink.stats()).toMatchObject({ state: 'failing', rejected: 2, written: 0, lastSeq: 3 });
    expect(sink.stats().writeErrors).toBeGreaterThanOrEqual(1);
    expect(logs.filter((l) => l['level'] === 'error' && String(l['msg']).includes('ALARM'))).toHaveLength(1);

    // Retries keep failing while the disk is full.
    await expect.poll(() => sink.stats().writeErrors, { timeout: 2000 }).toBeGreaterThan(1);
    expect(sink.healthy()).toBe(false);

    // The operator frees the disk: the path is a regular file again.
    unlinkSync(path.join(dir, FILE));
    await vi.waitFor(() => expect(sink.healthy()).toBe(true), { timeout: 2000, interval: 20 });
    await sink.record(requestRecord(12));
    await sink.close();

    expect(await verifyFiles(await resolveAuditFiles([dir]))).toMatchObject({ ok: true, records: 5, fromGenesis: true });
    const all = await records(dir);
    expect(all[3]).toMatchObject({ seq: 4, type: 'event', event: 'audit_gap', detail: { reason: 'write_failed', error: 'ENOSPC', rejected: 2, dropped: 0 } });
    expect(all[4]).toMatchObject({ seq: 5, requestId: 'req-12' });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', msg: expect.stringContaining('writing again'), rejected: 2 }));
  });

  it('refuses records beyond maxQueue while the disk is slow, and is healthy again once the queue drains', async () => {
    const dir = tempDir('queue');
    dirs.push(dir);
    const { sink } = await openSink(dir, { onFailure: 'closed', durability: 'batch', batchWindowMs: 100, maxQueue: 5 });
    const queued = [1, 2, 3, 4, 5].map((i) => sink.record(requestRecord(i)));
    expect(sink.healthy()).toBe(false);
    expect(sink.stats().state).toBe('overloaded');
    await expect(sink.record(requestRecord(6))).rejects.toMatchObject({ reason: 'queue_full' });
    await Promise.all(queued);
    expect(sink.healthy()).toBe(true);
    await sink.record(requestRecord(7));
    await sink.close();
    const all = await records(dir);
    // The gap event opens the first batch written after the refusal.
    expect(all.map((r) => r['requestId'] ?? r['event'])).toEqual(['audit_gap', 'req-1', 'req-2', 'req-3', 'req-4', 'req-5', 'req-7']);
    expect(all[0]).toMatchObject({ detail: { reason: 'queue_full', rejected: 1, dropped: 0 } });
  });

  it('does not wait on a stalled disk longer than writeTimeout', async () => {
    const dir = tempDir('stall');
    dirs.push(dir);
    const fifo = path.join(dir, FILE);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const { sink } = await openSink(dir, { onFailure: 'closed', writeTimeoutMs: 150, retryIntervalMs: 30 });
    // The open of a FIFO without a reader never returns: only the deadline can end this.
    await expect(sink.record(requestRecord(1))).rejects.toMatchObject({ reason: 'stalled' });
    expect(sink.healthy()).toBe(false);
    // Unblock the stalled open (a reader appears), then give the path back as a regular file.
    const reader = await open(fifo, 'r');
    unlinkSync(fifo);
    await vi.waitFor(() => expect(sink.healthy()).toBe(true), { timeout: 3000, interval: 20 });
    await sink.record(requestRecord(2));
    await sink.close();
    await reader.close();
    expect(await verifyFiles(await resolveAuditFiles([dir]))).toMatchObject({ ok: true });
    expect((await records(dir)).map((r) => r['requestId'] ?? r['event'])).toEqual(['audit_gap', 'req-2']);
  });
});

describe('a write that lands after its deadline', () => {
  it('keeps its records in the chain, and the gap event counts only what was really lost', async () => {
    const dir = tempDir('late');
    dirs.push(dir);
    // A deadline of 1 ms against one batch of ~10 MB (write + fdatasync): the write is given
    // up on, then lands on this (healthy) disk a few milliseconds later.
    const { sink, logs } = await openSink(dir, { onFailure: 'closed', writeTimeoutMs: 1, retryIntervalMs: 30 });
    const big = 'x'.repeat(2000);
    const n = 5000;
    const settled = await Promise.allSettled(Array.from({ length: n }, (_, i) => sink.record(requestRecord(i + 1, { name: big }))));
    const refused = settled.filter((r) => r.status === 'rejected').length;
    expect(refused).toBeGreaterThan(0);
    await vi.waitFor(() => expect(sink.healthy()).toBe(true), { timeout: 5000, interval: 20 });
    await sink.close();
    expect(logs).toContainEqual(expect.objectContaining({ msg: expect.stringContaining('completed late') }));
    const all = await records(dir);
    const requests = all.filter((r) => r['type'] === 'request');
    const gaps = all.filter((r) => r['event'] === 'audit_gap').map((r) => r['detail'] as { rejected: number; reason: string });
    // Every record the late write held is there, and none of them is also counted as lost.
    expect(gaps).toHaveLength(1);
    expect(gaps[0]!.reason).toBe('stalled');
    expect(requests.length + gaps[0]!.rejected).toBe(n);
    expect(requests.length).toBeGreaterThan(0);
    expect(await verifyFiles(await resolveAuditFiles([dir]))).toMatchObject({ ok: true });
  });
});

describe('a write that fails part-way through the file (file size limit: short write, then EFBIG)', () => {
  it('never leaves a refused record in the chain: the torn tail is cut on retry or restart, and the chain continues', async () => {
    const dir = tempDir('fsize');
    dirs.push(dir);
    const child = spawnSync('bash', ['-c', `ulimit -f 8 && exec "${process.execPath}" --import tsx "${CHILD}" "${dir}"`], { encoding: 'utf8', timeout: 30_000 });
    expect(child.status, child.stderr).toBe(0);
    const out = JSON.parse(child.stdout) as { resolved: string[]; rejected?: string; healthyAfterFailure: boolean; logs: Record<string, unknown>[] };
    expect(out.rejected).toMatch(/EFBIG/);
    expect(out.healthyAfterFailure).toBe(false);
    expect(out.resolved.length).toBeGreaterThan(5);
    expect(out.logs).toContainEqual(expect.objectContaining({ msg: expect.stringContaining('removed the unacknowledged tail') }));

    // Restart without the limit: the chain continues after the last acknowledged record.
    const { sink } = await openSink(dir);
    await sink.record(requestRecord(5000));
    await sink.close();
    const report = await verifyFiles(await resolveAuditFiles([dir]));
    expect(report).toMatchObject({ ok: true, fromGenesis: true });
    expect(report.incomplete).toBeUndefined();
    const ids = (await records(dir)).filter((r) => r['type'] === 'request').map((r) => r['requestId']);
    expect(ids).toEqual([...out.resolved, 'req-5000']);
  });
});

describe('fail open', () => {
  it('keeps serving while writes fail: record() resolves, drops are counted, an alarm is logged, the gap is recorded', async () => {
    const dir = await failingDisk('open');
    const { sink, logs } = await openSink(dir, { onFailure: 'open', durability: 'sync' });
    await sink.record(requestRecord(10));
    for (let i = 11; i < 20; i++) await sink.record(requestRecord(i));
    expect(sink.healthy()).toBe(true);
    expect(sink.stats()).toMatchObject({ state: 'failing', dropped: 10, rejected: 0, written: 0 });
    const alarms = logs.filter((l) => l['level'] === 'error' && String(l['msg']).includes('ALARM'));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ msg: expect.stringContaining('dropped'), reason: 'write_failed', error: 'ENOSPC' });

    unlinkSync(path.join(dir, FILE));
    await vi.waitFor(() => expect(sink.stats().state).toBe('ok'), { timeout: 2000, interval: 20 });
    await sink.record(requestRecord(20));
    await sink.close();
    const all = await records(dir);
    expect(all.slice(3).map((r) => r['requestId'] ?? r['event'])).toEqual(['audit_gap', 'req-20']);
    expect(all[3]).toMatchObject({ detail: { reason: 'write_failed', dropped: 10, rejected: 0 } });
    expect(await verifyFiles(await resolveAuditFiles([dir]))).toMatchObject({ ok: true, records: 5 });
  });

  it('drops records beyond maxQueue at once instead of waiting', async () => {
    const dir = tempDir('open-queue');
    dirs.push(dir);
    const { sink } = await openSink(dir, { onFailure: 'open', durability: 'batch', batchWindowMs: 100, maxQueue: 2 });
    const queued = [1, 2].map((i) => sink.record(requestRecord(i)));
    await sink.record(requestRecord(3));
    // Resolved while the batch it would have waited for is still unwritten.
    expect(sink.stats()).toMatchObject({ dropped: 1, state: 'overloaded', written: 0, queueDepth: 2 });
    expect(sink.healthy()).toBe(true);
    await Promise.all(queued);
    await sink.close();
  });
});
