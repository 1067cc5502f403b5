// Sends one target call upstream inside a child span whose context travels in both the
// HTTP headers and `_meta`, so one trace spans client -> gateway -> upstream; and, for a
// legacy client whose upstream answers input_required, asks the client and retries
// (legacy-mrtr-bridge.ts); for a 2026-07-28 client whose 2025-11-25 upstream asks it for
// input mid-call, suspends the call and answers input_required (upstream-input-bridge.ts). Returns the reply and the time spent waiting on the upstream.
// Each send first takes a place at its upstream's concurrency gate (limits/concurrency-gate.ts):
// a call that gets none is answered over_capacity and never sent.
import type { Call, Reply } from '../protocol/call.ts';
import type { ResultRelay } from '../protocol/result-relay.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { outcomeOf } from '../http/observer.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import type { Upstream, UpstreamRequest } from '../upstream/upstream.ts';
import { answerForLegacy } from './legacy-mrtr-bridge.ts';
import { answerConsent } from '../user-auth/consent-answer.ts';
import { credentialKind } from '../upstream/credential-kind.ts';
import { nestsDeeperThan } from '../protocol/json-depth.ts';
import { err } from '../protocol/result.ts';
import { abortable } from '../protocol/cancellation.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { ConcurrencyGate } from '../limits/concurrency-gate.ts';
import type { SuspendedCalls } from './suspended-calls.ts';
import { bridgesInput, sendWithInputBridge } from './upstream-input-bridge.ts';

export interface SendDeps {
  metrics?: Metrics;
  logger: Logger;
  /** Per upstream name; an upstream without one runs every call at once. */
  gates?: ReadonlyMap<string, ConcurrencyGate>;
  /** Upstream calls waiting for a 2026-07-28 client's input; unset: such requests are refused upstream. */
  suspended?: SuspendedCalls;
}

/** The trace fields that are set (traceparent always is when there is a trace). */
function definedFields(f: { traceparent?: string; tracestate?: string }): Record<string, string> {
  const out: Record<string, string> = {};
  if (f.traceparent !== undefined) out.traceparent = f.traceparent;
  if (f.tracestate !== undefined) out.tracestate = f.tracestate;
  return out;
}

/**
 * A result (or an upstream's error object) nested deeper than limits.maxJsonDepth was
 * executed upstream but is not passed on: nothing after this point (validation, redaction,
 * digests, the reply) walks it, and the call's audit record says why it holds no result
 * (audit/request-record.ts); the observer counts the limit hit from the error.
 */
function boundedDepth(deps: SendDeps, reply: Reply, upstream: Upstream, method: string): Reply {
  const limit = upstream.config.limits.maxJsonDepth;
  const answer = reply.ok ? reply.value : reply.error.kind === 'upstream_error' ? reply.error.error : undefined;
  if (answer === undefined || !nestsDeeperThan(answer, limit)) return reply;
  deps.logger.warn('upstream answer nested too deep, not forwarded', { upstream: upstream.name, method, limit });
  return err({ kind: 'upstream_answer_too_deep', upstream: upstream.name, limit });
}

function sendOnce(deps: SendDeps, call: Call, upstream: Upstream, params: JsonObject, paramHeaders: Record<string, string> | undefined, relay?: ResultRelay): Promise<Sent> {
  // Every configured upstream has a gate; a place is given at once (no promise) unless the
  // upstream is at its limit. Without a gate (a deps without gates) the send goes straight.
  const entry = deps.gates?.get(upstream.name)?.enter(call.authContext, call.cancellation ?? abortable(call.signal));
  if (entry === undefined) return sendTraced(deps, call, upstream, params, paramHeaders, relay);
  if (!(entry instanceof Promise)) return sendInPlace(entry, deps, call, upstream, params, paramHeaders, relay);
  return entry.then((place) => sendInPlace(place, deps, call, upstream, params, paramHeaders, relay));
}

type Sent = { reply: Reply; ms: number };
type Place = Awaited<ReturnType<ConcurrencyGate['enter']>>;

/** Sends while holding a place at the gate, given back when the send settles (no closure made
 * per call for the send itself). */
function sendInPlace(place: Place, deps: SendDeps, call: Call, upstream: Upstream, params: JsonObject, paramHeaders: Record<string, string> | undefined, relay: ResultRelay | undefined): Promise<Sent> {
  if (!place.ok) return Promise.resolve({ reply: place, ms: 0 });
  const release = place.value;
  // An async function: it never throws, it rejects.
  return sendTraced(deps, call, upstream, params, paramHeaders, relay).then(
    (sent) => {
      release();
      return sent;
    },
    (e: unknown) => {
      release();
      throw e;
    },
  );
}

