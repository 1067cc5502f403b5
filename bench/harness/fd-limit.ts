// The file-descriptor limit of the benchmark's own process, raised for the ramps that hold
// thousands of connections (the servers it starts afterwards inherit it). Node has no
// setrlimit, so `prlimit` (util-linux) sets it on our own pid: raising the soft limit up to
// the hard one needs no privilege, raising the hard one needs root (CAP_SYS_RESOURCE).
// Benchmark only: Gatehouse itself never changes its limits.
import { spawnSync } from 'node:child_process';

export interface FdLimit {
  soft: number;
  hard: number;
}

export function readFdLimit(pid: number = process.pid): FdLimit | undefined {
  const out = spawnSync('prlimit', ['--pid', String(pid), '--nofile', '--raw', '--noheadings', '--output', 'SOFT,HARD'], { encoding: 'utf8' });
  if (out.status !== 0) return undefined;
  const [soft, hard] = out.stdout.trim().split(/\s+/).map(Number);
  return soft !== undefined && hard !== undefined && Number.isFinite(soft) && Number.isFinite(hard) ? { soft, hard } : undefined;
}

/** Raises our limit to at least `wanted` (both soft and hard when allowed); says what it was and is. */
export function raiseFdLimit(wanted: number): { before: FdLimit | undefined; after: FdLimit | undefined } {
  const before = readFdLimit();
  if (before === undefined || before.soft >= wanted) return { before, after: before };
  const hard = Math.max(before.hard, wanted);
  const tried = spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${wanted}:${hard}`], { encoding: 'utf8' });
  // Not root: the soft limit can still go up to the hard one.
  if (tried.status !== 0) spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${Math.min(wanted, before.hard)}:${before.hard}`]);
  return { before, after: readFdLimit() };
}
