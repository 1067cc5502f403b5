// One JSON-RPC exchange over Streamable HTTP with an upstream: POST a message, then read one JSON
// body or an SSE stream (MCP 2026-07-28, basic/transports/streamable-http (responses)), whose
// notifications are handed over as they arrive and whose requests (legacy era only) go to
// `onServerRequest`. Nothing is held beyond one SSE event or one JSON body, nor beyond
// `maxAnswerBytes` (limits.maxUpstreamAnswerBytes; a larger answer ends it as `too_large`); a big
// result the caller may relay goes to its client as it comes (relayed-body.ts, sse-relay-tap.ts).
//
// An undici dispatch handler on its raw callbacks (onConnect; onHeaders with the wire's
// name/value pairs, read lazily: raw-response.ts; onData returning false to pause), not
// `pool.request()` and a body stream: the usual answer (a priming event and the response in
// one chunk) is parsed in one pass, with no stream, iterator, header objects or extra promise
// per call, and the timeout and the caller's cancellation abort the request directly (no
// AbortSignal per call). Retries are the caller's (http-upstream.ts), but a `resumable`
// (2025-11-25) stream the upstream ends before the response, its events having ids, is resumed
// with a GET carrying Last-Event-ID after its `retry` (MCP 2025-11-25, basic/transports
// (resumability and redelivery)), at most MAX_RESUMES times, within the exchange's timeout.
import type { Dispatcher } from 'undici';
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from '../../protocol/message.ts';
import type { ExchangeInput, ExchangeOutcome } from './exchange-outcome.ts';
import { MAX_EVENT_LENGTH, SseParser } from './sse-reader.ts';
import { isResponseTo, parseWireMessage } from '../wire-message.ts';
import type { AnswerMeter } from '../../limits/answer-budget.ts';
import { RELAY_FROM_BYTES, RelayedBody } from './relayed-body.ts';
import { SseRelayTap, type TapStep } from './sse-relay-tap.ts';
import { firstEventEnd } from './first-event.ts';
import { BodyText } from './body-text.ts';
import { RequestControl, ResponseHeaders, type ChunkTaker } from './raw-response.ts';
import { abortable } from '../../protocol/cancellation.ts';

export type { ExchangeInput, ExchangeOutcome } from './exchange-outcome.ts';

const MAX_ERROR_BODY = 64 * 1024;
const DRAIN_TIMEOUT_MS = 5000;
const EVENT_STREAM = /^text\/event-stream/i;
/** Resumptions of one exchange at most: a server that keeps closing streams gets no more. */
export const MAX_RESUMES = 3;
/** Wait before resuming when the upstream gave no `retry`, and the longest `retry` honoured (ms). */
const DEFAULT_RETRY_MS = 1000;
const MAX_RETRY_MS = 10_000;
type Reading = 'headers' | 'accepted' | 'json' | 'relay' | 'error' | 'sse' | 'drain';

export function exchange(input: ExchangeInput): Promise<ExchangeOutcome> {
  // A caller already gone: send nothing.
  if (input.signal?.aborted || input.cancellation?.aborted) return Promise.resolve({ kind: 'aborted' });
  return new Promise((resolve) => {
    const handler = new ExchangeHandler(input, resolve);
    // With a timeout of our own, undici's header and body timers (300 s) would only cut it short.
    const timers = input.timeoutMs !== undefined ? { headersTimeout: 0, bodyTimeout: 0 } : {};
    input.pool.dispatch({ path: input.path, method: 'POST', headers: input.headers, body: JSON.stringify(input.body), ...timers }, handler);
  });
}

