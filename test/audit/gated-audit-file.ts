// An audit file opener for the sink tests: the real file, whose fdatasyncs wait until the test
// releases them one by one, and can be made to fail with EIO. So a test sees exactly which
// records one sync covered, and when each caller was released, without timing anything.
import { open } from 'node:fs/promises';
import type { AuditFileHandle, OpenAuditFile } from '../../src/audit/audit-file-writer.ts';

export interface GatedAuditFile {
  openFile: OpenAuditFile;
  /** fdatasyncs asked for and not yet released. */
  waiting(): number;
  /** fdatasyncs asked for so far. */
  asked(): number;
  /** Bytes of the file known durable: its size when the last successful fdatasync began. */
  durableBytes(): number;
  /** Lets the oldest waiting fdatasync run (really: the data goes to disk first). */
  release(): void;
  /** While true, a released fdatasync fails with EIO instead (nothing is made durable). */
  failSyncs: boolean;
  /** While false, fdatasyncs run at once (no gate), so a test can let the sink run freely. */
  gated: boolean;
}

export function gatedAuditFile(): GatedAuditFile {
  const gates: (() => void)[] = [];
  let asked = 0;
  let durable = 0;
  const gated: GatedAuditFile = {
    failSyncs: false,
    gated: true,
    waiting: () => gates.length,
    asked: () => asked,
    durableBytes: () => durable,
    release() {
      const next = gates.shift();
      if (next === undefined) throw new Error('no fdatasync is waiting');
      next();
    },
    async openFile(file, flags) {
      const handle = await open(file, flags);
      const sync = async (): Promise<void> => {
        if (gated.failSyncs) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
        const { size } = await handle.stat();
        await handle.datasync();
        durable = Math.max(durable, size);
      };
      const wrapped: AuditFileHandle = {
        write: handle.write.bind(handle) as AuditFileHandle['write'],
        stat: handle.stat.bind(handle) as AuditFileHandle['stat'],
        truncate: handle.truncate.bind(handle),
        close: handle.close.bind(handle),
        datasync() {
          asked++;
          if (!gated.gated) return sync();
          return new Promise<void>((resolve, reject) => gates.push(() => void sync().then(resolve, reject)));
        },
      };
      return wrapped;
    },
  };
  return gated;
}
