// The bytes of one short token a streaming scan must read whole (a key, an id, a resultType),
// gathered across the chunks it arrives in and bounded in length (result-relay-scanner.ts).
// Each part is copied: the chunk it came in is the socket's, and may be reused.
export class TokenCapture {
  #parts: Buffer[] | undefined;
  #from = -1;
  #len = 0;

  constructor(private readonly maxBytes: number) {}

  /** A token is being gathered. */
  get active(): boolean {
    return this.#parts !== undefined;
  }

  /** The token is already longer than the bound. */
  get over(): boolean {
    return this.#len > this.maxBytes;
  }

  /** The token begins at byte `i` of the chunk being scanned. */
  start(i: number): void {
    this.#parts = [];
    this.#len = 0;
    this.#from = i;
  }

  /** A new chunk begins: a token still open goes on from its first byte. */
  nextChunk(): void {
    if (this.#from >= 0) this.#from = 0;
  }

  /** The chunk was scanned to its end with the token still open. */
  chunkEnd(chunk: Buffer): void {
    if (this.#parts !== undefined && this.#from >= 0 && chunk.length > this.#from) this.#keep(chunk.subarray(this.#from));
  }

  /** The token ends before byte `end` of this chunk: its text, or undefined past the bound. */
  take(chunk: Buffer, end: number): string | undefined {
    if (end > this.#from) this.#keep(chunk.subarray(this.#from, end));
    const parts = this.#parts!;
    const len = this.#len;
    this.#parts = undefined;
    this.#from = -1;
    this.#len = 0;
    return len > this.maxBytes ? undefined : Buffer.concat(parts).toString('utf8');
  }

  #keep(b: Buffer): void {
    this.#len += b.length;
    if (this.#len <= this.maxBytes) this.#parts!.push(Buffer.from(b));
  }
}
