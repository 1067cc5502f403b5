// Accounts for every request (issue: audit and telemetry): one span, the metrics, and one
// audit record, all from the same typed Call and reply. The transport begins an
// observation before dispatch and finishes it with the reply; the audit record of a
// completed request is written before its response is sent when the sink says so.
import { randomBytes } from 'node:crypto';
import type { AuditBodies } from '../audit/audit-body.ts';
import type { AuditOutcome, AuditTrail } from '../audit/audit-record.ts';
import { buildRequestRecord } from '../audit/request-record.ts';
import type { HeaderLookup } from '../headers/param-headers.ts';
import type { Principal } from '../identity/principal.ts';
import { NO_RECORD, type Call, type CallRecord, type Reply } from '../protocol/call.ts';
import { mapError, type GatewayError } from '../protocol/errors.ts';
import type { JsonObject, RequestId } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Metrics } from '../telemetry/metrics.ts';
import { isLimitName, type LimitName } from '../telemetry/limit-names.ts';
import type { RequestSpan, Tracing } from '../telemetry/tracing.ts';
import type { Era } from '../protocol/versions.ts';

export interface Observation {
  requestId: string;
  startedAt: number;
  /** Wall clock at arrival, epoch ms: formatted (ISO 8601) only when an audit record is built. */
  wallMs: number;
  span: RequestSpan;
}

/** When a request arrived: monotonic for durations, wall clock (epoch ms) for the record. */
export interface Arrival {
  startedAt: number;
  wallMs: number;
}

export interface Observer {
  /** `arrival`: when the request arrived, if before now (a refusal found after identity ran). */
  begin(req: { method: string; era: Era; headers: HeaderLookup; meta?: JsonObject; rpcId?: RequestId; protocolVersion?: string; sessionId?: string }, arrival?: Arrival): Observation;
  /** Refuses calls while the audit trail cannot record them (fail-closed mode). */
  admit(): Result<void, GatewayError>;
  /** Resolves false when the audit record could not be written (fail-closed mode): the
   * response must then not carry the result. Synchronous when there is no record to wait for. */
  finish(call: Call, reply: Reply | 'cancelled', record: CallRecord, o: Observation, responseBytes?: number): boolean | Promise<boolean>;
  /** A request refused before it became a call (Origin, limits, identity, parse, session,
   * version, unknown method, audit down): its span, metrics and audit record. */
  rejected(req: { method: string; era: Era; rpcId?: RequestId; headers: HeaderLookup; principal: Principal; meta?: JsonObject }, error: GatewayError, arrival?: Arrival): Promise<void>;
  metrics: Metrics | undefined;
}

/** The outcome and code as the client received them: errors are mapped by the client's era,
 * exactly as its answer was. */
export function outcomeOf(reply: Reply | 'cancelled', era: Era): { outcome: AuditOutcome; errorCode?: number; errorMessage?: string } {
  if (reply === 'cancelled') return { outcome: 'cancelled' };
  if (reply.ok) {
    if (reply.value.isError === true) return { outcome: 'tool_error' };
    return { outcome: reply.value.resultType === 'input_required' ? 'approval_required' : 'ok' };
  }
  const { error } = mapError(reply.error, era === 'modern');
  const outcome: AuditOutcome =
    reply.error.kind === 'rate_limited' ? 'rate_limited' : reply.error.kind === 'approval_required' ? 'approval_required' : 'error';
  return { outcome, errorCode: error.code, errorMessage: error.message };
}

/** The configured limit a refusal was for: counted once, where every reply is accounted for.
 * Limits met inside the upstream ring (answer size) and the catalog (list items) count there. */
export function limitOf(e: GatewayError): LimitName | undefined {
  switch (e.kind) {
    case 'body_too_large':
      return 'maxBodyBytes';
    case 'headers_too_large':
      return e.limit;
    case 'body_timeout':
      return 'bodyTimeout';
    case 'too_deep':
    case 'upstream_answer_too_deep':
      return 'maxJsonDepth';
    // A full cap answers over_capacity wherever it is found (sessions, streams, concurrency, approvals, answer budget).
    case 'over_capacity':
      return isLimitName(e.limit) ? e.limit : undefined;
    default:
      return undefined;
  }
}

const ID_PREFIX = randomBytes(4).toString('hex');
const CANCELLED_REPLY: Reply = ok({});
const recorded = (): boolean => true;
const ADMITTED: Result<void, GatewayError> = ok(undefined);
/** The signal of a refused request's Call: nothing runs for it, so nothing is ever cancelled
 * (one shared signal rather than an AbortController per refusal, on the path of shed load). */
const NEVER_CANCELLED = new AbortController().signal;

