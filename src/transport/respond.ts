// Turns the gateway's reply into an HTTP response. A request answers with plain JSON unless
// a notification (progress, log) for it arrives first: then the response becomes an SSE
// stream at that moment, the notification and everything after it are relayed as they come,
// and the final response closes it (MCP 2026-07-28, basic/transports/streamable-http (responses)). Errors found before anything was streamed
// keep their HTTP status (400 for -32020 etc.). A cancelled request gets no answer. A failure
// inside the gateway is logged; the client gets a fixed message, never the exception's own
// (it can name paths, addresses, library internals).
import type { Gateway } from '../mcp/method-table.ts';
import { NO_RECORD, type Call, type CallRecord, type Reply } from '../protocol/call.ts';
import { mapError, type GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcNotification, RequestId } from '../protocol/message.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Era } from '../protocol/versions.ts';
import { shapeResult } from './era-result.ts';
import { listResultJson } from './list-json.ts';
import type { Observation, Observer } from '../http/observer.ts';
import type { ClientRequests } from './client-requests.ts';
import { declaresForRequest, type ClientAsk } from '../protocol/client-ask.ts';
import type { ClientChannel } from '../protocol/client-channel.ts';
import { err } from '../protocol/result.ts';
import type { HttpReply, TextReply } from '../http/http-io.ts';
import { retryAfterHeader } from '../http/replies.ts';
import { relaysToClient } from './request-notifications.ts';
import { SseStream } from './sse-stream.ts';
import { withSignal, type Cancellation } from '../protocol/cancellation.ts';
import type { ReplayBuffers } from './sse-replay.ts';
import { ClientRelay, type RelayHost, type RelayReply } from './client-relay.ts';
import { DelayLine, type DelayedCall } from './delay-line.ts';

/** What a primed stream asks a client to wait before it reconnects, when the upstream said nothing (ms). */
const DEFAULT_RETRY_MS = 1000;
/** How long an answer from a resumable upstream stream may take and still go back as plain
 * JSON; past it the client's answer becomes a primed, resumable stream (Exchange.prime). */
export const PRIME_DELAY_MS = 100;
/** Every exchange's prime waits on one timer (delay-line.ts). */
const PRIMES = new DelayLine(PRIME_DELAY_MS);

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };
/** What a client is told about an exception inside the gateway; the details go to the log. */
const INTERNAL_FAILURE: GatewayError = { kind: 'internal', message: 'the gateway failed to complete this request' };

const LEGACY_INPUT_REQUIRED: Reply = {
  ok: false,
  error: { kind: 'internal', message: 'the upstream asked for client input (input_required) that this 2025-11-25 session cannot give: it did not declare the capability (elicitation, sampling or roots) the question needs' },
};

/** The reply the client will receive: a 2025-11-25 client cannot be handed an MRTR question
 * the bridge could not answer for it, so it gets a clear error instead of an invalid result.
 * The audit record and span read this, not the upstream's answer. */
function deliverable(call: Call, reply: Reply): Reply {
  return call.era === 'legacy' && reply.ok && reply.value.resultType === 'input_required' ? LEGACY_INPUT_REQUIRED : reply;
}

/** A result's JSON longer than this (in characters) is sent as it was serialised, in parts
 * around it, never joined into one more string: joining copies it again (every later use of
 * the joined text flattens it), which for a 50 MB result is 50 MB more held per call. Smaller
 * messages are joined, so that the usual answer is one write. */
const JOIN_BELOW_CHARS = 64 * 1024;

/** The final JSON-RPC message of a call, as text in one part or several, with its HTTP status
 * and its length in bytes (the audit record's responseBytes). */
