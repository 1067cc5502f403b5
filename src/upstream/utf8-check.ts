// Checks that bytes arriving in chunks are well-formed UTF-8 (RFC 3629), which JSON text
// exchanged between systems must be (RFC 8259 §8.1). A character split between two chunks is
// carried over (at most 3 bytes); the rest of each chunk is checked by Node's native isUtf8.
import { isUtf8 } from 'node:buffer';

/** Bytes a sequence takes, from its first byte; 0 for a byte no sequence starts with. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

export class Utf8Check {
  #carry: Buffer | undefined;

  /** False as soon as the bytes cannot be UTF-8. */
  push(chunk: Buffer): boolean {
    let start = 0;
    if (this.#carry !== undefined) {
      const carry = this.#carry;
      const need = sequenceLength(carry[0]!) - carry.length;
      if (chunk.length < need) {
        this.#carry = Buffer.concat([carry, chunk]);
        return true;
      }
      this.#carry = undefined;
      if (!isUtf8(Buffer.concat([carry, chunk.subarray(0, need)]))) return false;
      start = need;
    }
    // A sequence cut at the end waits for the next chunk.
    let end = chunk.length;
    for (let back = 1; back <= 3 && end - back >= start; back++) {
      const b = chunk[end - back]!;
      if (b < 0x80) break;
      if (b >= 0xc0) {
        const len = sequenceLength(b);
        if (len > back) {
          this.#carry = Buffer.from(chunk.subarray(end - back));
          end -= back;
        }
        break;
      }
    }
    return isUtf8(chunk.subarray(start, end));
  }

  /** False when the text ended in the middle of a character. */
  end(): boolean {
    return this.#carry === undefined;
  }
}