class ExchangeHandler implements Dispatcher.DispatchHandler, ChunkTaker {
  private readonly id: RequestId | undefined;
  private readonly wire = new RequestControl();
  private settled = false;
  private reading: Reading = 'headers';
  private status = 0;
  private headers = ResponseHeaders.EMPTY;
  private readonly text = new BodyText();
  private size = 0;
  private sse: SseParser | undefined;
  /** A relayed JSON body, or the tap before the SSE parser (relayed-body.ts, sse-relay-tap.ts). */
  private body: RelayedBody | undefined;
  private tap: SseRelayTap | undefined;
  private timer: NodeJS.Timeout | undefined;
  private resumes = 0;
  private primed = false;
  private resumeTimer: NodeJS.Timeout | undefined;
  /** What the upstream's events said so far, kept across resumed streams. */
  private lastEventId: string | undefined;
  private retryMs: number | undefined;
  /** The same bound for a JSON body as for one event of a stream. */
  private readonly maxAnswer: number;
  /** What the answer being read holds of the shared budget. */
  private readonly meter: AnswerMeter | undefined;
  private readonly onAbort = (): void => this.stop({ kind: 'aborted' }, (this.input.cancellation ?? this.input.signal)?.reason);
  private readonly unlisten: (() => void) | undefined;

  constructor(
    private readonly input: ExchangeInput,
    private readonly resolve: (o: ExchangeOutcome) => void,
  ) {
    this.id = input.body.id as RequestId | undefined;
    this.maxAnswer = input.maxAnswerBytes ?? MAX_EVENT_LENGTH;
    this.meter = input.budget?.meter();
    const { signal, cancellation, timeoutMs } = input;
    this.unlisten = (cancellation ?? (signal && abortable(signal)))?.onAbort(this.onAbort);
    if (timeoutMs !== undefined) this.timer = setTimeout(() => this.stop({ kind: 'timeout' }, new DOMException('upstream timeout', 'TimeoutError')), timeoutMs);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.wire.connected(abort);
    // Settled while queued in the pool (timeout, caller gone): never send it.
    if (this.settled && this.reading !== 'drain') abort(new DOMException('exchange already settled', 'AbortError'));
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    if (status < 200) return true;
    this.status = status;
    this.wire.responding(resume);
    const headers = (this.headers = new ResponseHeaders(raw));
    const length = Number(headers.get('content-length') || Number.NaN);
    if (status === 202 || (status < 300 && this.id === undefined)) this.reading = 'accepted';
    else if (status >= 300) this.reading = 'error';
    else if (EVENT_STREAM.test(headers.get('content-type') ?? '')) {
      this.reading = 'sse';
      this.sse = new SseParser((data) => this.onEvent(data), this.maxAnswer);
      if (this.input.relay && this.id !== undefined) this.tap = new SseRelayTap((b) => this.toParser(b), () => this.newBody(undefined), this.maxAnswer);
    } else if (this.input.relay && status === 200 && this.id !== undefined && this.resumes === 0 && !(length < RELAY_FROM_BYTES)) {
      this.reading = 'relay';
      this.body = this.newBody(length);
    } else this.reading = 'json';
    return this.wire.reading;
  }

  onData(chunk: Buffer): boolean {
    this.read(chunk);
    return this.wire.reading;
  }

  private read(chunk: Buffer): void {
    switch (this.reading) {
      case 'sse': {
        if (this.meter && this.tap?.committed !== true && !this.meter.charge(chunk.length)) return this.tooLarge(this.input.budget!.maxBytes, 'over_budget');
        // A long first chunk: its first event now, the rest a turn later (first-event.ts).
        const at = this.size === 0 ? firstEventEnd(chunk) : -1;
        this.size += chunk.length;
        return this.wire.inTwo(chunk, at, this);
      }
      case 'relay':
        if (this.meter && !this.body!.committed && !this.meter.charge(chunk.length)) return this.tooLarge(this.input.budget!.maxBytes, 'over_budget');
        this.size += chunk.length;
        return this.size > this.maxAnswer ? this.tooLarge(this.maxAnswer) : this.tapped(this.body!.push(chunk));
      case 'json':
      case 'error':
        if (this.reading === 'error' && this.size >= MAX_ERROR_BODY) return;
        if (this.meter && !this.meter.charge(chunk.length)) return this.tooLarge(this.input.budget!.maxBytes, 'over_budget');
        this.size += chunk.length;
        if (this.size > this.maxAnswer) return this.tooLarge(this.maxAnswer);
        this.text.push(chunk, this.reading === 'json');
    }
  }

