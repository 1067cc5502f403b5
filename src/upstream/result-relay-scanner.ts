// A streaming, validating scan of one upstream JSON-RPC response that lets its `result` go to
// the client as the upstream's own bytes (protocol/result-relay.ts). It checks, chunk by chunk
// and with bounded state (a container stack no deeper than limits.maxJsonDepth, keys and ids of
// bounded length), that the text is exactly one JSON object (RFC 8259, UTF-8 included), that
// its top-level `id`, `result`, `error` and `jsonrpc` appear once each, with a result or an
// error but not both, and that the id is the request's. What it emits is the result's value
// only: the transport writes the envelope with the client's own id around it, so the
// upstream's id is never shown, and nothing else of the top level is passed on.
//
// The result is shaped for the client's era on the way, as transport/era-result.ts does for a
// parsed one: the members of the result object and of its `_meta` are re-punctuated by the
// scan, every other byte is copied. A 2026-07-28 client gets `resultType: "complete"` when the
// result has no string resultType, and the gateway's serverInfo in `_meta` (the upstream's is
// replaced); a 2025-11-25 client gets no resultType, ttlMs or cacheScope, no serverInfo in
// `_meta` (an emptied `_meta` stays as `{}`, which its schema allows), and no structuredContent
// that is not an object. A key the shaping depends on that appears twice is refused, since the
// client's parser and this scan could then read different values.
//
// Until the result's value begins nothing is emitted (`committed` false): the caller keeps
// the bytes, and a `decline` (an error response, a message that is not a response, no object)
// sends them down the buffered path, which answers as it always did. A `fail` before that
// point is a clean error for the client; after it, the relay is broken.
import { Utf8Check } from './utf8-check.ts';
import type { Era } from '../protocol/versions.ts';

export type ScanVerdict = 'more' | 'decline' | 'fail' | 'done';

export interface ScanOptions {
  era: Era;
  /** The request's id as the gateway sent it upstream. */
  id: number | string;
  /** The deepest nesting allowed (limits.maxJsonDepth). */
  maxDepth: number;
  /** The gateway's serverInfo, as JSON text (2026-07-28 clients). */
  serverInfo: string;
  /** Whitespace outside strings is dropped (a result relayed into one SSE data line). */
  compact: boolean;
}

/** Longest key, or id, compared by the scan; a longer one at these levels is refused. */
const MAX_KEY_BYTES = 4096;
const SERVER_INFO_KEY = '"io.modelcontextprotocol/serverInfo"';

