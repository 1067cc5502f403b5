// The bytes of an upstream's SSE answer when the call may be relayed (protocol/result-relay.ts),
// looked at line by line before the SSE parser (sse-reader.ts) gets them (WHATWG HTML §9.2
// line ends: CRLF, LF or CR). Every line goes to the parser as before, except the first `data`
// line of an event: its value is held (relayed-body.ts) until it is known to be small (then
// the parser gets the line whole, as it would have), not a result (the same), or a big
// result, which is relayed from then on and never reaches the parser. A relayed event is
// complete at its blank line; a second data line in it is refused, since the relay has
// already sent the first as the whole message. Other fields of that event (id, retry, event
// names, comments) still go to the parser, which keeps the last event id and the retry.
import { RELAY_FROM_BYTES, type BodyFailure, type RelayedBody, type RelayedEnd } from './relayed-body.ts';

const LF = 0x0a;
const CR = 0x0d;
const DATA = Buffer.from('data');

export type TapStep = { kind: 'more' } | RelayedEnd | { kind: 'too_large' } | BodyFailure;

const MORE: TapStep = Object.freeze({ kind: 'more' });
const TOO_LARGE: TapStep = Object.freeze({ kind: 'too_large' });

export class SseRelayTap {
  /** The start of the line being read, until it is known whether it is a data line. */
  #lineHead: Buffer[] = [];
  #headLen = 0;
  /** 'head': the line's first bytes are being looked at; 'pass': it goes to the parser as it
   * comes; 'value': it is a candidate data line, its value going to `body`. */
  #line: 'head' | 'pass' | 'value' = 'head';
  #afterCr = false;
  /** The parser got that CR (it then takes the LF as the rest of the line end itself). */
  #crToParser = false;
  #eventHasData = false;
  /** The candidate line had "data: " (one space, which the value does not include). */
  #spaced = false;
  #body: RelayedBody | undefined;
  /** The event whose data is being relayed; done at its blank line. */
  #relaying: RelayedBody | undefined;
  /** A data line shorter than this is never relayed: a run of lines may pass it to the parser. */
  readonly #smallLine: number;
  #crChunk: Buffer | undefined;
  #crAt = -1;

  constructor(
    private readonly toParser: (bytes: Buffer) => void,
    private readonly newBody: () => RelayedBody,
    /** limits.maxUpstreamAnswerBytes, for the one line the parser does not bound. */
    private readonly maxBytes: number,
  ) {
    this.#smallLine = Math.min(RELAY_FROM_BYTES, maxBytes);
  }

  /** Bytes of the result reached the client. */
  get committed(): boolean {
    return this.#relaying !== undefined || this.#body?.committed === true;
  }