  onComplete(): void {
    if (this.settled) return this.settle(undefined);
    // A resumed stream the upstream will not give: a lost stream (never a lost session: resent).
    if (this.resumes > 0 && this.reading !== 'sse') {
      return this.settle({ kind: 'network_error', error: new Error(`resuming the stream failed (HTTP ${this.status})`), responded: true });
    }
    switch (this.reading) {
      case 'accepted':
        return this.settle({ kind: 'accepted', status: this.status, headers: this.headers });
      case 'sse':
        if (this.tap) this.tapped(this.tap.end());
        if (this.settled) return this.settle(undefined);
        this.sse!.end();
        this.lastEventId = this.sse!.lastEventId ?? this.lastEventId;
        this.retryMs = this.sse!.retryMs ?? this.retryMs;
        if (this.settled) return this.settle(undefined);
        if (this.input.resumable && this.lastEventId !== undefined && this.resumes < MAX_RESUMES) return this.resume(this.lastEventId);
        return this.settle({ kind: 'network_error', error: new Error('stream closed before the response arrived'), responded: true });
      case 'relay': {
        const end = this.body!.end();
        if (end.kind !== 'held') return end.kind === 'relayed' ? this.settle(end) : this.tapped(end);
        this.text.adopt(end.chunks);
        return this.settleBody();
      }
      case 'json':
      case 'error':
        return this.settleBody();
      default:
        return this.settle({ kind: 'network_error', error: new Error('response ended without a status'), responded: this.status !== 0 });
    }
  }

  onError(error: Error): void {
    this.settle(this.settled ? undefined : { kind: 'network_error', error, responded: this.status !== 0 });
  }

  private onEvent(data: string): void {
    // The event's text left the parser's buffer: what the stream holds starts again from here.
    this.meter?.release();
    if (this.settled) return;
    if (data === '' && !this.primed && this.sse?.lastEventId !== undefined) {
      this.primed = true;
      this.input.onPrimed?.(this.sse.retryMs);
      return;
    }
    const m = parseWireMessage(data);
    if (m === undefined) return;
    if (isResponseTo(m, this.id)) {
      this.settle({ kind: 'response', status: this.status, headers: this.headers, message: m });
      this.drain();
      return;
    }
    if (!('method' in m)) return;
    try {
      if ('id' in m && m.id !== undefined) this.input.onServerRequest?.(m as JsonRpcRequest);
      else this.input.onNotification?.(m as JsonRpcNotification);
    } catch (e) {
      this.stop({ kind: 'network_error', error: e as Error, responded: true }, e);
    }
  }

  private newBody(length: number | undefined): RelayedBody {
    const { relay, maxJsonDepth } = this.input.relay!;
    const stop = (): void => this.stop({ kind: 'aborted' }, new DOMException('client gone during the relay', 'AbortError'));
    const known = length !== undefined && Number.isFinite(length) ? length : undefined;
    return new RelayedBody({ relay, id: this.id!, maxJsonDepth, length: known, pause: () => this.wire.pause(), resume: () => this.wire.resume(), abandon: stop });
  }

  /** Bytes of an SSE answer (ChunkTaker): through the tap when the result may be relayed, else to the parser. */
  take(chunk: Buffer): void {
    if (this.tap && this.reading === 'sse') this.tapped(this.tap.push(chunk));
    else this.toParser(chunk);
  }