const enum S { Start, Value, ObjFirst, ObjKey, Colon, After, ArrFirst, Str, Esc, Uni, Num, Lit, Done }
const OBJECT = 1;
const ARRAY = 2;
const LITERALS: Record<number, string> = { 0x74: 'true', 0x66: 'false', 0x6e: 'null' };
/** Result members that shaping for an era reads or changes. */
const SHAPED_KEYS = new Set(['"resultType"', '"_meta"', '"structuredContent"', '"ttlMs"', '"cacheScope"']);

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export class ResultRelayScanner {
  /** The result's value has begun: bytes are being emitted. */
  committed = false;
  /** Why the scan failed or declined. */
  reason = '';
  /** The failure was nesting deeper than the limit. */
  tooDeep = false;
  readonly #o: ScanOptions;
  readonly #utf8 = new Utf8Check();
  readonly #stack: Uint8Array;
  #depth = 0;
  #state = S.Start;
  #strIsKey = false;
  #uniLeft = 0;
  #num = 0;
  #lit = '';
  #litPos = 0;
  // What is being captured (a key or a top-level id), across chunks.
  #cap: Buffer[] | undefined;
  #capFrom = -1;
  #capLen = 0;
  #key = '';
  // The top level.
  #topKey = '';
  #topSeen = new Set<string>();
  #idText: string | undefined;
  // The edited levels: the result object (depth 2) and its _meta (depth 3).
  #inResult = false;
  #inMeta = false;
  #resultKey = '';
  #resultSeen = new Set<string>();
  #resultMembers = 0;
  #metaSeen = false;
  #metaMembers = 0;
  #serverInfoSeen = false;
  #resultTypeSeen = false;
  #enterMeta = false;
  // Emission.
  #passing = false;
  #passDepth = 0;
  #mark = 0;
  #out: (Buffer | string)[] = [];

  constructor(opts: ScanOptions) {
    this.#o = opts;
    this.#stack = new Uint8Array(opts.maxDepth + 2);
  }

  /** Scans one chunk; `out` gets what to send the client from it (empty before the commit). */
  push(chunk: Buffer, out: (Buffer | string)[]): ScanVerdict {
    this.#out = out;
    if (!this.#utf8.push(chunk)) return this.#fail('not UTF-8');
    const n = chunk.length;
    this.#mark = 0;
    if (this.#capFrom >= 0) this.#capFrom = 0;
    let i = 0;
    while (i < n) {
      const c = chunk[i]!;
      switch (this.#state) {
        case S.Str: {
          let j = i;
          while (j < n) {
            const d = chunk[j]!;
            if (d === 0x22 || d === 0x5c || d < 0x20) break;
            j++;
          }
          if (j === n) {
            i = n;
            continue;
          }
          const d = chunk[j]!;
          if (d < 0x20) return this.#fail('control character in a string');
          if (d === 0x5c) {
            this.#state = S.Esc;
            i = j + 1;
            continue;
          }
          i = j + 1;
          if (this.#strIsKey) {
            const v = this.#endKey(chunk, i);
            if (v !== 'more') return v;
            this.#state = S.Colon;
          } else {
            const v = this.#valueEnd(chunk, i);
            if (v !== 'more') return v;
          }
          continue;
        }
        case S.Esc:
          if (c === 0x75) {
            this.#state = S.Uni;
            this.#uniLeft = 4;
          } else if (c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) this.#state = S.Str;
          else return this.#fail('bad escape in a string');
          i++;
          continue;
        case S.Uni:
          if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))) return this.#fail('bad \\u escape');
          if (--this.#uniLeft === 0) this.#state = S.Str;
          i++;
          continue;
        case S.Num: {
          const next = this.#numberStep(c);
          if (next === 1) {
            i++;
            continue;
          }
          if (next === -1) return this.#fail('bad number');
          // The number ended before this byte, which is read again.
          const v = this.#valueEnd(chunk, i);
          if (v !== 'more') return v;
          continue;
        }
        case S.Lit:
          if (c !== this.#lit.charCodeAt(this.#litPos)) return this.#fail('bad literal');
          i++;
          if (++this.#litPos === this.#lit.length) {
            const v = this.#valueEnd(chunk, i);
            if (v !== 'more') return v;
          }
          continue;
        default:
          break;
      }
      if (isSpace(c)) {
        if (this.#passing && this.#o.compact) this.#skipByte(chunk, i);
        i++;
        continue;
      }
      switch (this.#state) {
        case S.Start: {
          if (c !== 0x7b) return this.#decline('not a JSON object');
          const v = this.#open(OBJECT);
          if (v !== 'more') return v;
          i++;
          continue;
        }
        case S.Value:
        case S.ArrFirst: {
          if (this.#state === S.ArrFirst && c === 0x5d) {
            const v = this.#close(chunk, i, ARRAY);
            if (v !== 'more') return v;
            i++;
            continue;
          }
          const v = this.#valueStart(chunk, i, c);
          if (v !== 'more') return v;
          i++;
          continue;
        }
        case S.ObjFirst:
        case S.ObjKey:
          if (c === 0x7d && this.#state === S.ObjFirst) {
            const v = this.#close(chunk, i, OBJECT);
            if (v !== 'more') return v;
            i++;
            continue;
          }
          if (c !== 0x22) return this.#fail('expected a key');
          this.#state = S.Str;
          this.#strIsKey = true;
          if (this.#edited(this.#depth)) this.#startCapture(i);
          i++;
          continue;
        case S.Colon:
          if (c !== 0x3a) return this.#fail('expected ":"');
          this.#state = S.Value;
          i++;
          continue;
        case S.After: {
          const top = this.#stack[this.#depth]!;
          if (c === 0x2c) {
            // Inside a copied value the range takes it; at the re-punctuated levels it is dropped.
            this.#state = top === OBJECT ? S.ObjKey : S.Value;
            i++;
            continue;
          }
          if ((c === 0x7d && top === OBJECT) || (c === 0x5d && top === ARRAY)) {
            const v = this.#close(chunk, i, top);
            if (v !== 'more') return v;
            i++;
            continue;
          }
          return this.#fail('expected "," or the end of a container');
        }
        case S.Done:
          return this.#fail('text after the message');
        default:
          return this.#fail('unexpected byte');
      }
    }
    if (this.#passing && n > this.#mark) out.push(chunk.subarray(this.#mark, n));
    if (this.#cap !== undefined && this.#capFrom >= 0 && n > this.#capFrom) this.#capture(chunk.subarray(this.#capFrom, n));
    return this.#capLen > MAX_KEY_BYTES ? this.#fail('a key or id over 4096 bytes') : 'more';
  }

  /** The upstream's answer ended: a complete response to the request, or a failure. */
  end(): ScanVerdict {
    if (this.#state !== S.Done) return this.#fail('the answer ended before its message did');
    if (!this.#utf8.end()) return this.#fail('not UTF-8');
    if (!this.committed) return this.#decline('no result');
    if (this.#idText === undefined) return this.#fail('the response has no id');
    let id: unknown;
    try {
      id = JSON.parse(this.#idText);
    } catch {
      id = undefined;
    }
    return id === this.#o.id ? 'done' : this.#fail('the response is to another request');
  }

  #fail(why: string): ScanVerdict {
    this.reason = why;
    return 'fail';
  }

  #decline(why: string): ScanVerdict {
    this.reason = why;
    return 'decline';
  }

  /** The levels whose keys the scan reads: the top object, the result object, its _meta. */
  #edited(depth: number): boolean {
    return depth === 1 || (depth === 2 && this.#inResult) || (depth === 3 && this.#inMeta);
  }

  #emit(s: string): void {
    if (this.committed) this.#out.push(s);
  }

  /** Stops copying at byte `i` and starts again after it (a separator the scan re-punctuates). */
  #skipByte(chunk: Buffer, i: number): void {
    if (i > this.#mark) this.#out.push(chunk.subarray(this.#mark, i));
    this.#mark = i + 1;
  }

  #startCapture(i: number): void {
    this.#cap = [];
    this.#capLen = 0;
    this.#capFrom = i;
  }

  #capture(b: Buffer): void {
    this.#capLen += b.length;
    if (this.#capLen <= MAX_KEY_BYTES) this.#cap!.push(Buffer.from(b));
  }

  /** The captured text, up to byte `end` of this chunk. */
  #captured(chunk: Buffer, end: number): string | undefined {
    if (end > this.#capFrom) this.#capture(chunk.subarray(this.#capFrom, end));
    const parts = this.#cap!;
    this.#cap = undefined;
    this.#capFrom = -1;
    const len = this.#capLen;
    this.#capLen = 0;
    return len > MAX_KEY_BYTES ? undefined : Buffer.concat(parts).toString('utf8');
  }

  #endKey(chunk: Buffer, end: number): ScanVerdict {
    if (!this.#edited(this.#depth)) return 'more';
    const raw = this.#captured(chunk, end);
    if (raw === undefined) return this.#fail('a key over 4096 bytes');
    // Compared by meaning: "id" and "\u0069d" are the same key.
    this.#key = raw.includes('\\') ? JSON.stringify(JSON.parse(raw) as string) : raw;
    if (this.#depth === 1) this.#topKey = this.#key;
    else if (this.#depth === 2) this.#resultKey = this.#key;
    return 'more';
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
      case 4:
        if (digit) return 1;
        if (c === 0x65 || c === 0x45) return (this.#num = 5), 1;
        return 0;
      case 5: // after 'e'
        if (c === 0x2b || c === 0x2d) return (this.#num = 6), 1;
        return digit ? ((this.#num = 7), 1) : -1;
      case 6:
        return digit ? ((this.#num = 7), 1) : -1;
      default:
        return digit ? 1 : 0;
    }
  }

  #valueStart(chunk: Buffer, i: number, c: number): ScanVerdict {
    const depth = this.#depth;
    if (depth === 1) {
      const v = this.#topMember(c);
      if (v !== 'more') return v;
      if (this.#topKey === '"id"') this.#startCapture(i);
    } else if (depth === 2 && this.#inResult) {
      const v = this.#resultMember(i, c);
      if (v !== 'more') return v;
    } else if (depth === 3 && this.#inMeta) {
      const v = this.#metaMember(i);
      if (v !== 'more') return v;
    }
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
    if (lit === undefined) return this.#fail('expected a value');
    this.#state = S.Lit;
    this.#lit = lit;
    this.#litPos = 1;
    return 'more';
  }

  #topMember(c: number): ScanVerdict {
    const key = this.#topKey;
    if (key === '"method"') return this.#decline('a request or notification');
    if (key !== '"id"' && key !== '"result"' && key !== '"error"' && key !== '"jsonrpc"') return 'more';
    if (this.#topSeen.has(key)) return this.#fail(`duplicate top-level ${key}`);
    this.#topSeen.add(key);
    if (key === '"error"') return this.committed ? this.#fail('both a result and an error') : this.#decline('an error response');
    if (key !== '"result"') return 'more';
    if (this.#topSeen.has('"error"')) return this.#fail('both a result and an error');
    if (c !== 0x7b) return this.#decline('a result that is not an object');
    this.committed = true;
    this.#inResult = true;
    this.#emit('{');
    return 'more';
  }

  /** Where one member of the result object goes: copied, dropped, or descended into (_meta). */
  #resultMember(i: number, c: number): ScanVerdict {
    const key = this.#key;
    const modern = this.#o.era === 'modern';
    this.#passing = false;
    let keep = true;
    if (SHAPED_KEYS.has(key)) {
      if (this.#resultSeen.has(key)) return this.#fail(`duplicate result key ${key}`);
      this.#resultSeen.add(key);
      if (key === '"resultType"') keep = modern && c === 0x22;
      else if (key === '"_meta"') keep = c === 0x7b || !modern;
      else if (key === '"structuredContent"') keep = modern || c === 0x7b;
      else keep = modern;
    }
    if (!keep) return 'more';
    if (key === '"resultType"') this.#resultTypeSeen = true;
    this.#emit(`${this.#resultMembers++ > 0 ? ',' : ''}${key}:`);
    if (key === '"_meta"' && c === 0x7b) {
      this.#metaSeen = true;
      this.#enterMeta = true;
      return 'more';
    }
    this.#pass(i, 2);
    return 'more';
  }

  #metaMember(i: number): ScanVerdict {
    const key = this.#key;
    this.#passing = false;
    if (key !== SERVER_INFO_KEY) {
      this.#emit(`${this.#metaMembers++ > 0 ? ',' : ''}${key}:`);
      this.#pass(i, 3);
      return 'more';
    }
    if (this.#serverInfoSeen) return this.#fail(`duplicate _meta key ${key}`);
    this.#serverInfoSeen = true;
    // The upstream's serverInfo is not passed on: a modern client is told the gateway's.
    if (this.#o.era === 'modern') this.#emit(`${this.#metaMembers++ > 0 ? ',' : ''}${key}:${this.#o.serverInfo}`);
    return 'more';
  }

  /** Copies the value that begins at byte `i`, a member of an object at `depth`. */
  #pass(i: number, depth: number): void {
    this.#passing = true;
    this.#passDepth = depth;
    this.#mark = i;
  }

  #open(kind: number): ScanVerdict {
    if (this.#depth >= this.#o.maxDepth) {
      this.tooDeep = true;
      return this.#fail(`nested deeper than ${this.#o.maxDepth - 1} levels`);
    }
    this.#stack[++this.#depth] = kind;
    this.#state = kind === OBJECT ? S.ObjFirst : S.ArrFirst;
    if (this.#enterMeta) {
      this.#enterMeta = false;
      this.#inMeta = true;
      this.#emit('{');
    }
    return 'more';
  }

  /** A container closes at byte `i`. */
  #close(chunk: Buffer, i: number, kind: number): ScanVerdict {
    if (this.#stack[this.#depth] !== kind) return this.#fail('mismatched brackets');
    const depth = this.#depth--;
    const modern = this.#o.era === 'modern';
    if (depth === 3 && this.#inMeta) {
      this.#inMeta = false;
      if (modern && !this.#serverInfoSeen) this.#emit(`${this.#metaMembers > 0 ? ',' : ''}${SERVER_INFO_KEY}:${this.#o.serverInfo}`);
      this.#emit('}');
    } else if (depth === 2 && this.#inResult) {
      this.#inResult = false;
      if (modern && !this.#metaSeen) this.#emit(`${this.#resultMembers++ > 0 ? ',' : ''}"_meta":{${SERVER_INFO_KEY}:${this.#o.serverInfo}}`);
      if (modern && !this.#resultTypeSeen) this.#emit(`${this.#resultMembers++ > 0 ? ',' : ''}"resultType":"complete"`);
      this.#emit('}');
    }
    return this.#valueEnd(chunk, i + 1);
  }

  /** A value ended just before byte `end`. */
  #valueEnd(chunk: Buffer, end: number): ScanVerdict {
    const depth = this.#depth;
    this.#state = depth === 0 ? S.Done : S.After;
    if (this.#passing && depth === this.#passDepth) {
      if (end > this.#mark) this.#out.push(chunk.subarray(this.#mark, end));
      this.#mark = end;
      this.#passing = false;
    }
    if (depth === 1 && this.#topKey === '"id"' && this.#cap !== undefined) {
      const text = this.#captured(chunk, end);
      if (text === undefined) return this.#fail('an id over 4096 bytes');
      this.#idText = text;
    }
    return 'more';
  }
}
