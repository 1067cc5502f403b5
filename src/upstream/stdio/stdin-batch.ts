// The lines the gateway writes to a stdio child: those of one turn of the event loop go out
// in one pipe write (a burst of calls costs one syscall, not one each). Lines that can no
// longer reach the process are handed back, so that their calls fail at once rather than at
// their timeout. Which stdin is current is the caller's: it changes with every restart.
import type { Writable } from 'node:stream';
import type { JsonObject } from '../../protocol/message.ts';

export class StdinBatch {
  private lines: string[] = [];

  constructor(
    private readonly stdin: () => Writable | undefined,
    /** The gateway's own request ids among lines that never reached the process. */
    private readonly dropped: (ids: number[]) => void,
  ) {}

  /** False when no process reads: nothing was queued. */
  write(m: JsonObject): boolean {
    const stdin = this.stdin();
    if (!stdin || !stdin.writable) return false;
    if (this.lines.length === 0) setImmediate(() => this.flush());
    this.lines.push(`${JSON.stringify(m)}\n`);
    return true;
  }

  flush(): void {
    const lines = this.lines;
    if (lines.length === 0) return;
    this.lines = [];
    const stdin = this.stdin();
    if (stdin?.writable) {
      stdin.write(lines.length === 1 ? lines[0]! : lines.join(''));
      // A write that fails at once (EPIPE: the process closed its stdin) leaves the stream
      // unwritable before write() returns.
      if (stdin.writable) return;
    }
    const ids: number[] = [];
    for (const line of lines) {
      const m = JSON.parse(line) as { id?: unknown; method?: unknown };
      // Our own requests only: a reply to the process's request carries the process's id.
      if (typeof m.id === 'number' && typeof m.method === 'string') ids.push(m.id);
    }
    this.dropped(ids);
  }

  /** Lines meant for a process that is gone never reach its successor. */
  clear(): void {
    this.lines = [];
  }
}