  /** Lines of an SSE answer the tap does not relay (and all, without a tap): to the parser. */
  private toParser(bytes: Buffer): void {
    if (this.reading === 'sse' && !this.sse!.pushBytes(bytes)) this.tooLarge(this.maxAnswer);
  }

  /** What a relay made of a chunk. Relayed bytes are the client's socket's to hold, not the answer budget's. */
  private tapped(step: TapStep): void {
    if (this.settled) return;
    if (step.kind === 'more') {
      if ((this.body ?? this.tap)?.committed) this.meter?.release();
    } else if (step.kind === 'relayed') {
      this.settle(step);
      this.drain();
    } else if (step.kind === 'too_large') this.tooLarge(this.maxAnswer);
    else {
      this.reading = 'drain';
      this.stop({ kind: step.kind === 'invalid' ? 'invalid_answer' : 'relay_broken', reason: step.reason, tooDeep: step.tooDeep }, new Error('upstream answer refused'));
    }
  }

  /** Asks for the rest of the stream after the upstream's retry interval. */
  private resume(lastEventId: string): void {
    this.resumes++;
    const { 'content-type': _type, ...rest } = this.input.headers;
    const headers = { ...rest, accept: 'text/event-stream', 'last-event-id': lastEventId };
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      if (this.settled) return;
      this.reading = 'headers';
      this.input.pool.dispatch({ path: this.input.path, method: 'GET', headers, ...(this.input.timeoutMs !== undefined ? { headersTimeout: 0, bodyTimeout: 0 } : {}) }, this);
    }, Math.min(this.retryMs ?? DEFAULT_RETRY_MS, MAX_RETRY_MS));
  }

  private settleBody(): void {
    const text = this.text.take();
    const m = parseWireMessage(text);
    const { status, headers } = this;
    const bodyText = text.slice(0, MAX_ERROR_BODY);
    if (this.reading === 'error') return this.settle({ kind: 'http_error', status, headers, bodyText, ...(m && isResponseTo(m, undefined) ? { message: m } : {}) });
    if (m && isResponseTo(m, this.id)) return this.settle({ kind: 'response', status, headers, message: m });
    this.settle({ kind: 'http_error', status, headers, bodyText });
  }

  /** The answer will not fit (`over_budget`: answers in flight hold the shared budget): stop, close. */
  private tooLarge(limit: number, kind: 'too_large' | 'over_budget' = 'too_large'): void {
    this.text.clear();
    this.sse = undefined;
    this.reading = 'drain';
    this.stop({ kind, limit }, new Error(`upstream answer over ${limit}`));
  }

  /** The final response SHOULD end the stream (MCP 2026-07-28, basic/transports/streamable-http
   * (responses)): read what is left, unparsed, so the keep-alive connection returns to the
   * pool, but never wait on a server that keeps the stream open. */
  private drain(): void {
    this.reading = 'drain';
    this.sse = undefined;
    this.timer = setTimeout(() => this.wire.abort(new Error('stream kept open after the response')), DRAIN_TIMEOUT_MS);
    this.timer.unref();
  }

  /** Settles now and abandons the request (the connection is closed if it was sent). */
  private stop(outcome: ExchangeOutcome, reason: unknown): void {
    if (this.settled) return;
    this.settle(outcome);
    this.wire.abort(reason instanceof Error ? reason : new DOMException('exchange stopped', 'AbortError'));
  }

  /** Resolves once; later calls (undefined: the rest of the stream was read) only stop the timer. */
  private settle(outcome: ExchangeOutcome | undefined): void {
    this.meter?.release();
    clearTimeout(this.timer);
    clearTimeout(this.resumeTimer);
    this.timer = this.resumeTimer = undefined;
    if (this.settled || outcome === undefined) return;
    // Ended some other way once bytes of a relay were sent: the client's reply is broken.
    if (outcome.kind !== 'relayed') (this.body ?? this.tap)?.breakOff();
    this.settled = true;
    this.unlisten?.();
    this.resolve(outcome);
  }
}
