// A streaming, validating scan of one upstream JSON-RPC response that lets its `result` go to
// the client as the upstream's own bytes (protocol/result-relay.ts). On top of the grammar
// (json-stream-scanner.ts: one JSON object, UTF-8, no deeper than limits.maxJsonDepth) it
// checks, with keys and ids of bounded length, that its top-level `id`, `result`, `error` and
// `jsonrpc` appear once each, with a result or an error but not both, and that the id is the
// request's (JSON-RPC 2.0, §5 Response object). What it emits is the result's value only: the
// transport writes the envelope with the client's own id around it, so the upstream's id is
// never shown, and nothing else of the top level is passed on.
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
// Until the result's first member is known nothing is emitted (`committed` false): the caller
// keeps the bytes, and a `decline` (an error response, not a response, no object, an earlier
// id not the request's, a leading resultType not "complete") sends them down the buffered
// path, which answers as it always did. A `fail` before that is a clean error for the client;
// after it, the relay is broken. Only a complete result is relayed: a task or an
// input_required question is for the gateway to read, so a late resultType breaks the relay.
import { JsonStreamScanner, type ScanVerdict } from './json-stream-scanner.ts';
import type { Era } from '../protocol/versions.ts';
import { TokenCapture } from './token-capture.ts';

export type { ScanVerdict } from './json-stream-scanner.ts';

export interface ScanOptions {
  era: Era;
  /** The request's id as the gateway sent it upstream. */
  id: number | string;
  /** The deepest nesting allowed, the envelope included (limits.maxJsonDepth + 1). */
  maxDepth: number;
  /** The gateway's serverInfo, as JSON text (2026-07-28 clients). */
  serverInfo: string;
  /** Whitespace outside strings is dropped (a result relayed into one SSE data line). */
  compact: boolean;
}

/** Longest key, or id, compared by the scan; a longer one at these levels is refused. */
const MAX_KEY_BYTES = 4096;
const SERVER_INFO_KEY = '"io.modelcontextprotocol/serverInfo"';
/** Result members that shaping for an era reads or changes. */
const SHAPED_KEYS = new Set(['"resultType"', '"_meta"', '"structuredContent"', '"ttlMs"', '"cacheScope"']);

export class ResultRelayScanner extends JsonStreamScanner {
  /** The result's value has begun: bytes are being emitted. */
  committed = false;
  /** The result says `"isError": true` (a tool's own error, as the audit trail and metrics
   * count it); the last of its isError members if it has several, as JSON.parse reads it. */
  isError = false;
  readonly #o: ScanOptions;
  // What is being captured (a key, a top-level id, a resultType), across chunks.
  readonly #cap = new TokenCapture(MAX_KEY_BYTES);
  #key = '';
  // The top level.
  #topKey = '';
  readonly #topSeen = new Set<string>();
  #idText: string | undefined;
  // The shaped levels: the result object (depth 2) and its _meta (depth 3).
  #inResult = false;
  #inMeta = false;
  #enterMeta = false;
  readonly #resultSeen = new Set<string>();
  #resultMembers = 0;
  #metaSeen = false;
  #resultTypeSeen = false;
  /** The result's `{` is read, not yet emitted: its first member decides. */
  #opening = false;
  #metaMembers = 0;
  #serverInfoSeen = false;
  // Emission: a value being copied from byte `mark` on.
  #passing = false;
  #passDepth = 0;
  #mark = 0;
  #out: (Buffer | string)[] = [];

  constructor(opts: ScanOptions) {
    super(opts.maxDepth);
    this.#o = opts;
  }

  /** Scans one chunk; `out` gets what to send the client from it (nothing before the commit). */
  push(chunk: Buffer, out: (Buffer | string)[]): ScanVerdict {
    this.#out = out;
    this.#mark = 0;
    this.#cap.nextChunk();
    const v = this.scan(chunk);
    if (v !== 'more') return v;
    const n = chunk.length;
    if (this.#passing && n > this.#mark) out.push(chunk.subarray(this.#mark, n));
    this.#cap.chunkEnd(chunk);
    return this.#cap.over ? this.fail('a key, id or resultType over 4096 bytes') : 'more';
  }

  /** The upstream's answer ended: a complete response to the request, or a failure. */
  end(): ScanVerdict {
    const v = this.ended();
    if (v !== 'more') return v;
    if (!this.committed) return this.decline('no result');
    if (this.#idText === undefined) return this.fail('the response has no id');
    return this.#isRequestId(this.#idText) ? 'done' : this.fail('the response is to another request');
  }

  #isRequestId(text: string): boolean {
    try {
      return JSON.parse(text) === this.#o.id;
    } catch {
      return false;
    }
  }

  /** The levels whose keys the scan reads: the top object, the result object, its _meta. */
  #shaped(depth: number): boolean {
    return depth === 1 || (depth === 2 && this.#inResult) || (depth === 3 && this.#inMeta);
  }

  #emit(s: string): void {
    if (this.committed) this.#out.push(s);
  }

