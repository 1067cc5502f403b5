// Splits a child's output into lines without ever holding more than `maxBytes` of one line.
// readline keeps a line until it ends, however long: one line of hundreds of MiB from a
// stdio upstream exhausted the gateway's memory or ended it with "Invalid string length".
// A line over the limit is not kept: its first and last bytes are, so that the caller can
// tell whose answer it was and log how it began; the rest is counted and dropped, and the
// next line is read as usual (the stream stays in step, since lines end at LF whatever
// came before). LF ends a line and a CR before it is dropped, as readline does; bytes are
// decoded as UTF-8 only once a whole line is there, so a character split between chunks
// stays whole.
//
// With a meter (limits.maxInflightAnswerBytes, answer-budget.ts), what a line holds while it
// is read is also charged to the budget shared with every other answer in flight; a line
// whose next piece does not fit is dropped like an overlong one (`overBudget`), and what it
// held goes back. A whole line stays charged until its sink returns, i.e. while it is parsed.
import type { AnswerMeter } from '../../limits/answer-budget.ts';

const LF = 0x0a;
const CR = 0x0d;
/** Bytes kept of each end of an overlong line. */
export const OVERLONG_SNIPPET_BYTES = 1024;

export interface OverlongLine {
  /** The line's first bytes (up to OVERLONG_SNIPPET_BYTES), decoded. */
  head: string;
  /** Its last bytes, decoded; may begin inside a character. */
  tail: string;
  /** Length of the whole line in bytes, end of line excluded. */
  bytes: number;
  /** Dropped because the shared budget had no room for it, not for its own length. */
  overBudget: boolean;
}

export interface LineSink {
  line(text: string): void;
  overlong(info: OverlongLine): void;
}

export class LineSplitter {
  /** Pieces of the line being read, while it is within the limit. */
  private pieces: Buffer[] = [];
  private held = 0;
  /** Set while the current line is over the limit: what is kept of it. */
  private over: { head: Buffer; tail: Buffer; bytes: number; overBudget: boolean } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly sink: LineSink,
    private readonly meter?: AnswerMeter,
  ) {}

  /** Bytes of an unfinished line held right now: never more than maxBytes. */
  get bufferedBytes(): number {
    return this.held;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const lf = chunk.indexOf(LF, start);
      const end = lf === -1 ? chunk.length : lf;
      this.take(chunk.subarray(start, end));
      if (lf === -1) return;
      this.finish();
      start = lf + 1;
    }
  }

  /** The output ended: a last line without LF is still a line. */
  end(): void {
    if (this.held > 0 || this.over) this.finish();
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.over) {
      this.keepTail(piece);
      return;
    }
    const within = this.held + piece.length <= this.maxBytes;
    if (within && (this.meter === undefined || this.meter.charge(piece.length))) {
      // A view, not a copy: a line that ends in this chunk (the usual case) is decoded from it directly.
      this.pieces.push(piece);
      this.held += piece.length;
      return;
    }
    const line = Buffer.concat([...this.pieces, piece]);
    this.pieces = [];
    this.held = 0;
    this.meter?.release();
    this.over = { head: Buffer.from(line.subarray(0, OVERLONG_SNIPPET_BYTES)), tail: Buffer.alloc(0), bytes: 0, overBudget: within };
    this.keepTail(line);
  }

  private keepTail(piece: Buffer): void {
    const over = this.over!;
    over.bytes += piece.length;
    const joined = piece.length >= OVERLONG_SNIPPET_BYTES ? piece : Buffer.concat([over.tail, piece]);
    over.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - OVERLONG_SNIPPET_BYTES)));
  }

  private finish(): void {
    const over = this.over;
    if (over) {
      this.over = undefined;
      const cr = over.tail.at(-1) === CR ? 1 : 0;
      // The head is the whole line when the line is shorter than a snippet: then it ends in the CR too.
      const head = over.head.length === over.bytes ? over.head.subarray(0, over.head.length - cr) : over.head;
      this.sink.overlong({ head: head.toString('utf8'), tail: over.tail.subarray(0, over.tail.length - cr).toString('utf8'), bytes: over.bytes - cr, overBudget: over.overBudget });
      return;
    }
    let line = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.held);
    this.pieces = [];
    this.held = 0;
    if (line.at(-1) === CR) line = line.subarray(0, -1);
    try {
      this.sink.line(line.toString('utf8'));
    } finally {
      this.meter?.release();
    }
  }
}
