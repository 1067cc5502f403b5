// The yardstick of target 1's third check: what one durable append costs a Node.js process
// on this disk, measured in the same run as the arms it judges. A child pinned to the servers'
// CPU appends a batch-sized buffer and fdatasyncs it, `count` times, with the same async
// FileHandle calls the audit writer makes (write, then datasync), and reports its own CPU
// time (user + system, every thread) and wall time per append. The file lives in the run's
// scratch directory, on the disk the gateways' audit files use.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SERVER_CPU, type Pinning } from './child-processes.ts';

const run = promisify(execFile);

export interface FdatasyncCost {
  /** CPU µs of the process per write + fdatasync. */
  cpuUs: number;
  /** Wall µs per write + fdatasync (the disk's latency as Node sees it). */
  wallUs: number;
  appends: number;
  bytesPerAppend: number;
}

// Kept as source text, run with `node -e`: nothing but node:fs, so what it measures is the
// system calls and Node's own async file machinery, not this repository's code.
const PROBE = `
const { open } = require('node:fs/promises');
(async () => {
  const [file, count, bytes] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
  const handle = await open(file, 'a');
  const buf = Buffer.alloc(bytes, 'x');
  for (let i = 0; i < 20; i++) { await handle.write(buf); await handle.datasync(); }
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) { await handle.write(buf); await handle.datasync(); }
  const cpu = process.cpuUsage(cpu0);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
  await handle.close();
  process.stdout.write(JSON.stringify({ cpuUs: (cpu.user + cpu.system) / count, wallUs: wallUs / count }));
})().catch((e) => { process.stderr.write(String(e)); process.exit(1); });
`;

/** Runs the probe once (a few hundred appends, bounded: about a second on a spinning disk). */
export async function measureFdatasyncCost(pinning: Pinning, dir: string, appends = 300, bytesPerAppend = 4096): Promise<FdatasyncCost> {
  const file = join(dir, 'fdatasync-yardstick.log');
  const args = ['-e', PROBE, file, String(appends), String(bytesPerAppend)];
  const { stdout } = pinning.taskset
    ? await run(pinning.taskset, ['-c', String(SERVER_CPU), process.execPath, ...args], { timeout: 60_000 })
    : await run(process.execPath, args, { timeout: 60_000 });
  const measured = JSON.parse(stdout) as { cpuUs: number; wallUs: number };
  return { ...measured, appends, bytesPerAppend };
}
