// One gateway per audit directory: the lock file the sink takes, against real files and real
// processes. A second writer is refused with the directory and the holder named; a lock whose
// holder is gone (a dead pid on this host, an unrenewed lease from another host, a pid reused
// by a restarted container) is taken over; a lock is only ever removed by its own holder.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIT_LOCK_FILE, AuditDirBusyError, LEASE_STALE_MS, lockAuditDir } from '../../src/audit/audit-dir-lock.ts';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';
import { openSink, requestRecord, tempDir } from './audit-fixtures.ts';

const dirs: string[] = [];
const fresh = (label: string): string => {
  const d = tempDir(label);
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function writeLock(dir: string, holder: Record<string, unknown> | string, ageMs = 0): string {
  const file = path.join(dir, AUDIT_LOCK_FILE);
  writeFileSync(file, typeof holder === 'string' ? holder : `${JSON.stringify({ since: new Date().toISOString(), token: 'theirs', ...holder })}\n`);
  const t = new Date(Date.now() - ageMs);
  utimesSync(file, t, t);
  return file;
}

/** The pid of a process that has exited (its pid is free now). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

const { logger, lines } = createMemoryLogger();

describe('the audit directory lock', () => {
  it('refuses a second sink on the same directory, naming the directory, pid and host', async () => {
    const dir = fresh('busy');
    const first = await openSink(dir);
    await first.sink.record(requestRecord(1));
    const second = openSink(dir);
    await expect(second).rejects.toBeInstanceOf(AuditDirBusyError);
    await expect(second).rejects.toThrow(`the audit directory ${dir} is in use by another gateway (pid ${process.pid} on host ${hostname()}`);
    await first.sink.close();
    expect(existsSync(path.join(dir, AUDIT_LOCK_FILE))).toBe(false);
    // Released on close: the next one opens and continues the chain.
    const third = await openSink(dir);
    await third.sink.record(requestRecord(2));
    await third.sink.close();
  });

  it('takes over a lock whose holder on this host has died', async () => {
    const dir = fresh('dead');
    const pid = await deadPid();
    writeLock(dir, { pid, host: hostname() });
    const lock = await lockAuditDir(dir, { logger });
    expect(JSON.parse(readFileSync(lock.file, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'audit: took over a stale lock of the audit directory', dir }));
    await lock.release();
  });

  it('refuses while the holder on this host is alive', async () => {
    const dir = fresh('alive');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    try {
      writeLock(dir, { pid: child.pid, host: hostname() }, 10 * LEASE_STALE_MS);
      await expect(lockAuditDir(dir, { logger })).rejects.toThrow(`pid ${child.pid} on host ${hostname()}`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over its own pid from a lock this process does not hold (a restarted container)', async () => {
    const dir = fresh('own-pid');
    writeLock(dir, { pid: process.pid, host: hostname() });
    const lock = await lockAuditDir(dir, { logger });
    expect(JSON.parse(readFileSync(lock.file, 'utf8')).token).not.toBe('theirs');
    await lock.release();
  });

  it('trusts a renewed lease from another host and takes over one left unrenewed', async () => {
    const dir = fresh('other-host');
    writeLock(dir, { pid: 1, host: 'gatehouse-elsewhere' }, LEASE_STALE_MS / 2);
    await expect(lockAuditDir(dir, { logger })).rejects.toThrow('pid 1 on host gatehouse-elsewhere');
    writeLock(dir, { pid: 1, host: 'gatehouse-elsewhere' }, LEASE_STALE_MS * 2);
    const lock = await lockAuditDir(dir, { logger });
    await lock.release();
  });

  it('judges an unreadable lock by its age alone', async () => {
    const dir = fresh('garbage');
    writeLock(dir, 'not json');
    await expect(lockAuditDir(dir, { logger })).rejects.toThrow('a gateway whose lock file is unreadable');
    writeLock(dir, 'not json', LEASE_STALE_MS * 2);
    const lock = await lockAuditDir(dir, { logger });
    await lock.release();
  });

  it('never removes a lock that is no longer its own', async () => {
    const dir = fresh('replaced');
    const lock = await lockAuditDir(dir, { logger });
    const theirs = writeLock(dir, { pid: 1, host: 'gatehouse-elsewhere' });
    await lock.release();
    expect(JSON.parse(readFileSync(theirs, 'utf8'))).toMatchObject({ host: 'gatehouse-elsewhere' });
  });
});