/** `server`: the virtual server whose requests this observer accounts for (one observer per
 * endpoint); its name goes on every span, metric sample and audit record. */
export function createObserver(deps: { tracing: Tracing; metrics?: Metrics; audit?: AuditTrail; bodies?: AuditBodies; logger: Logger; server?: string }): Observer {
  const { tracing, metrics, audit, logger, server } = deps;
  let requestCounter = 0;
  const observer: Observer = {
    metrics,
    async rejected(req, error, arrival) {
      const o = observer.begin(req, arrival);
      metrics?.recordRefusal(error.kind, mapError(error, req.era === 'modern').status);
      const call: Call = {
        era: req.era,
        id: req.rpcId ?? '',
        method: req.method,
        params: {},
        protocolVersion: '',
        clientCapabilities: {},
        principal: req.principal,
        authContext: req.principal.authContext,
        headers: req.headers,
        signal: NEVER_CANCELLED,
        notify: () => undefined,
        requestId: o.requestId,
      };
      await observer.finish(call, err(error), NO_RECORD, o);
    },
    begin(req, arrival) {
      // A per-process random prefix and a counter: unique, 16 hex digits, and no entropy
      // drawn per request (randomBytes showed in the hot path's profile).
      const requestId = `${ID_PREFIX}${(++requestCounter >>> 0).toString(16).padStart(8, '0')}`;
      // Undefined fields are absent ones to the span; no spreads on the per-request path.
      const span = tracing.startRequestSpan({
        method: req.method,
        era: req.era,
        headers: req.headers,
        meta: req.meta,
        rpcId: req.rpcId,
        protocolVersion: req.protocolVersion || undefined,
        sessionId: req.sessionId || undefined,
        requestId,
        server,
        transport: 'http',
      });
      return arrival ? { requestId, startedAt: arrival.startedAt, wallMs: arrival.wallMs, span } : { requestId, startedAt: performance.now(), wallMs: Date.now(), span };
    },
    admit() {
      return !audit || audit.healthy() ? ADMITTED : err({ kind: 'audit_unavailable' });
    },
    finish(call, reply, record, o, responseBytes) {
      const durationMs = performance.now() - o.startedAt;
      const { outcome, errorCode, errorMessage } = outcomeOf(reply, call.era);
      const decision = record.decision;
      const effect = decision?.effect;
      const denied = effect === 'deny' || effect === 'hidden' || effect === 'quarantined';
      const finalOutcome: AuditOutcome = denied ? 'denied' : outcome;
      const target = record.target;
      const span = o.span;
      // The configured limit that refused it, if one did: counted, and named in its audit record.
      const limit = reply !== 'cancelled' && !reply.ok ? limitOf(reply.error) : undefined;
      // The attribute objects are built only for a span that records them (tracing on).
      if (span.recording) {
        if (target) {
          span.setTarget(call.method === 'resources/read' ? { resourceUri: target.name } : call.method === 'prompts/get' ? { prompt: target.name } : { tool: target.name });
          span.setUpstream(target.upstream);
        }
        if (decision) span.setDecision({ effect: decision.effect, ruleId: decision.ruleId, approvalId: record.approval?.id || undefined });
      }
      span.end({ outcome: finalOutcome, errorCode, errorMessage: errorMessage || undefined });
      if (metrics) {
        const waitedMs = record.upstreamMs !== undefined || record.approvalWaitMs !== undefined ? (record.upstreamMs ?? 0) + (record.approvalWaitMs ?? 0) : undefined;
        metrics.recordRequest({
          method: call.method,
          upstream: target?.upstream,
          tool: target?.name,
          outcome: finalOutcome,
          server,
          durationMs,
          // Time waiting on upstreams and on people is not the gateway's own overhead.
          upstreamMs: waitedMs,
        });
        if (denied) metrics.recordPolicyDenial(decision!.ruleId);
        if (limit !== undefined) metrics.recordLimitHit(limit);
        if (finalOutcome === 'rate_limited' && decision) metrics.recordRateLimited(decision.ruleId);
      }
      if (!audit || !deps.bodies) return true;
      const rec = buildRequestRecord(
        call,
        record,
        reply === 'cancelled' ? CANCELLED_REPLY : reply,
        { requestId: o.requestId, time: new Date(o.wallMs).toISOString(), traceId: span.traceId, outcome: finalOutcome, errorCode, limit, durationMs: Math.round(durationMs * 1000) / 1000, responseBytes, server },
        deps.bodies,
      );
      // A fail-open sink never rejects; a rejection means fail closed: nothing unrecorded leaves.
      return audit.record(rec).then(recorded, (e: unknown) => {
        logger.error('audit record not written; withholding the response', { requestId: o.requestId, error: (e as Error).message });
        return false;
      });
    },
  };
  return observer;
}