  /** The exchange ended some other way after bytes were sent. */
  breakOff(): void {
    (this.#relaying ?? this.#body)?.breakOff();
  }

  push(chunk: Buffer): TapStep {
    const n = chunk.length;
    // The usual answer: a chunk of whole events, shorter than any result the relay would
    // take, so none of its data lines can be one. The parser gets it as one piece, as it
    // would get its lines one by one.
    if (n < RELAY_FROM_BYTES && this.#line === 'head' && this.#headLen === 0 && !this.#afterCr && this.#relaying === undefined && endsEvents(chunk)) {
      this.#eventHasData = false;
      this.#crToParser = false;
      this.toParser(chunk);
      return MORE;
    }
    let pos = 0;
    if (this.#afterCr) {
      this.#afterCr = false;
      if (n > 0 && chunk[0] === LF) {
        if (this.#crToParser) this.toParser(chunk.subarray(0, 1));
        pos = 1;
      }
    }
    while (pos < n) {
      if (this.#line === 'head' && this.#headLen === 0 && this.#relaying === undefined) {
        const run = this.#plainRun(chunk, pos);
        if (run > pos) {
          this.toParser(chunk.subarray(pos, run));
          this.#crToParser = false;
          pos = run;
          if (pos === n) return MORE;
        }
      }
      const end = this.#lineEnd(chunk, pos);
      const stop = end === -1 ? n : end;
      const step = this.#content(chunk.subarray(pos, stop));
      if (step.kind !== 'more') return step;
      if (end === -1) return MORE;
      // The line's end: CR LF, LF or CR (a CR last in the chunk may be half of a CRLF).
      let after = end + 1;
      if (chunk[end] === CR) {
        if (after === n) this.#afterCr = true;
        else if (chunk[after] === LF) after++;
      }
      this.#crToParser = false;
      const ended = this.#endLine(chunk.subarray(end, after));
      if (ended.kind !== 'more') return ended;
      pos = after;
    }
    return MORE;
  }

  /** The stream ended. As lenient as the parser: a last line or event without its end counts. */
  end(): TapStep {
    if (this.#line === 'head' && this.#headLen > 0) {
      const decided = this.#decideHead(true);
      if (decided.kind !== 'more') return decided;
    }
    if (this.#line !== 'head') {
      const ended = this.#endLine(Buffer.alloc(0));
      if (ended.kind !== 'more') return ended;
    }
    return this.#relaying === undefined ? MORE : this.#blankLine(Buffer.alloc(0));
  }

  /** The end of the whole lines from `pos` (a line start) that go to the parser as they came:
   * all but a first data line of an event that may be big (as long as RELAY_FROM_BYTES), which
   * the line-by-line path looks at, and a line that ends in the next chunk or in a CR last in
   * this one. Handed over as one slice, they cost the parser one decode instead of one per line. */
  #plainRun(chunk: Buffer, pos: number): number {
    const n = chunk.length;
    let p = pos;
    while (p < n) {
      const end = this.#lineEnd(chunk, p);
      if (end === -1) break;
      let after = end + 1;
      if (chunk[end] === CR) {
        if (after === n) break;
        if (chunk[after] === LF) after++;
      }
      if (end === p) this.#eventHasData = false;
      else if (isDataLine(chunk, p, end)) {
        if (!this.#eventHasData && end - p >= this.#smallLine) break;
        this.#eventHasData = true;
      }
      p = after;
    }
    return p;
  }

  /** Index of the next CR or LF from `pos`, or -1. CRs are rare: the place of the next one is
   * kept for the chunk and looked for again only once passed. */
  #lineEnd(chunk: Buffer, pos: number): number {
    const lf = chunk.indexOf(LF, pos);
    if (this.#crChunk !== chunk || (this.#crAt !== -1 && this.#crAt < pos)) {
      this.#crChunk = chunk;
      this.#crAt = chunk.indexOf(CR, pos);
    }
    const cr = this.#crAt;
    if (cr === -1) return lf;
    return lf === -1 || cr < lf ? cr : lf;
  }

  /** Part of the current line, without its end. */
  #content(part: Buffer): TapStep {
    if (part.length === 0) return MORE;
    if (this.#line === 'pass') {
      this.toParser(part);
      return MORE;
    }
    if (this.#line === 'value') return this.#value(part);
    this.#lineHead.push(part);
    this.#headLen += part.length;
    // "data:" and an optional space: six bytes decide.
    if (this.#headLen < 6) return MORE;
    return this.#decideHead(false);
  }

  /** The line's first bytes are known (or the line ended): a candidate data line, or not. */
  #decideHead(lineEnded: boolean): TapStep {
    const head = Buffer.concat(this.#lineHead);
    this.#lineHead = [];
    this.#headLen = 0;
    const isData = head.length >= 5 && head.subarray(0, 4).equals(DATA) && head[4] === 0x3a;
    if (!isData || this.#eventHasData || lineEnded) {
      const relaying = this.#relaying;
      this.#relaying = undefined;
      if (isData && relaying !== undefined) return relaying.failWith('a second data line in a relayed event');
      this.#relaying = relaying;
      if (isData) this.#eventHasData = true;
      this.#line = 'pass';
      this.toParser(head);
      return MORE;
    }
    this.#eventHasData = true;
    this.#line = 'value';
    this.#body = this.newBody();
    this.#spaced = head[5] === 0x20;
    return this.#value(head.subarray(this.#spaced ? 6 : 5));
  }

  #value(part: Buffer): TapStep {
    if (part.length === 0) return MORE;
    const body = this.#body!;
    return body.size + part.length > this.maxBytes ? TOO_LARGE : body.push(part);
  }

  /** The current line ended with `terminator`. */
  #endLine(terminator: Buffer): TapStep {
    if (this.#line === 'head') {
      if (this.#headLen === 0) return this.#blankLine(terminator);
      const decided = this.#decideHead(true);
      if (decided.kind !== 'more') return decided;
    }
    const line = this.#line;
    this.#line = 'head';
    if (line === 'pass') return this.#terminate(terminator);
    const body = this.#body!;
    this.#body = undefined;
    if (body.committed) {
      this.#relaying = body;
      return MORE;
    }
    // Small, not a result, or not all of its message (which may go on in the event's next data
    // line, joined to this one): nothing of it was sent, so the parser gets the line as it came.
    this.toParser(Buffer.concat([Buffer.from(this.#spaced ? 'data: ' : 'data:'), ...body.giveBack()]));
    return this.#terminate(terminator);
  }

  #terminate(terminator: Buffer): TapStep {
    this.toParser(terminator);
    this.#crToParser = terminator.length > 0 && terminator[terminator.length - 1] === CR;
    return MORE;
  }

  #blankLine(terminator: Buffer): TapStep {
    this.#eventHasData = false;
    const relaying = this.#relaying;
    if (relaying === undefined) return this.#terminate(terminator);
    this.#relaying = undefined;
    const end = relaying.end();
    return end.kind === 'held' ? relaying.failWith('the relayed event was not a response') : end;
  }
}

/** The chunk ends with a blank line (LF LF or CR LF CR LF): every event in it is complete. */
function endsEvents(chunk: Buffer): boolean {
  const n = chunk.length;
  if (n < 2 || chunk[n - 1] !== LF) return false;
  return chunk[n - 2] === LF || (n >= 4 && chunk[n - 2] === CR && chunk[n - 3] === LF && chunk[n - 4] === CR);
}

/** The line from `start` to `end` is a data line ("data:", then its value). */
function isDataLine(chunk: Buffer, start: number, end: number): boolean {
  return end - start >= 5 && chunk[start] === 0x64 && chunk[start + 1] === 0x61 && chunk[start + 2] === 0x74 && chunk[start + 3] === 0x61 && chunk[start + 4] === 0x3a;
}
