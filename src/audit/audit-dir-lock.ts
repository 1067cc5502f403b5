// One writer per audit directory. Two gateways appending to one hash chain interleave their
// lines and break it within seconds (each links to the head it last wrote, not to the
// other's), so the sink takes a lock file in the directory before it opens the chain, and a
// second gateway refuses to start, naming the directory and the holder.
//
// The lock file is created with O_EXCL and holds {pid, host, since, token}. A lock is stale,
// and taken over, when its holder is gone: on this host, when no process has its pid (or the
// pid is this process's own but the lock is not one this process holds: a container
// restarted with the same pid); from another host (a shared volume), when the holder has
// not renewed it for LEASE_STALE_MS, since its pid cannot be checked from here. The holder
// renews it (the file's mtime) every LEASE_RENEW_MS. Releasing removes the file only while
// it is still this holder's. Taking over a stale lock re-reads it first, so of two gateways
// starting at once over one stale lock, one wins and the other sees the winner's lock.

import { randomUUID } from 'node:crypto';
import { mkdir, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Logger } from '../telemetry/logger.ts';

export const AUDIT_LOCK_FILE = '.gatehouse-audit.lock';
export const LEASE_RENEW_MS = 10_000;
export const LEASE_STALE_MS = 60_000;

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  token: string;
}

export interface AuditDirLock {
  file: string;
  holder: LockHolder;
  release(): Promise<void>;
}

export interface AuditDirLockDeps {
  logger: Logger;
  pid?: number;
  host?: string;
  now?: () => number;
  /** Whether a process with this pid exists on this host. */
  alive?: (pid: number) => boolean;
}

/** Thrown when another gateway holds the directory; its message is for the operator. */
export class AuditDirBusyError extends Error {
  override readonly name = 'AuditDirBusyError';
  constructor(
    readonly dir: string,
    readonly lockFile: string,
    readonly holder: LockHolder | undefined,
  ) {
    const who = holder === undefined ? 'a gateway whose lock file is unreadable' : `pid ${holder.pid} on host ${holder.host}, since ${holder.since}`;
    super(
      `the audit directory ${dir} is in use by another gateway (${who}; lock file ${lockFile}): ` +
        'two gateways must not write one audit trail. Give each its own audit.dir, or stop the other one ' +
        '(a lock left by a gateway that is gone is taken over by itself: on this host when its process is gone, ' +
        `from another host ${LEASE_STALE_MS / 1000} s after it was last renewed)`,
    );
  }
}

// Tokens of the locks this process holds, so a lock with this process's own pid is told
// apart: held now (a second sink on the same directory) or left by an earlier life.
const heldHere = new Set<string>();

export async function lockAuditDir(dir: string, deps: AuditDirLockDeps): Promise<AuditDirLock> {
  const pid = deps.pid ?? process.pid;
  const host = deps.host ?? hostname();
  const now = deps.now ?? Date.now;
  const alive = deps.alive ?? processExists;
  const file = path.join(dir, AUDIT_LOCK_FILE);
  const me: LockHolder = { pid, host, since: new Date(now()).toISOString(), token: randomUUID() };
  await mkdir(dir, { recursive: true });
  // Two rounds: one to find a stale lock and remove it, one to take its place.
  for (let round = 0; round < 2; round++) {
    try {
      await writeFile(file, `${JSON.stringify(me)}\n`, { flag: 'wx', mode: 0o644 });
      return held(file, me, deps.logger, now);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const found = await readLock(file);
    if (found === undefined) continue; // released between our two calls: try again
    const stale = isStale(found, { pid, host, now: now(), alive });
    if (!stale) throw new AuditDirBusyError(dir, file, found.holder);
    const again = await readLock(file);
    if (again?.text === found.text) {
      await unlink(file).catch(() => undefined);
      deps.logger.warn('audit: took over a stale lock of the audit directory', { dir, holder: found.holder ?? null });
    }
  }
  const last = await readLock(file);
  throw new AuditDirBusyError(dir, file, last?.holder);
}

interface FoundLock {
  text: string;
  holder: LockHolder | undefined;
  mtimeMs: number;
}

function isStale(found: FoundLock, me: { pid: number; host: string; now: number; alive: (pid: number) => boolean }): boolean {
  const h = found.holder;
  const unrenewed = me.now - found.mtimeMs > LEASE_STALE_MS;
  if (h === undefined || h.host !== me.host) return unrenewed;
  if (h.pid === me.pid) return !heldHere.has(h.token);
  return !me.alive(h.pid);
}

function held(file: string, holder: LockHolder, logger: Logger, now: () => number): AuditDirLock {
  heldHere.add(holder.token);
  let lost = false;
  const renew = setInterval(() => {
    void (async () => {
      const current = await readLock(file);
      if (current?.holder?.token !== holder.token) {
        if (!lost) logger.error('audit: the lock of the audit directory is no longer this gateway\'s; another one may be writing the same trail', { file });
        lost = true;
        return;
      }
      const t = new Date(now());
      await utimes(file, t, t).catch(() => undefined);
    })().catch((e: unknown) => logger.warn('audit: renewing the lock of the audit directory failed', { file, error: (e as Error).message }));
  }, LEASE_RENEW_MS);
  renew.unref();
  let released: Promise<void> | undefined;
  return {
    file,
    holder,
    release() {
      released ??= (async () => {
        clearInterval(renew);
        heldHere.delete(holder.token);
        const current = await readLock(file);
        if (current?.holder?.token === holder.token) await unlink(file).catch(() => undefined);
      })();
      return released;
    },
  };
}

async function readLock(file: string): Promise<FoundLock | undefined> {
  try {
    const [text, st] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    return { text, holder: parseHolder(text), mtimeMs: st.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.since === 'string' && typeof v.token === 'string') return v as LockHolder;
  } catch {
    // A lock being written this instant, or not ours: judged by its age alone.
  }
  return undefined;
}

/** kill(pid, 0) checks existence without signalling; EPERM means it exists as another user's. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
