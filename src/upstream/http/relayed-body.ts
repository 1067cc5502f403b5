// The JSON body of an upstream's answer when the call may be relayed (protocol/result-relay.ts):
// held as it arrives, like any body, until it is RELAY_FROM_BYTES long (or its Content-Length
// says it will be); from then on scanned (result-relay-scanner.ts), and once the scan reaches
// the result's value, the client's reply is opened and every later byte goes straight to it,
// the upstream paused while the client's socket is full. A small answer, an error response or
// a reply that can no longer be relayed is left whole to the buffered path, which parses it as
// always (`held`). Nothing is kept of a relayed result once it is written.
import type { RelaySink, ResultRelay } from '../../protocol/result-relay.ts';
import { GATEWAY_SERVER_INFO } from '../../protocol/implementation.ts';
import { ResultRelayScanner } from '../result-relay-scanner.ts';

/** Bodies shorter than this are parsed as always: relaying them would save nothing. The same
 * length past which the buffered path writes a result in parts (transport/respond.ts). */
export const RELAY_FROM_BYTES = 64 * 1024;
const SERVER_INFO_TEXT = JSON.stringify(GATEWAY_SERVER_INFO);

export interface RelayedBodyInput {
  relay: ResultRelay;
  /** The id the gateway gave the request upstream. */
  id: number | string;
  /** limits.maxJsonDepth of the upstream. */
  maxJsonDepth: number;
  /** Content-Length of the body, when given. */
  length: number | undefined;
  pause(): void;
  resume(): void;
  /** The client went away mid-relay: the upstream's request is abandoned. */
  abandon(): void;
}

/** Refused before a byte reached the client (`invalid`: a clean error), or after (`broken`:
 * the client's reply cannot be completed). */
export interface BodyFailure {
  kind: 'invalid' | 'broken';
  reason: string;
  tooDeep: boolean;
}

export type BodyStep = { kind: 'more' } | BodyFailure;

export type BodyEnd = BodyFailure | RelayedEnd | { kind: 'held'; chunks: Buffer[] };

/** The result went to the client whole; `isError` when it was a tool's own error. */
export type RelayedEnd = { kind: 'relayed'; isError?: true };

export class RelayedBody {
  #held: Buffer[] = [];
  #size = 0;
  #scanner: ResultRelayScanner | undefined;
  /** Scanning stopped: the body goes to the buffered path. */
  #declined = false;
  #sink: RelaySink | undefined;
  readonly #out: (Buffer | string)[] = [];
  readonly #in: RelayedBodyInput;

  constructor(input: RelayedBodyInput) {
    this.#in = input;
  }

  /** Bytes of the result reached the client. */
  get committed(): boolean {
    return this.#sink !== undefined;
  }

  /** Bytes of the body so far. */
  get size(): number {
    return this.#size;
  }

  /** Refused by the caller (an SSE event that broke the rules): as the scan would have been. */
  failWith(reason: string): BodyFailure {
    if (this.#sink === undefined) return { kind: 'invalid', reason, tooDeep: false };
    this.#sink.fail();
    return { kind: 'broken', reason, tooDeep: false };
  }

  push(chunk: Buffer): BodyStep {
    this.#size += chunk.length;
    if (this.#sink !== undefined) return this.#scan(chunk);
    this.#held.push(chunk);
    if (this.#declined) return MORE;
    if (this.#scanner === undefined) {
      if (this.#size < RELAY_FROM_BYTES && !(this.#in.length !== undefined && this.#in.length >= RELAY_FROM_BYTES)) return MORE;
      this.#scanner = new ResultRelayScanner({ era: this.#in.relay.era, id: this.#in.id, maxDepth: this.#in.maxJsonDepth + 1, serverInfo: SERVER_INFO_TEXT, compact: this.#in.relay.compact });
      for (const held of this.#held) {
        const step = this.#scan(held);
        if (step.kind !== 'more' || this.#declined) return step;
      }
      return MORE;
    }
    return this.#scan(chunk);
  }

  end(): BodyEnd {
    const scanner = this.#scanner;
    if (scanner === undefined || this.#declined) return this.#giveBack();
    const verdict = scanner.end();
    if (verdict === 'done' && this.#sink !== undefined) {
      this.#sink.complete();
      return scanner.isError ? { kind: 'relayed', isError: true } : { kind: 'relayed' };
    }
    if (verdict === 'fail') return this.#failed(scanner);
    return this.#giveBack();
  }

  /** The exchange ended some other way (timeout, lost connection) after bytes were sent. */
  breakOff(): void {
    this.#sink?.fail();
  }

  #giveBack(): BodyEnd {
    return { kind: 'held', chunks: this.giveBack() };
  }

  /** The bytes held, none of which was sent (not committed), for the buffered path to read. */
  giveBack(): Buffer[] {
    const chunks = this.#held;
    this.#held = [];
    return chunks;
  }

  #scan(chunk: Buffer): BodyStep {
    const scanner = this.#scanner!;
    const out = this.#out;
    out.length = 0;
    const verdict = scanner.push(chunk, out);
    if (verdict === 'fail') return this.#failed(scanner);
    if (verdict === 'decline') {
      this.#declined = true;
      return MORE;
    }
    if (!scanner.committed) return MORE;
    if (this.#sink === undefined) {
      const sink = this.#in.relay.open();
      if (sink === undefined) {
        // The reply cannot take a relay any more: what was scanned goes the buffered way.
        this.#declined = true;
        return MORE;
      }
      this.#sink = sink;
      this.#held = [];
      sink.onGone(() => this.#in.abandon());
      sink.onDrain(() => this.#in.resume());
    }
    if (out.length === 0) return MORE;
    const bytes = out.length === 1 && typeof out[0] !== 'string' ? out[0]! : Buffer.concat(out.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
    if (!this.#sink.write(bytes)) this.#in.pause();
    return MORE;
  }

  #failed(scanner: ResultRelayScanner): BodyFailure {
    const reason = scanner.reason;
    if (this.#sink === undefined) return { kind: 'invalid', reason, tooDeep: scanner.tooDeep };
    this.#sink.fail();
    return { kind: 'broken', reason, tooDeep: scanner.tooDeep };
  }
}

const MORE: BodyStep = Object.freeze({ kind: 'more' });
