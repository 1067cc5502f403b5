// The text of a JSON body that arrives in chunks. The usual body is one chunk, decoded at the
// end. A longer one is decoded as it comes, so that its buffers go at once: a Buffer.concat at
// the end would hold it three times (chunks, joined buffer, text) rather than twice (pieces
// and their join). An error body (`decodeEarly` false) is kept as its chunks.
export class BodyText {
  #chunks: Buffer[] = [];
  #texts: string[] | undefined;
  #decoder: TextDecoder | undefined;

  push(chunk: Buffer, decodeEarly: boolean): void {
    if (decodeEarly && (this.#texts !== undefined || this.#chunks.length === 1)) {
      this.#decoder ??= new TextDecoder();
      this.#texts ??= [this.#decoder.decode(this.#chunks.pop()!, { stream: true })];
      this.#texts.push(this.#decoder.decode(chunk, { stream: true }));
      return;
    }
    this.#chunks.push(chunk);
  }

  /** Chunks held elsewhere so far (a relay that gave the body back). */
  adopt(chunks: Buffer[]): void {
    this.#chunks = chunks;
  }

  /** The whole text; what was held is let go. */
  take(): string {
    const texts = this.#texts;
    const chunks = this.#chunks;
    this.clear();
    if (texts) return texts.join('') + this.#decoder!.decode();
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
  }

  clear(): void {
    this.#chunks = [];
    this.#texts = undefined;
  }
}
