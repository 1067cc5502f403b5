// Server-Sent Events parsing (WHATWG HTML §9.2 event stream format). MCP puts one JSON-RPC
// message in each event's data (MCP 2026-07-28, basic/transports/streamable-http (responses)); the
// last event id and the retry field are kept too, for resuming a 2025-11-25 stream the server
// closed early (MCP 2025-11-25, basic/transports (resumability)). Comment lines (keep-alives)
// and event names are skipped.
//
// `SseParser` is synchronous and takes text as it arrives: each chunk is scanned once, every
// complete event in it is handed over at once, and only the unfinished line is kept between
// chunks. The usual upstream answer (a priming event, then the response, in one chunk) costs
// one pass and no per-line allocation beyond the data itself. A long event (a large
// resources/read) split over many chunks costs linear time: a line split across chunks is
// kept as its pieces and only the new text is searched for its end, and the data lines of an
// event are joined once, when it is handed over. An event larger than `maxEventLength`
// (unfinished line included, so a stream that never sends a line end is bounded too) stops
// the parser: `push` returns false and the caller ends the stream.
// `readSseData` wraps it for code that holds an async iterable of chunks (long-lived streams).

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const ID_I = 105;
const RETRY_R = 114;
const STREAM = { stream: true } as const;

/**
 * Largest event, in characters (UTF-16 code units; bytes for the ASCII of most JSON), when
 * the caller names none; the gateway passes limits.maxUpstreamAnswerBytes, whose default this
 * is. A resource or tool result of tens of MB is legitimate: 64 Mi bounds the memory one
 * event can hold without refusing those.
 */
export const MAX_EVENT_LENGTH = 64 * 1024 * 1024;

export class SseParser {
  /** Pieces of a line that has not ended yet; undefined when the last chunk ended a line. */
  private pieces: string[] | undefined;
  /** The last chunk ended in CR: an LF first in the next one is the rest of a CRLF. */
  private afterCr = false;
  /** First data line of the event being read; undefined when it has none. */
  private data: string | undefined;
  /** All data lines once the event has more than one (joined with LF when handed over). */
  private lines: string[] | undefined;
  /** Characters of data held for the event being read. */
  private held = 0;
  /** Characters of the unfinished line (in `pieces`). */
  private pending = 0;
  private tooLarge = false;
  private utf8: Utf8Chunks | undefined;
  /** The last `id` field seen (WHATWG: the last event ID buffer); undefined until one comes. */
  lastEventId: string | undefined;
  /** The last valid `retry` field, in milliseconds. */
  retryMs: number | undefined;

  constructor(
    private readonly onData: (data: string) => void,
    private readonly maxEventLength = MAX_EVENT_LENGTH,
  ) {}

  /** Parses `text`, following whatever was left of the previous chunk. False once an event
   * went over the limit: the rest of the stream is ignored. */
  push(text: string): boolean {
    if (this.tooLarge) return false;
    const len = text.length;
    if (len === 0) return true;
    let pos = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === LF) pos = 1;
    }
    // CR line ends are rare: look for one once, and again only after passing it.
    let cr = text.indexOf('\r', pos);
    if (this.pieces !== undefined) {
      const lf = text.indexOf('\n', pos);
      const end = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
      if (end === -1) return this.hold(pos === 0 ? text : text.slice(pos));
      const pieces = this.pieces;
      pieces.push(text.slice(pos, end));
      this.pieces = undefined;
      this.pending = 0;
      const line = pieces.join('');
      if (!this.line(line, 0, line.length)) return false;
      pos = this.next(text, end);
    }
    while (pos < len) {
      if (cr !== -1 && cr < pos) cr = text.indexOf('\r', pos);
      const lf = text.indexOf('\n', pos);
      const end = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
      if (end === -1) break;
      if (!this.line(text, pos, end)) return false;
      pos = this.next(text, end);
    }
    return pos >= len ? true : this.hold(pos === 0 ? text : text.slice(pos));
  }

  /** End of stream. Lenient: a last event without its blank line is still delivered. */
  /** `push` for bytes: UTF-8, a character split across chunks carried over (Utf8Chunks). */
  pushBytes(chunk: Uint8Array): boolean {
    return this.push((this.utf8 ??= new Utf8Chunks()).decode(chunk));
  }

  end(): void {
    if (this.utf8 !== undefined) this.push(this.utf8.end());
    if (this.tooLarge) return;
    const pieces = this.pieces;
    this.pieces = undefined;
    this.pending = 0;
    this.afterCr = false;
    if (pieces !== undefined) {
      const tail = pieces.join('');
      this.line(tail, 0, tail.length);
    }
    this.line('', 0, 0);
  }

  /** Where the line ending at `end` (a CR or an LF) is followed; a CR last in the chunk may
   * be half of a CRLF, to be completed by the next chunk (the line is handled now all the
   * same, so a CR-only server's event is not held until more data comes). */
  private next(text: string, end: number): number {
    if (text.charCodeAt(end) !== CR) return end + 1;
    if (end + 1 === text.length) {
      this.afterCr = true;
      return end + 1;
    }
    return text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
  }

  /** Keeps the start of a line that has not ended; false when that takes the event over the limit. */
  private hold(piece: string): boolean {
    if (this.pieces === undefined) this.pieces = [piece];
    else this.pieces.push(piece);
    this.pending += piece.length;
    return this.held + this.pending <= this.maxEventLength || this.overflow();
  }

  private overflow(): false {
    this.tooLarge = true;
    this.pieces = this.lines = this.data = undefined;
    this.held = this.pending = 0;
    return false;
  }

  /** One line without its end; false when its data takes the event over the limit. */
  private line(buf: string, start: number, end: number): boolean {
    if (start === end) {
      const data = this.lines !== undefined ? this.lines.join('\n') : this.data;
      if (data === undefined) return true;
      this.data = this.lines = undefined;
      this.held = 0;
      this.onData(data);
      return true;
    }
    // Only the fields named exactly "data", "id" and "retry" count; ':' first is a comment.
    if (end - start < 4 || !buf.startsWith('data', start)) return this.otherField(buf, start, end);
    let v = start + 4;
    if (v < end) {
      if (buf.charCodeAt(v) !== COLON) return true;
      v++;
      if (v < end && buf.charCodeAt(v) === SPACE) v++;
    }
    const value = v === end ? '' : buf.slice(v, end);
    this.held += value.length + 1;
    if (this.held > this.maxEventLength) return this.overflow();
    if (this.data === undefined) this.data = value;
    else if (this.lines === undefined) this.lines = [this.data, value];
    else this.lines.push(value);
    return true;
  }

  private otherField(buf: string, start: number, end: number): true {
    const first = buf.charCodeAt(start);
    if (first === ID_I) {
      const id = fieldValue(buf, start, end, 'id');
      if (id !== undefined && !id.includes('\0')) this.lastEventId = id;
    } else if (first === RETRY_R) {
      const retry = fieldValue(buf, start, end, 'retry');
      if (retry !== undefined && /^\d+$/.test(retry)) this.retryMs = Number(retry);
    }
    return true;
  }
}