function finalMessage(call: Call, reply: Reply): { status: number; parts: readonly string[]; bytes: number } {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},`;
  if (reply.ok) {
    const result = reply.value;
    const text = listResultJson(call.method, result, call.era) ?? JSON.stringify(shapeResult(call.method, result, call.era));
    const prefix = `${head}"result":`;
    if (text.length >= JOIN_BELOW_CHARS) return { status: 200, parts: [prefix, text, '}'], bytes: Buffer.byteLength(prefix) + Buffer.byteLength(text) + 1 };
    const joined = `${prefix}${text}}`;
    return { status: 200, parts: [joined], bytes: Buffer.byteLength(joined) };
  }
  const { status, error } = mapError(reply.error, call.era === 'modern');
  const text = `${head}"error":${JSON.stringify(error)}}`;
  return { status, parts: [text], bytes: Buffer.byteLength(text) };
}

/** 429s and 503s over a limit say when to come back (RFC 9110 Retry-After), so HTTP clients and proxies can wait. */
function retryAfter(reply: Reply): Record<string, string> {
  return (!reply.ok && retryAfterHeader(reply.error)) || {};
}

export interface DispatchOptions {
  cancelOnDisconnect: boolean;
  /** The call's cancellation (its signal, made only if something asks for one). */
  abort: Cancellation;
  headers?: Record<string, string>;
  /** Where exceptions inside the gateway are reported (the client is not told them). */
  logger: Logger;
  /** The client's era, and the log level it asked for (request-notifications.ts). */
  era: Era;
  logLevel?: string;
  onDone?: () => void;
  /** Legacy sessions: streams that an upstream made resumable keep their events here. */
  replay?: { buffers: ReplayBuffers; sessionId: string };
  /** Legacy sessions: the client can be asked on the call's stream (what it declared). */
  asker?: { requests: ClientRequests; sessionId: string };
  /** Legacy sessions: the way to the client outside the call (protocol/client-channel.ts). */
  channel?: ClientChannel;
  /** Span, metrics and audit of this request. */
  observer?: Observer;
  observation?: Observation;
}

export function dispatch(gateway: Gateway, call: Omit<Call, 'notify' | 'signal' | 'cancellation'>, opts: DispatchOptions): Promise<HttpReply> {
  const exchange = new Exchange(opts);
  const observation = opts.observation;
  // Built field by field: no spreads of the call on the per-request path. Frozen in spirit
  // once built: nothing after this line writes to it.
  const full: { -readonly [K in keyof Omit<Call, 'signal'>]: Call[K] } & { cancellation: Cancellation } = {
    era: call.era,
    id: call.id,
    method: call.method,
    params: call.params,
    protocolVersion: call.protocolVersion,
    clientCapabilities: call.clientCapabilities,
    principal: call.principal,
    authContext: call.authContext,
    headers: call.headers,
    notify: exchange.notify,
    cancellation: opts.abort,
  };
  if (call.clientInfo) full.clientInfo = call.clientInfo;
  if (call.sessionId !== undefined) full.sessionId = call.sessionId;
  if (opts.asker) full.ask = exchange.asker(opts.asker, call.clientCapabilities);
  if (opts.channel) full.channel = opts.channel;
  if (opts.replay) full.primeStream = exchange.prime;
  if (call.method === 'tools/call') full.relay = exchange.offerRelay(call.id);
  if (observation) {
    full.requestId = observation.requestId;
    full.span = observation.span;
  }
  // The AbortSignal is made on first read only (Cancellation): most calls never need one.
  const dispatched = withSignal(full);
  exchange.run(gateway, dispatched).catch((e: unknown) => exchange.failed(dispatched, e));
  return exchange.response;
}

/** One request's way back: plain JSON, or an SSE stream from its first notification on.
 * A class so that one per request costs one object and a promise, not a set of closures. */
class Exchange implements RelayHost {
  readonly response: Promise<HttpReply>;
  readonly notify: (n: JsonRpcNotification) => void;
  private settle!: (r: HttpReply) => void;
  private sse: SseStream | undefined;
  private primeTimer: DelayedCall | undefined;
  private primeRetryMs: number | undefined;
  /** A big result may be relayed into this reply (client-relay.ts). */
  private relay: ClientRelay | undefined;

  constructor(private readonly opts: DispatchOptions) {
    this.response = new Promise<HttpReply>((r) => {
      this.settle = r;
    });
    this.notify = (n) => {
      if (relaysToClient(n, opts.era, opts.logLevel)) this.stream().send(n as unknown as JsonObject);
    };
  }

  /** The relay a big tools/call result may take (client-relay.ts); this exchange is its host. */
  offerRelay(id: RequestId): ClientRelay {
    return (this.relay = new ClientRelay(this, this.opts, id));
  }

  // RelayHost, on the prototype: no closures per call.
  currentStream(): SseStream | undefined {
    return this.sse;
  }

  claim(reply: RelayReply | undefined): void {
    this.cancelPrime();
    if (reply) this.settle(reply);
  }

  private stream(): SseStream {
    if (!this.sse) {
      const opts = this.opts;
      const retryMs = this.primeRetryMs;
      const replay = retryMs !== undefined && opts.replay ? opts.replay.buffers.open(opts.replay.sessionId) : undefined;
      this.cancelPrime();
      this.sse = new SseStream({
        ...(opts.headers ? { headers: opts.headers } : {}),
        ...(replay ? { replay } : {}),
        outlivesClient: !opts.cancelOnDisconnect,
        onCancel: () => {
          if (opts.cancelOnDisconnect) opts.abort.abort();
        },
      });
      if (replay && retryMs !== undefined) this.sse.prime(retryMs);
      this.settle(this.sse);
    }
    return this.sse;
  }

  /** The upstream made its answer a resumable stream (it sent a priming event), so this
   * answer becomes one too: a stream with event ids, primed with the upstream's retry
   * interval (2025-11-25). Not at once: an answer that arrives within PRIME_DELAY_MS goes
   * back as plain JSON, which a client cannot lose half of, and costs no replay log; a call
   * that takes longer, or whose first notification or question comes sooner, gets the
   * primed stream then. Only while nothing has been sent yet: ids cannot be given to events
   * already written. */
  readonly prime = (retryMs: number | undefined): void => {
    if (this.sse !== undefined || this.opts.replay === undefined || this.primeTimer !== undefined) return;
    this.primeRetryMs = retryMs ?? DEFAULT_RETRY_MS;
    this.primeTimer = PRIMES.add(() => {
      this.primeTimer = undefined;
      this.stream();
    });
  };

  private cancelPrime(): void {
    if (this.primeTimer === undefined) return;
    DelayLine.cancel(this.primeTimer);
    this.primeTimer = undefined;
  }

  /** Asks the client on this call's stream under a fresh id of the gateway's (the asker's
   * own id, an upstream's, is never shown to the client); a method whose capability the
   * client did not declare is refused at once, so nobody waits on a question never sent. */
  asker(asker: { requests: ClientRequests; sessionId: string }, caps: JsonObject): ClientAsk {
    return (method, params, timeoutMs) => {
      if (!declaresForRequest(method, params, caps)) return Promise.resolve(err({ kind: 'undeclared', message: `the client did not declare the capability ${method} needs` }));
      const id = asker.requests.newId();
      const answer = asker.requests.wait(asker.sessionId, id, timeoutMs, this.opts.abort.signal);
      this.stream().send({ jsonrpc: '2.0', id, method, params });
      return answer;
    };
  }

  /** A failure past the handler (finishing, serialising): the client still gets an answer. */
  failed(call: Call, e: unknown): void {
    this.report('request failed while finishing', call, e);
    const id = call.id;
    const { status, error } = mapError(INTERNAL_FAILURE, true);
    this.cancelPrime();
    if (this.relay !== undefined && this.relay.state !== 'unused') this.relay.cut();
    else if (this.sse) this.sse.close();
    else this.settle({ status, headers: JSON_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id, error }) });
    this.opts.onDone?.();
  }

  private report(msg: string, call: Call, e: unknown): void {
    // An exception here is a bug (errors are values inside): its stack is what finds it.
    this.opts.logger.error(msg, { requestId: call.requestId, rpcId: call.id, method: call.method, error: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });
  }

  async run(gateway: Gateway, full: Call): Promise<void> {
    const opts = this.opts;
    let reply: Reply;
    let record: CallRecord = NO_RECORD;
    try {
      const handled = await gateway.handle(full);
      reply = deliverable(full, handled.reply);
      record = handled.record;
    } catch (e) {
      this.report('request failed in the gateway', full, e);
      reply = { ok: false, error: INTERNAL_FAILURE };
    }
    // The answer is here: a stream not opened yet is not needed for it.
    this.cancelPrime();
    const observer = opts.observer;
    const observation = opts.observation;
    if (this.relay !== undefined && this.relay.state !== 'unused') {
      await this.relay.finish(full, reply, record, opts.logger, observer, observation);
      opts.onDone?.();
      return;
    }
    if (opts.abort.aborted) {
      // Cancelled: a legacy notifications/cancelled, or a modern client that closed its stream.
      // The receiver does not answer a cancelled request (2025-11-25 cancellation: "SHOULD
      // NOT send a response"; MCP 2026-07-28, basic/patterns/cancellation: "MUST NOT send anything more"), and the abort error
      // the upstream call ended with is not the client's news. The POST still needs an HTTP
      // response, so it gets an SSE stream that ends without one.
      if (observer && observation) await observer.finish(full, 'cancelled', record, observation);
      this.sse ??= new SseStream(opts.headers ? { headers: opts.headers } : {});
      this.settle(this.sse);
      this.sse.close();
      opts.onDone?.();
      return;
    }
    let message = finalMessage(full, reply);
    // The record of a completed request is written before its response leaves (issue:
    // audit); the sink decides how durable "written" is. Unrecorded, it does not leave.
    const finished = observer && observation ? observer.finish(full, reply, record, observation, message.bytes) : true;
    const recorded = finished === true || (await finished);
    if (!recorded) message = finalMessage(full, { ok: false, error: { kind: 'audit_unavailable' } });
    const { status, parts } = message;
    const sse = this.sse;
    if (sse) {
      sse.sendParts(parts);
      sse.close();
    } else {
      const extra = opts.headers || !reply.ok ? { ...opts.headers, ...retryAfter(reply) } : undefined;
      const headers = extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS;
      this.settle(parts.length === 1 ? { status, headers, body: parts[0]! } : { status, headers, parts });
    }
    opts.onDone?.();
  }
}