  protected space(chunk: Buffer, i: number): void {
    // Inside a copied value, only a compact relay drops it (a line break would end an SSE event).
    if (!this.#passing || !this.#o.compact) return;
    if (i > this.#mark) this.#out.push(chunk.subarray(this.#mark, i));
    this.#mark = i + 1;
  }

  protected keyStart(i: number): void {
    if (!this.#shaped(this.depth)) return;
    this.#cap.start(i);
  }

  protected keyEnd(chunk: Buffer, end: number): ScanVerdict {
    if (!this.#shaped(this.depth)) return 'more';
    const raw = this.#cap.take(chunk, end);
    if (raw === undefined) return this.fail('a key over 4096 bytes');
    // Compared by meaning: "id" and "\\u0069d" are the same key.
    this.#key = raw.includes('\\') ? JSON.stringify(JSON.parse(raw) as string) : raw;
    if (this.depth === 1) this.#topKey = this.#key;
    return 'more';
  }

  protected valueStart(_chunk: Buffer, i: number, c: number): ScanVerdict {
    const depth = this.depth;
    if (depth === 1) {
      const v = this.#topMember(c);
      if (v !== 'more') return v;
      if (this.#topKey === '"id"') this.keyStart(i);
      return 'more';
    }
    if (depth === 2 && this.#inResult) return this.#resultMember(i, c);
    if (depth === 3 && this.#inMeta) return this.#metaMember(i);
    return 'more';
  }

  #topMember(c: number): ScanVerdict {
    const key = this.#topKey;
    if (key === '"method"') return this.decline('a request or notification');
    if (key !== '"id"' && key !== '"result"' && key !== '"error"' && key !== '"jsonrpc"') return 'more';
    if (this.#topSeen.has(key)) return this.fail(`duplicate top-level ${key}`);
    this.#topSeen.add(key);
    if (key === '"error"') return this.committed ? this.fail('both a result and an error') : this.decline('an error response');
    if (key !== '"result"') return 'more';
    if (this.#topSeen.has('"error"')) return this.fail('both a result and an error');
    if (c !== 0x7b) return this.decline('a result that is not an object');
    this.#inResult = true;
    this.#opening = true;
    return 'more';
  }

  /** The relay begins: the result's `{` is the first byte the client gets of it. */
  #commit(): void {
    this.#opening = false;
    this.committed = true;
    this.#emit('{');
  }

  /** A resultType's string value, read whole: only "complete" may be relayed. */
  #resultTypeRead(text: string | undefined): ScanVerdict {
    if (text === undefined) return this.fail('a resultType over 4096 bytes');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.fail('a resultType that is not a string');
    }
    if (value !== 'complete') {
      const why = `a result of resultType ${JSON.stringify(value).slice(0, 64)}`;
      return this.#opening ? this.decline(why) : this.fail(`${why} after its content`);
    }
    if (!this.#opening) return 'more';
    this.#commit();
    if (this.#o.era === 'modern') {
      this.#resultTypeSeen = true;
      this.#emit(`${this.#resultMembers++ > 0 ? ',' : ''}"resultType":"complete"`);
    }
    return 'more';
  }

  /** Where one member of the result object goes: copied, dropped, or descended into (_meta). */
  #resultMember(i: number, c: number): ScanVerdict {
    const key = this.#key;
    const modern = this.#o.era === 'modern';
    this.#passing = false;
    // The value's first byte tells true from anything else; the grammar checks the rest.
    if (key === '"isError"') this.isError = c === 0x74;
    let keep = true;
    if (SHAPED_KEYS.has(key)) {
      if (this.#resultSeen.has(key)) return this.fail(`duplicate result key ${key}`);
      this.#resultSeen.add(key);
      if (key === '"resultType"') keep = modern && c === 0x22;
      else if (key === '"_meta"') keep = c === 0x7b || !modern;
      else if (key === '"structuredContent"') keep = modern || c === 0x7b;
      else keep = modern;
    }
    // A string resultType is read whole (#resultTypeRead); leading, it decides the commit.
    if (key === '"resultType"' && c === 0x22) {
      this.keyStart(i);
      if (this.#opening) return 'more';
    } else if (this.#opening) this.#commit();
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
    if (this.#serverInfoSeen) return this.fail(`duplicate _meta key ${key}`);
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

  protected opened(): void {
    if (!this.#enterMeta) return;
    this.#enterMeta = false;
    this.#inMeta = true;
    this.#emit('{');
  }

  protected closed(depth: number): void {
    const modern = this.#o.era === 'modern';
    if (depth === 3 && this.#inMeta) {
      this.#inMeta = false;
      if (modern && !this.#serverInfoSeen) this.#emit(`${this.#metaMembers > 0 ? ',' : ''}${SERVER_INFO_KEY}:${this.#o.serverInfo}`);
      this.#emit('}');
    } else if (depth === 2 && this.#inResult) {
      if (this.#opening) this.#commit();
      this.#inResult = false;
      if (modern && !this.#metaSeen) this.#emit(`${this.#resultMembers++ > 0 ? ',' : ''}"_meta":{${SERVER_INFO_KEY}:${this.#o.serverInfo}}`);
      if (modern && !this.#resultTypeSeen) this.#emit(`${this.#resultMembers++ > 0 ? ',' : ''}"resultType":"complete"`);
      this.#emit('}');
    }
  }

  protected valueEnd(chunk: Buffer, end: number): ScanVerdict {
    const depth = this.depth;
    if (this.#passing && depth === this.#passDepth) {
      if (end > this.#mark) this.#out.push(chunk.subarray(this.#mark, end));
      this.#mark = end;
      this.#passing = false;
    }
    if (depth === 2 && this.#inResult && this.#cap.active) return this.#resultTypeRead(this.#cap.take(chunk, end));
    if (depth === 1 && this.#topKey === '"id"' && this.#cap.active) {
      const text = this.#cap.take(chunk, end);
      if (text === undefined) return this.fail('an id over 4096 bytes');
      this.#idText = text;
      // An id before the result is checked before any of the result is sent: another request's
      // answer goes down the buffered path, which passes over it as it always did. After the
      // result, only the end can tell (and the relay is broken by then).
      if (!this.#isRequestId(text)) return this.committed ? this.fail('the response is to another request') : this.decline('a response to another request');
    }
    return 'more';
  }
}
