// CPU time, memory and child processes of a process from /proc (Linux). utime+stime come
// in clock ticks (`getconf CLK_TCK`, usually 100/s), so CPU per call is only meaningful over
// runs of seconds: a 5 s run at half a core is ~250 ticks, i.e. 0.4 % resolution.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let clockTicks: number | undefined;

export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    const n = Number(out.stdout?.trim());
    clockTicks = Number.isFinite(n) && n > 0 ? n : 100;
  }
  return clockTicks;
}

/** utime + stime of `pid` in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name (which may hold spaces); utime and stime are
  // fields 14 and 15 of the whole line, i.e. 12 and 13 after it.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(rest[11]) + Number(rest[12]);
  return (ticks / clockTicksPerSecond()) * 1e6;
}

export interface MemoryStats {
  rssMb: number;
  /** Peak RSS since the process started. */
  hwmMb: number;
}

export function memoryStats(pid: number): MemoryStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/** Direct children of `pid` (Linux /proc/<pid>/task/<tid>/children); [] when it is gone. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // exited
  }
  return out;
}

/** Children, grandchildren, ... of `pid`, parents before their children. */
export function descendantPids(pid: number): number[] {
  const out: number[] = [];
  for (const child of childPids(pid)) out.push(child, ...descendantPids(child));
  return out;
}

/** The command line of `pid`, arguments joined by spaces; '' when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
