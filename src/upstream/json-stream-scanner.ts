// A streaming, validating scan of JSON text (RFC 8259) that arrives in chunks, with bounded
// state: a container stack no deeper than its limit, the current token's kind, and the few
// bytes of a UTF-8 character split between chunks (utf8-check.ts). It checks the grammar
// byte by byte (strings and their escapes, numbers, literals, brackets, commas and colons),
// except for the plain runs inside strings, which are found natively (json-string-run.ts), and
// tells a subclass where keys and values begin and end, by their byte offsets in the chunk,
// so that the subclass can copy or drop ranges of the text without ever holding it whole
// (result-relay-scanner.ts). The text must be one object: anything else is declined.
import { JsonStringRun } from './json-string-run.ts';
import { Utf8Check } from './utf8-check.ts';

export type ScanVerdict = 'more' | 'decline' | 'fail' | 'done';

export const OBJECT = 1;
export const ARRAY = 2;

const enum S { Start, Value, ObjFirst, ObjKey, Colon, After, ArrFirst, Str, Esc, Uni, Num, Lit, Done }
const LITERALS: Record<number, string> = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export abstract class JsonStreamScanner {
  /** Why the scan failed or declined. */
  reason = '';
  /** The failure was nesting deeper than the limit. */
  tooDeep = false;
  /** Containers open now: 1 inside the top-level object. */
  protected depth = 0;
  readonly #maxDepth: number;
  readonly #utf8 = new Utf8Check();
  readonly #run = new JsonStringRun();
  readonly #stack: Uint8Array;
  #state = S.Start;
  #strIsKey = false;
  #uniLeft = 0;
  #num = 0;
  #lit = '';
  #litPos = 0;

  constructor(maxDepth: number) {
    this.#maxDepth = maxDepth;
    this.#stack = new Uint8Array(maxDepth + 2);
  }

  /** A key's opening quote is at byte `i`. */
  protected abstract keyStart(i: number): void;
  /** A key ended just before byte `end` (after its closing quote). */
  protected abstract keyEnd(chunk: Buffer, end: number): ScanVerdict;
  /** A value (below the top-level object) begins at byte `i` with byte `c`, at the current depth. */
  protected abstract valueStart(chunk: Buffer, i: number, c: number): ScanVerdict;
  /** A container was opened; `depth` is its own. */
  protected abstract opened(): void;
  /** The container at `depth` closed (its value's end follows). */
  protected abstract closed(depth: number): void;
  /** A value ended just before byte `end`, back at the depth it began at. */
  protected abstract valueEnd(chunk: Buffer, end: number): ScanVerdict;
  /** Whitespace outside strings at byte `i`. */
  protected abstract space(chunk: Buffer, i: number): void;

  protected fail(why: string): ScanVerdict {
    this.reason = why;
    return 'fail';
  }

  protected decline(why: string): ScanVerdict {
    this.reason = why;
    return 'decline';
  }

  /** The text ended: one whole object, and whole characters. */
  protected ended(): ScanVerdict {
    if (this.#state !== S.Done) return this.fail('the answer ended before its message did');
    return this.#utf8.end() ? 'more' : this.fail('not UTF-8');
  }

  protected scan(chunk: Buffer): ScanVerdict {
    if (!this.#utf8.push(chunk)) return this.fail('not UTF-8');
    this.#run.reset(chunk);
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      const c = chunk[i]!;
      switch (this.#state) {
        case S.Str: {
          // The bulk of a big result: its plain runs are found natively (json-string-run.ts).
          const j = this.#run.end(i);
          if (j === -1) return this.fail('control character in a string');
          if (j === n) {
            i = n;
            continue;
          }
          const d = chunk[j]!;
          i = j + 1;
          if (d === 0x5c) {
            this.#state = S.Esc;
            continue;
          }
          const v = this.#strIsKey ? this.keyEnd(chunk, i) : this.#valueEnded(chunk, i);
          if (v !== 'more') return v;
          if (this.#strIsKey) this.#state = S.Colon;
          continue;
        }
        case S.Esc:
          if (c === 0x75) {
            this.#state = S.Uni;
            this.#uniLeft = 4;
          } else if (c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) this.#state = S.Str;
          else return this.fail('bad escape in a string');
          i++;
          continue;
        case S.Uni:
          if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))) return this.fail('bad \\u escape');
          if (--this.#uniLeft === 0) this.#state = S.Str;
          i++;
          continue;
        case S.Num: {
          const next = this.#numberStep(c);
          if (next === -1) return this.fail('bad number');
          if (next === 1) {
            i++;
            continue;
          }
          // The number ended before this byte, which is read again.
          const v = this.#valueEnded(chunk, i);
          if (v !== 'more') return v;
          continue;
        }
        case S.Lit: {
          if (c !== this.#lit.charCodeAt(this.#litPos)) return this.fail('bad literal');
          i++;
          if (++this.#litPos < this.#lit.length) continue;
          const v = this.#valueEnded(chunk, i);
          if (v !== 'more') return v;
          continue;
        }
        default:
          break;
      }
      if (isSpace(c)) {
        this.space(chunk, i);
        i++;
        continue;
      }
      const v = this.#structural(chunk, i, c);
      if (v !== 'more') return v;
      i++;
    }
    return 'more';
  }

  /** A byte outside strings, numbers and literals, at byte `i`. */
  #structural(chunk: Buffer, i: number, c: number): ScanVerdict {
    switch (this.#state) {
      case S.Start:
        return c === 0x7b ? this.#open(OBJECT) : this.decline('not a JSON object');
      case S.ArrFirst:
        if (c === 0x5d) return this.#close(chunk, i, ARRAY);
        return this.#valueBegins(chunk, i, c);
      case S.Value:
        return this.#valueBegins(chunk, i, c);
      case S.ObjFirst:
      case S.ObjKey:
        if (c === 0x7d && this.#state === S.ObjFirst) return this.#close(chunk, i, OBJECT);
        if (c !== 0x22) return this.fail('expected a key');
        this.#state = S.Str;
        this.#strIsKey = true;
        this.keyStart(i);
        return 'more';
      case S.Colon:
        if (c !== 0x3a) return this.fail('expected ":"');
        this.#state = S.Value;
        return 'more';
      case S.After: {
        const top = this.#stack[this.depth]!;
        if (c === 0x2c) {
          this.#state = top === OBJECT ? S.ObjKey : S.Value;
          return 'more';
        }
        if ((c === 0x7d && top === OBJECT) || (c === 0x5d && top === ARRAY)) return this.#close(chunk, i, top);
        return this.fail('expected "," or the end of a container');
      }
      case S.Done:
        return this.fail('text after the message');
      default:
        return this.fail('unexpected byte');
    }
  }

  #valueBegins(chunk: Buffer, i: number, c: number): ScanVerdict {
    const v = this.valueStart(chunk, i, c);
    if (v !== 'more') return v;
    if (c === 0x7b) return this.#open(OBJECT);
    if (c === 0x5b) return this.#open(ARRAY);
    if (c === 0x22) {
      this.#state = S.Str;
      this.#strIsKey = false;
      return 'more';
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.#state = S.Num;
      this.#num = c === 0x2d ? 0 : c === 0x30 ? 1 : 2;
      return 'more';
    }
    const lit = LITERALS[c];
    if (lit === undefined) return this.fail('expected a value');
    this.#state = S.Lit;
    this.#lit = lit;
    this.#litPos = 1;
    return 'more';
  }

  #open(kind: number): ScanVerdict {
    if (this.depth >= this.#maxDepth) {
      this.tooDeep = true;
      return this.fail(`nested deeper than ${this.#maxDepth - 1} levels`);
    }
    this.#stack[++this.depth] = kind;
    this.#state = kind === OBJECT ? S.ObjFirst : S.ArrFirst;
    this.opened();
    return 'more';
  }

  /** A container closes at byte `i`. */
  #close(chunk: Buffer, i: number, kind: number): ScanVerdict {
    if (this.#stack[this.depth] !== kind) return this.fail('mismatched brackets');
    this.closed(this.depth--);
    return this.#valueEnded(chunk, i + 1);
  }

  #valueEnded(chunk: Buffer, end: number): ScanVerdict {
    this.#state = this.depth === 0 ? S.Done : S.After;
    return this.valueEnd(chunk, end);
  }

  /** 1: the byte is part of the number; 0: the number ended before it; -1: not a number. */
  #numberStep(c: number): number {
    const digit = c >= 0x30 && c <= 0x39;
    switch (this.#num) {
      case 0: // after '-'
        if (c === 0x30) return (this.#num = 1), 1;
        return digit ? ((this.#num = 2), 1) : -1;
      case 1: // a leading 0
      case 2: // integer digits
        if (digit) return this.#num === 2 ? 1 : -1;
        if (c === 0x2e) return (this.#num = 3), 1;
        if (c === 0x65 || c === 0x45) return (this.#num = 5), 1;
        return 0;
      case 3: // after '.'
        return digit ? ((this.#num = 4), 1) : -1;
      case 4: // fraction digits
        if (digit) return 1;
        if (c === 0x65 || c === 0x45) return (this.#num = 5), 1;
        return 0;
      case 5: // after 'e'
        if (c === 0x2b || c === 0x2d) return (this.#num = 6), 1;
        return digit ? ((this.#num = 7), 1) : -1;
      case 6: // after the exponent's sign
        return digit ? ((this.#num = 7), 1) : -1;
      default: // exponent digits
        return digit ? 1 : 0;
    }
  }
}
