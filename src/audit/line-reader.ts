// Reading audit files line by line: forward as a stream (verify, query, tail --follow), and
// from the end (the sink resuming its chain, tail -n). Lines are split on "\n" only, and a
// line reports whether its newline was there, because a missing final newline is how a
// crash during a write shows (chain-verifier.ts, crash rule).
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';

export interface FileLine {
  text: string;
  /** 1-based. */
  lineNo: number;
  terminated: boolean;
}

/** Lines of a file, streamed; a final line without "\n" comes with terminated false. */
export async function* readLines(file: string, start = 0): AsyncGenerator<FileLine> {
  let rest = '';
  let lineNo = 0;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', start })) {
    const parts = (rest + (chunk as string)).split('\n');
    rest = parts.pop() ?? '';
    for (const text of parts) yield { text, lineNo: ++lineNo, terminated: true };
  }
  if (rest !== '') yield { text: rest, lineNo: ++lineNo, terminated: false };
}

export interface FileTail {
  size: number;
  /** Up to the requested number of complete (newline-terminated) lines, oldest first. */
  lines: string[];
  /** Byte offset just after the last newline: where an incomplete last line starts. */
  completeEnd: number;
}

const CHUNK = 64 * 1024;

/**
 * The last `count` complete lines of a regular file, reading backwards in chunks; undefined
 * when the path is missing or not a regular file (the sink may be pointed at a device).
 */
export async function readTail(file: string, count: number): Promise<FileTail | undefined> {
  // stat first: opening a FIFO for reading would block until someone writes to it.
  const before = await stat(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (before === undefined || !before.isFile()) return undefined;
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    let buf = Buffer.alloc(0);
    let pos = size;
    // With the read not yet at the start, the first piece of `buf` may be a partial line,
    // so `count` complete lines need `count + 1` newlines.
    while (pos > 0 && countNewlines(buf) <= count) {
      const n = Math.min(CHUNK, pos);
      pos -= n;
      const chunk = Buffer.alloc(n);
      await handle.read(chunk, 0, n, pos);
      buf = Buffer.concat([chunk, buf]);
    }
    const lastNewline = buf.lastIndexOf(10);
    if (lastNewline === -1) return { size, lines: [], completeEnd: 0 };
    const lines = buf.subarray(0, lastNewline).toString('utf8').split('\n');
    return { size, lines: (pos > 0 ? lines.slice(1) : lines).slice(-count), completeEnd: pos + lastNewline + 1 };
  } finally {
    await handle.close();
  }
}

/** The first complete line of a file, or undefined if it has none. */
export async function readFirstLine(file: string): Promise<string | undefined> {
  for await (const line of readLines(file)) return line.terminated ? line.text : undefined;
  return undefined;
}

function countNewlines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return n;
}