/** `id` and `retry` (WHATWG HTML §9.2.6): an id with NUL is ignored, retry is digits only. */
function fieldValue(buf: string, start: number, end: number, name: string): string | undefined {
  if (!buf.startsWith(name, start)) return undefined;
  let v = start + name.length;
  if (v === end) return '';
  if (buf.charCodeAt(v) !== COLON) return undefined;
  v++;
  if (v < end && buf.charCodeAt(v) === SPACE) v++;
  return buf.slice(v, end);
}

/**
 * UTF-8 chunks to text for a parser, a character split across chunks carried over. A chunk
 * that ends on an ASCII byte, with nothing carried from the one before, ends on a whole
 * character and decodes on its own; only a stream that splits a character (or opens with a
 * byte order mark, which decoding drops: WHATWG Encoding, UTF-8 decode) needs the streaming
 * decoder, made then. The usual answer is one ASCII chunk: no decoder at all.
 */
export class Utf8Chunks {
  private decoder: TextDecoder | undefined;
  private carrying = false;
  private started = false;

  decode(chunk: Uint8Array | string): string {
    if (typeof chunk === 'string') return chunk;
    const n = chunk.length;
    if (n === 0) return '';
    const first = !this.started;
    this.started = true;
    const last = chunk[n - 1]!;
    if (!this.carrying && last < 0x80 && !(first && chunk[0] === 0xef)) {
      return (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, n)).toString('utf8');
    }
    // Made after the stream's start, it must keep a U+FEFF that opens a later chunk.
    this.decoder ??= new TextDecoder('utf-8', { ignoreBOM: !first });
    this.carrying = last >= 0x80;
    return this.decoder.decode(chunk, STREAM);
  }

  /** The stream ended: what was left of a split character (as U+FFFD). */
  end(): string {
    if (!this.carrying) return '';
    this.carrying = false;
    return this.decoder!.decode();
  }
}

/** The data of each event of a stream of chunks, as it arrives. Throws when an event goes
 * over `maxEventLength`: the stream is then read no further. */
export async function* readSseData(chunks: AsyncIterable<Uint8Array | string>, maxEventLength = MAX_EVENT_LENGTH): AsyncGenerator<string> {
  const decoder = new Utf8Chunks();
  const ready: string[] = [];
  const parser = new SseParser((d) => ready.push(d), maxEventLength);
  for await (const chunk of chunks) {
    const fits = parser.push(decoder.decode(chunk));
    for (let i = 0; i < ready.length; i++) yield ready[i]!;
    ready.length = 0;
    if (!fits) throw new SseEventTooLarge(maxEventLength);
  }
  parser.push(decoder.end());
  parser.end();
  yield* ready;
}

export class SseEventTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`an event on the stream exceeds ${limit} characters`);
  }
}
