// Appends with a deadline. A write to a stalled disk (a hung NFS mount, a dying device)
// cannot be cancelled in Node, so the caller stops waiting after `timeoutMs` and treats the
// disk as failed; the write itself goes on, and if it lands later the chain is still
// consistent, because the writer is serialized and moves its head only after fsync.
// `busy()` says such a write is still outstanding, so retries do not pile up behind it.
import type { AppendResult, AuditFileWriter } from './audit-file-writer.ts';

export type TimedAppendResult = AppendResult & { timedOut?: boolean };

export class TimedAppender {
  #writer: AuditFileWriter;
  #timeoutMs: number;
  #onLate: (late: AppendResult) => void;
  #outstanding: Promise<AppendResult> | undefined;

  /** `onLate` hears of writes that settled after their caller gave up. */
  constructor(writer: AuditFileWriter, timeoutMs: number, onLate: (late: AppendResult) => void) {
    this.#writer = writer;
    this.#timeoutMs = timeoutMs;
    this.#onLate = onLate;
  }

  busy(): boolean {
    return this.#outstanding !== undefined;
  }

  append(canonicals: readonly string[]): Promise<TimedAppendResult> {
    const write = this.#writer.append(canonicals);
    this.#outstanding = write;
    // One timer and one promise per batch; the error exists only if the deadline passes.
    return new Promise<TimedAppendResult>((resolve) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        resolve({ committed: 0, error: new Error(`write and fsync took over ${this.#timeoutMs}ms`), timedOut: true });
      }, this.#timeoutMs);
      const settled = (result: AppendResult): void => {
        if (this.#outstanding === write) this.#outstanding = undefined;
        if (late) return this.#onLate(result);
        clearTimeout(timer);
        resolve(result);
      };
      // The writer reports its failures as results; a rejection (a bug) is a write that failed.
      void write.then(settled, (e: unknown) => settled({ committed: 0, error: e instanceof Error ? e : new Error(String(e)) }));
    });
  }

  /** Closes the file; false if a stalled write kept it from closing within the deadline. */
  close(): Promise<boolean> {
    return Promise.race([this.#writer.close().then(() => true), sleep(this.#timeoutMs).then(() => false)]);
  }
}

// Unref'd: a pending deadline must not keep an otherwise finished process alive.
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