/** The upstream call's span, with the kind of credential it carries (worked out only here). */
function upstreamSpan(parent: NonNullable<Call['span']>, call: Call, upstream: Upstream, params: JsonObject): ReturnType<NonNullable<Call['span']>['startUpstreamSpan']> {
  const kind = credentialKind(upstream.config);
  const credential = kind === 'none' ? {} : { credential: kind };
  return parent.startUpstreamSpan(
    call.method === 'resources/read'
      ? { upstream: upstream.name, method: call.method, resourceUri: params.uri as string, ...credential }
      : { upstream: upstream.name, method: call.method, name: params.name as string, ...credential },
  );
}

async function sendTraced(deps: SendDeps, call: Call, upstream: Upstream, params: JsonObject, paramHeaders: Record<string, string> | undefined, relay: ResultRelay | undefined): Promise<{ reply: Reply; ms: number }> {
  // No valid context on the request span (tracing off and no client trace): an upstream
  // span would neither record nor propagate anything, so none is made.
  const parent = call.span !== undefined && call.span.traceId !== undefined ? call.span : undefined;
  const span = parent === undefined ? undefined : upstreamSpan(parent, call, upstream, params);
  // Nothing to propagate (no client trace, tracing off): the params go as they came.
  const carriers = span?.inject();
  const trace = carriers?.headers.traceparent !== undefined ? carriers : undefined;
  // Built field by field: no spreads on the per-request path.
  const req: UpstreamRequest = {
    method: call.method,
    params: trace ? { ...params, _meta: { ...(isJsonObject(params._meta) ? params._meta : {}), ...definedFields(trace.meta) } } : params,
    clientCapabilities: call.clientCapabilities,
    onNotification: call.notify,
    // The call's principal as it is (no copy) unless the call acts for another context.
    principal: call.principal.authContext === call.authContext ? call.principal : { authContext: call.authContext, subject: call.principal.subject, method: call.principal.method },
  };
  // The call's cancellation as it is: reading `call.signal` would make an AbortSignal.
  if (call.cancellation) req.cancellation = call.cancellation;
  else req.signal = call.signal;
  if (call.clientInfo) req.clientInfo = call.clientInfo;
  if (call.primeStream) req.onStreamPrimed = call.primeStream;
  if (call.ask) req.ask = call.ask;
  if (call.channel) req.channel = call.channel;
  if (paramHeaders) req.paramHeaders = paramHeaders;
  if (trace) req.traceHeaders = definedFields(trace.headers);
  if (relay) req.relay = relay;
  const started = performance.now();
  const reply = boundedDepth(deps, await upstream.request(req), upstream, call.method);
  const ms = performance.now() - started;
  deps.metrics?.recordUpstreamCall({ upstream: upstream.name, method: call.method, durationMs: ms });
  // A span that does not record ignores what it is ended with: its outcome is not worked out.
  if (span?.recording) {
    const o = outcomeOf(reply, 'modern');
    span.end({ outcome: o.outcome, ...(o.errorCode !== undefined ? { errorCode: o.errorCode } : {}), ...(o.errorMessage ? { errorMessage: o.errorMessage } : {}) });
  }
  return { reply, ms };
}

/** `relay`: the call's result may be relayed unread (mcp/relay-decision.ts); never across the
 * input bridges, which read what the upstream answers. */
export async function sendUpstream(deps: SendDeps, call: Call, upstream: Upstream, params: JsonObject, paramHeaders?: Record<string, string>, relay?: ResultRelay): Promise<{ reply: Reply; ms: number }> {
  if (deps.suspended && bridgesInput(call, upstream)) {
    const bridged = await sendWithInputBridge(deps.suspended, call, upstream, params, (c, p) => sendOnce(deps, c, upstream, p, paramHeaders));
    return bridged.reply.ok ? bridged : { reply: answerConsent(call, bridged.reply), ms: bridged.ms };
  }
  const sent = await sendOnce(deps, call, upstream, params, paramHeaders, relay);
  // A per-user upstream the caller has not connected: answered as the client can act on it.
  const first = sent.reply.ok ? sent : { reply: answerConsent(call, sent.reply), ms: sent.ms };
  if (call.era !== 'legacy' || !first.reply.ok || first.reply.value.resultType !== 'input_required') return first;
  let ms = first.ms;
  const reply = await answerForLegacy(call, first.reply, async (extra) => {
    const again = await sendOnce(deps, call, upstream, { ...params, ...extra }, paramHeaders);
    ms += again.ms;
    return again.reply;
  });
  return { reply, ms };
}
