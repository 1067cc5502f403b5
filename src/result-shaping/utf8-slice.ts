// Byte ranges of UTF-8 text that never split a character: budgets and page offsets are in
// bytes (what a model's context and a wire carry), but a cut through a multi-byte sequence
// would hand the client U+FFFD garbage. A range's start moves forward, and its end back, to
// the nearest character boundary (RFC 3629 section 3: continuation bytes are 10xxxxxx).

export interface Utf8Range {
  text: string;
  /** Byte offsets actually used, after moving to character boundaries. */
  start: number;
  end: number;
}

const isContinuation = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80;

export function utf8Slice(buf: Buffer, start: number, end: number): Utf8Range {
  let s = Math.max(0, Math.min(start, buf.length));
  let e = Math.max(s, Math.min(end, buf.length));
  while (s < buf.length && isContinuation(buf[s])) s++;
  while (e > s && e < buf.length && isContinuation(buf[e])) e--;
  if (e < s) e = s;
  return { text: buf.toString('utf8', s, e), start: s, end: e };
}
