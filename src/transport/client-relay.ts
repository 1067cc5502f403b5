// The client's side of a relayed result (protocol/result-relay.ts): the reply the upstream's
// bytes are written into. A call answered as plain JSON gets a chunked `application/json`
// response (its length is not known in advance); a call whose reply is already an SSE stream
// (a progress notification came first) gets one event whose data is written as it comes. The
// envelope is the gateway's: `{"jsonrpc":"2.0","id":<the client's id>,"result":` first, and its
// closing `}` only once the call's audit record is written (finish), so a result the audit
// trail could not record never reaches the client whole. When the relay breaks off after bytes
// were sent (an invalid or too large answer, a lost upstream, a timeout), the client's
// connection is closed: it gets an incomplete body it cannot mistake for a result, and the
// audit record says what went wrong (README, Big results relayed as they come).
//
// Backpressure: write() says false while the response holds more than its high-water mark,
// and the upstream is paused until 'drain'. Nothing is queued beyond what arrives between
// the reply being handed over and it being attached to its response.
import type { ServerResponse } from 'node:http';
import type { Call, CallRecord, Reply } from '../protocol/call.ts';
import type { RequestId } from '../protocol/message.ts';
import type { RelaySink, RelayState, ResultRelay } from '../protocol/result-relay.ts';
import type { Era } from '../protocol/versions.ts';
import { onClientGone } from '../http/client-gone.ts';
import type { Observation, Observer } from '../http/observer.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { SseStream } from './sse-stream.ts';

/** The call's way back (transport/respond.ts). */
export interface RelayHost {
  /** The call's reply, when it is an SSE stream already. */
  currentStream(): SseStream | undefined;
  /** The reply is a relay from now on (a JSON one: `reply` is handed to the listener). */
  claim(reply: RelayReply | undefined): void;
}

/** The call's era, extra reply headers, and its cancellation (aborted: nothing more may be sent). */
export interface RelayCall {
  readonly era: Era;
  readonly headers?: Readonly<Record<string, string>>;
  readonly abort: { readonly aborted: boolean };
}

/** A JSON reply whose body is the relay: the listener attaches it to its response (http-io.ts). */
export class RelayReply {
  constructor(private readonly relay: ClientRelay) {}

  attach(res: ServerResponse): void {
    this.relay.attach(res);
  }
}

/** Bytes a relay lets its response hold unsent before it pauses the upstream: well above the
 * response's own high-water mark (16 KiB), so that an upstream's burst of reads is written on
 * without a pause and a resume per read, and a small part of any big result. */
const RELAY_HIGH_WATER = 256 * 1024;

export class ClientRelay implements ResultRelay, RelaySink {
  state: RelayState = 'unused';
  bytes = 0;
  #res: ServerResponse | undefined;
  #sse: SseStream | undefined;
  #pending: Buffer[] = [];
  #drain: (() => void) | undefined;
  #gone: (() => void) | undefined;
  #compact: boolean | undefined;
  /** The envelope's end is written: the response ends once attached. */
  #ending = false;

  constructor(
    private readonly host: RelayHost,
    private readonly call: RelayCall,
    private readonly id: RequestId,
  ) {}

  get era(): Era {
    return this.call.era;
  }

  get compact(): boolean {
    return (this.#compact ??= this.host.currentStream() !== undefined);
  }

  open(): RelaySink | undefined {
    if (this.state !== 'unused' || this.call.abort.aborted) return undefined;
    const sse = this.host.currentStream();
    // The scan was set up for one kind of reply; it cannot change under it.
    if ((sse !== undefined) !== this.compact) return undefined;
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(this.id)},"result":`;
    if (sse !== undefined) {
      const res = sse.relayInto();
      if (res === undefined) return undefined;
      this.#sse = sse;
      this.host.claim(undefined);
      this.state = 'open';
      this.#bind(res);
    } else {
      this.state = 'open';
      this.host.claim(new RelayReply(this));
    }
    this.write(Buffer.from(head));
    return this;
  }

  attach(res: ServerResponse): void {
    res.writeHead(200, { ...this.call.headers, 'content-type': 'application/json' });
    this.#bind(res);
    const pending = this.#pending;
    this.#pending = [];
    for (const chunk of pending) res.write(chunk);
    if (this.state === 'failed') res.destroy();
    else if (this.#ending) res.end();
    else if (!res.writableNeedDrain) this.#drain?.();
  }

  #bind(res: ServerResponse): void {
    this.#res = res;
    res.on('drain', () => this.#drain?.());
    onClientGone(res, () => this.#gone?.());
  }

  write(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    const res = this.#res;
    if (res === undefined) {
      this.#pending.push(chunk);
      return false;
    }
    res.write(chunk);
    return res.writableLength < RELAY_HIGH_WATER;
  }

  onDrain(fn: () => void): void {
    this.#drain = fn;
  }

  onGone(fn: () => void): void {
    this.#gone = fn;
  }

  complete(): void {
    if (this.state === 'open') this.state = 'complete';
  }

  fail(): void {
    if (this.state === 'unused') return;
    this.state = 'failed';
  }

  /** Once the call is answered: the record first, then the envelope's end, or the connection closed. */
  async finish(call: Call, reply: Reply, record: CallRecord, logger: Logger, observer: Observer | undefined, observation: Observation | undefined): Promise<void> {
    const relayed: CallRecord = { ...record, relayed: true };
    if (this.call.abort.aborted) {
      if (observer && observation) await observer.finish(call, 'cancelled', relayed, observation);
      this.#close();
      return;
    }
    const tail = this.#sse !== undefined ? '}\n\n' : '}';
    const whole = this.state === 'complete' && reply.ok;
    const finished = observer && observation ? observer.finish(call, reply, relayed, observation, whole ? this.bytes + tail.length : this.bytes) : true;
    const recorded = finished === true || (await finished);
    if (whole && recorded) {
      this.write(Buffer.from(tail));
      this.#ending = true;
      if (this.#sse !== undefined) this.#sse.close();
      else this.#res?.end();
      return;
    }
    if (!reply.ok) logger.warn('relayed result broke off; closing the client connection', { requestId: call.requestId, rpcId: call.id, error: reply.error.kind, reason: 'reason' in reply.error ? reply.error.reason : undefined });
    this.#close();
  }

  /** A failure in the gateway after the relay began: the reply cannot be completed. */
  cut(): void {
    this.#close();
  }

  /** The reply cannot be completed: the client is cut off rather than sent half a result. */
  #close(): void {
    this.state = 'failed';
    const res = this.#res;
    if (res !== undefined) res.destroy();
    else this.#pending = [];
  }
}
