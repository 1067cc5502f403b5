// Server-Sent Events parsing (WHATWG HTML §9.2 event stream format). MCP puts one JSON-RPC
// message in each event's data (spec digest b.2), so only `data` matters here: comment lines
// (keep-alives), event names, ids and retry are skipped.
//
// `SseParser` is synchronous and takes text as it arrives: each chunk is scanned once, every
// complete event in it is handed over at once, and only the unfinished tail (part of one
// event) is kept between chunks. The usual upstream answer (a priming event, then the
// response, in one chunk) costs one pass and no per-line allocation beyond the data itself.
// `readSseData` wraps it for code that holds an async iterable of chunks (long-lived streams).

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const STREAM = { stream: true } as const;

export class SseParser {
  private tail = '';
  /** Data lines of the event being read, joined with LF; undefined when it has none. */
  private data: string | undefined;

  constructor(private readonly onData: (data: string) => void) {}

  /** Parses `text`, following whatever was left of the previous chunk. */
  push(text: string): void {
    const buf = this.tail === '' ? text : this.tail + text;
    const len = buf.length;
    let pos = 0;
    // CR line ends are rare: look for one once, and again only after passing it.
    let cr = buf.indexOf('\r');
    while (pos < len) {
      if (cr !== -1 && cr < pos) cr = buf.indexOf('\r', pos);
      const lf = buf.indexOf('\n', pos);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR last in the chunk may be the first half of a CRLF: wait for the next chunk.
        if (cr === len - 1) break;
        end = cr;
        next = buf.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        break;
      }
      this.line(buf, pos, end);
      pos = next;
    }
    this.tail = pos === 0 ? buf : pos >= len ? '' : buf.slice(pos);
  }

  /** End of stream. Lenient: a last event without its blank line is still delivered. */
  end(): void {
    let tail = this.tail;
    this.tail = '';
    if (tail.charCodeAt(tail.length - 1) === CR) tail = tail.slice(0, -1);
    if (tail !== '') this.line(tail, 0, tail.length);
    this.line('', 0, 0);
  }

  private line(buf: string, start: number, end: number): void {
    if (start === end) {
      const data = this.data;
      if (data === undefined) return;
      this.data = undefined;
      this.onData(data);
      return;
    }
    // Only the field named exactly "data" counts; ':' first is a comment.
    if (end - start < 4 || !buf.startsWith('data', start)) return;
    let v = start + 4;
    if (v < end) {
      if (buf.charCodeAt(v) !== COLON) return;
      v++;
      if (v < end && buf.charCodeAt(v) === SPACE) v++;
    }
    const value = v === end ? '' : buf.slice(v, end);
    this.data = this.data === undefined ? value : `${this.data}\n${value}`;
  }
}

/** Decodes UTF-8 chunks for a parser; a character split across chunks is carried over. */
export function decodeChunk(decoder: TextDecoder, chunk: Uint8Array | string): string {
  return typeof chunk === 'string' ? chunk : decoder.decode(chunk, STREAM);
}

/** The data of each event of a stream of chunks, as it arrives. */
export async function* readSseData(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const ready: string[] = [];
  const parser = new SseParser((d) => ready.push(d));
  for await (const chunk of chunks) {
    parser.push(decodeChunk(decoder, chunk));
    for (let i = 0; i < ready.length; i++) yield ready[i]!;
    ready.length = 0;
  }
  parser.push(decoder.decode());
  parser.end();
  yield* ready;
}
