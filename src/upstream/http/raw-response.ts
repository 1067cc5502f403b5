// An exchange's request as undici's raw dispatch callbacks give it (http-exchange.ts). The
// response headers are the name/value pairs as they came off the wire: nothing is decoded
// until a header is asked for, and the exchange asks for two (Content-Type, Content-Length)
// and an initialize for one more (Mcp-Session-Id), so a call's answer never pays for turning
// every header into an object. Names compare case-insensitively (RFC 9110 section 5.1);
// values read as latin1, as undici itself reads them. The control is the request's abort,
// once connected, and its pause: onHeaders and onData answer whether undici reads on, and
// `resume` restarts it; `inTwo` holds undici while the second part of a chunk waits a turn.

type Raw = readonly (Buffer | string)[];

const NONE: Raw = Object.freeze([]);

export class ResponseHeaders {
  static readonly EMPTY = new ResponseHeaders(NONE);

  constructor(private readonly raw: Raw) {}

  /** The first value of `name` (given in lower case), or undefined. */
  get(name: string): string | undefined {
    const raw = this.raw;
    const length = name.length;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const key = raw[i]!;
      if (key.length !== length) continue;
      const text = typeof key === 'string' ? key : key.toString('latin1');
      if (text === name || text.toLowerCase() === name) {
        const value = raw[i + 1]!;
        return typeof value === 'string' ? value : value.toString('latin1');
      }
    }
    return undefined;
  }
}

/** Takes bytes of a response that RequestControl.inTwo hands on. */
export interface ChunkTaker {
  take(part: Buffer): void;
}

export class RequestControl {
  private abortRequest: ((reason?: Error) => void) | undefined;
  private resumeReading: (() => void) | undefined;
  private paused = false;
  private holding = false;

  connected(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
  }

  responding(resume: () => void): void {
    this.resumeReading = resume;
  }

  /** What onHeaders and onData return: false holds undici until `resume`. */
  get reading(): boolean {
    return !this.paused && !this.holding;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (!this.holding) this.resumeReading?.();
  }

  /** Hands `chunk` on in two parts, cut at `at` (-1: whole, now): the second a turn later,
   * undici held back until then, reading on after it unless paused meanwhile (backpressure). */
  inTwo(chunk: Buffer, at: number, taker: ChunkTaker): void {
    if (at === -1) return taker.take(chunk);
    taker.take(chunk.subarray(0, at));
    this.holding = true;
    setImmediate(() => {
      this.holding = false;
      taker.take(chunk.subarray(at));
      if (!this.paused) this.resumeReading?.();
    });
  }

  /** Abandons the request (its connection is closed if it was sent); nothing before it connected. */
  abort(reason: Error): void {
    this.abortRequest?.(reason);
  }
}
