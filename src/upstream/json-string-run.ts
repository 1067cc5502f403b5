// The plain run of a JSON string inside one chunk: the bytes up to its next quote or backslash,
// which must hold no control character (RFC 8259 §7: U+0000 to U+001F are escaped in strings).
// Most of a big result is such a run (a text, a base64 image), so it is found natively: the
// quote and the backslash with Buffer#indexOf, their places kept for the rest of the chunk
// (each is looked for again only once the scan has passed it, so a chunk of many short
// strings costs one search per quote, not one per string and byte); the control characters,
// which no native search finds as a class, sixteen bytes at a time with WebAssembly SIMD
// (control-bytes.ts), or, where that is not available, four at a time over an Int32Array view
// of the chunk. Grammar and UTF-8 stay json-stream-scanner.ts's and utf8-check.ts's.
import { controlScan } from './control-bytes.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Runs shorter than this are checked byte by byte: a copy, or a view and its alignment, would cost more. */
const WORDWISE_FROM = 64;
/** 0x20 in each byte of a word: a byte below it borrows in `word - LOW` and keeps its top bit clear in `word`. */
const LOW = 0x20202020;
const TOP_BITS = 0x80808080 | 0;

export class JsonStringRun {
  readonly #simd: typeof controlScan;
  #chunk: Buffer | undefined;
  #quoteAt = -1;
  #slashAt = -1;
  #words: Int32Array | undefined;
  /** Byte offset in the chunk of `#words[0]`. */
  #wordsFrom = 0;

  /** `simd: false`: the word loop, as where WebAssembly SIMD is not available (for tests). */
  constructor(opts: { simd?: boolean } = {}) {
    this.#simd = opts.simd === false ? undefined : controlScan;
  }

  /** The scan moved on to `chunk`: places found in the last one are forgotten. */
  reset(chunk: Buffer): void {
    this.#chunk = chunk;
    this.#quoteAt = -1;
    this.#slashAt = -1;
    this.#words = undefined;
  }

  /** Where the run that begins at byte `i` of the chunk ends: its next quote or backslash, or
   * the chunk's length when it goes on in the next chunk; -1 when it holds a control character. */
  end(i: number): number {
    const chunk = this.#chunk!;
    let q = this.#quoteAt;
    if (q < i) q = this.#quoteAt = indexOrLength(chunk, QUOTE, i);
    let b = this.#slashAt;
    if (b < i) b = this.#slashAt = indexOrLength(chunk, BACKSLASH, i);
    const stop = q < b ? q : b;
    return this.#control(chunk, i, stop) ? -1 : stop;
  }

  /** Some byte of `chunk` from `from` to `to` (exclusive) is below 0x20. */
  #control(chunk: Buffer, from: number, to: number): boolean {
    if (to - from < WORDWISE_FROM) return controlIn(chunk, from, to);
    if (this.#simd !== undefined) return this.#simd(chunk, from, to);
    const words = this.#view(chunk);
    const first = (from - this.#wordsFrom + 3) >> 2;
    const last = (to - this.#wordsFrom) >> 2;
    const head = this.#wordsFrom + first * 4;
    const tail = this.#wordsFrom + last * 4;
    return controlIn(chunk, from, head) || controlIn(chunk, tail, to) || controlInWords(words, first, last);
  }

  /** The chunk's whole aligned words, as one view made once per chunk. */
  #view(chunk: Buffer): Int32Array {
    if (this.#words !== undefined) return this.#words;
    const skip = (4 - (chunk.byteOffset & 3)) & 3;
    this.#wordsFrom = skip;
    this.#words = new Int32Array(chunk.buffer, chunk.byteOffset + skip, Math.max(0, (chunk.length - skip) >> 2));
    return this.#words;
  }
}

function indexOrLength(chunk: Buffer, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at === -1 ? chunk.length : at;
}

/** The word loop on its own, out of the method: a loop compiled while it runs (on-stack
 * replacement) inside the method was deoptimised again at every call on its way out, and ran
 * interpreted for most of each chunk. Four words a turn, into four accumulators: a quarter of
 * the loop's own work per byte (25 % less time over 20 MB, measured). */
function controlInWords(words: Int32Array, first: number, last: number): boolean {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let k = first;
  for (const end = first + ((last - first) & ~3); k < end; k += 4) {
    const w0 = words[k]!;
    const w1 = words[k + 1]!;
    const w2 = words[k + 2]!;
    const w3 = words[k + 3]!;
    a0 |= (w0 - LOW) & ~w0;
    a1 |= (w1 - LOW) & ~w1;
    a2 |= (w2 - LOW) & ~w2;
    a3 |= (w3 - LOW) & ~w3;
  }
  for (; k < last; k++) {
    const w = words[k]!;
    a0 |= (w - LOW) & ~w;
  }
  return ((a0 | a1 | a2 | a3) & TOP_BITS) !== 0;
}

function controlIn(chunk: Buffer, from: number, to: number): boolean {
  for (let j = from; j < to; j++) if (chunk[j]! < 0x20) return true;
  return false;
}
