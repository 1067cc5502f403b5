// Accounts for every request (issue: audit and telemetry): one span, the metrics, and one
// audit record, all from the same typed Call and reply. The transport begins an
// observation before dispatch and finishes it with the reply; the audit record of a
// completed request is written before its response is sent when the sink says so.
import { randomBytes } from 'node:crypto';
import type { Reply } from './call-handlers.ts';
import type { AuditBodies } from './audit/audit-body.ts';
import type { AuditOutcome, AuditTrail } from './audit/audit-record.ts';
import { buildRequestRecord } from './audit/request-record.ts';
import type { HeaderLookup } from './headers/param-headers.ts';
import type { Principal } from './identity/principal.ts';
import type { Call } from './jsonrpc/call.ts';
import { mapError, type GatewayError } from './jsonrpc/errors.ts';
import type { JsonObject, RequestId } from './jsonrpc/message.ts';
import { err, ok, type Result } from './jsonrpc/result.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './telemetry/metrics.ts';
import type { RequestSpan, Tracing } from './telemetry/tracing.ts';
import type { Era } from './upstream/upstream.ts';

export interface Observation {
  requestId: string;
  startedAt: number;
  time: string;
  span: RequestSpan;
}

export interface Observer {
  begin(req: { method: string; era: Era; headers: HeaderLookup; meta?: JsonObject; rpcId?: RequestId; protocolVersion?: string; sessionId?: string }): Observation;
  /** Refuses calls while the audit trail cannot record them (fail-closed mode). */
  admit(): Result<void, GatewayError>;
  /** Resolves false when the audit record could not be written (fail-closed mode): the
   * response must then not carry the result. */
  finish(call: Call, reply: Reply | 'cancelled', o: Observation, responseBytes?: number): Promise<boolean>;
  /** A request refused before it became a call (bad headers, unknown method, audit down). */
  rejected(req: { method: string; era: Era; rpcId?: RequestId; headers: HeaderLookup; principal: Principal; meta?: JsonObject }, error: GatewayError): Promise<void>;
  metrics: Metrics | undefined;
}

export function outcomeOf(reply: Reply | 'cancelled'): { outcome: AuditOutcome; errorCode?: number; errorMessage?: string } {
  if (reply === 'cancelled') return { outcome: 'cancelled' };
  if (reply.ok) {
    if (reply.value.isError === true) return { outcome: 'tool_error' };
    return { outcome: reply.value.resultType === 'input_required' ? 'approval_required' : 'ok' };
  }
  const { error } = mapError(reply.error);
  const outcome: AuditOutcome =
    reply.error.kind === 'rate_limited' ? 'rate_limited' : reply.error.kind === 'approval_required' ? 'approval_required' : 'error';
  return { outcome, errorCode: error.code, errorMessage: error.message };
}

const ID_PREFIX = randomBytes(4).toString('hex');
let requestCounter = 0;

export function createObserver(deps: { tracing: Tracing; metrics?: Metrics; audit?: AuditTrail; bodies?: AuditBodies; logger: Logger }): Observer {
  const { tracing, metrics, audit, logger } = deps;
  const observer: Observer = {
    metrics,
    async rejected(req, error) {
      const o = observer.begin(req);
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
        signal: new AbortController().signal,
        notify: () => undefined,
        requestId: o.requestId,
      };
      await observer.finish(call, err(error), o);
    },
    begin(req) {
      // A per-process random prefix and a counter: unique, 16 hex digits, and no entropy
      // drawn per request (randomBytes showed in the hot path's profile).
      const requestId = `${ID_PREFIX}${(++requestCounter >>> 0).toString(16).padStart(8, '0')}`;
      const span = tracing.startRequestSpan({
        method: req.method,
        era: req.era,
        headers: req.headers,
        ...(req.meta ? { meta: req.meta } : {}),
        ...(req.rpcId !== undefined ? { rpcId: req.rpcId } : {}),
        ...(req.protocolVersion ? { protocolVersion: req.protocolVersion } : {}),
        ...(req.sessionId ? { sessionId: req.sessionId } : {}),
        requestId,
        transport: 'http',
      });
      return { requestId, startedAt: performance.now(), time: new Date().toISOString(), span };
    },
    admit() {
      return !audit || audit.healthy() ? ok(undefined) : err({ kind: 'audit_unavailable' });
    },
    async finish(call, reply, o, responseBytes) {
      const durationMs = performance.now() - o.startedAt;
      const { outcome, errorCode, errorMessage } = outcomeOf(reply);
      const denied = call.decision?.effect === 'deny';
      const finalOutcome: AuditOutcome = denied ? 'denied' : outcome;
      if (call.target) {
        o.span.setTarget(call.method === 'resources/read' ? { resourceUri: call.target.name } : call.method === 'prompts/get' ? { prompt: call.target.name } : { tool: call.target.name });
        o.span.setUpstream(call.target.upstream);
      }
      if (call.decision) o.span.setDecision({ effect: call.decision.effect, ruleId: call.decision.ruleId, ...(call.approval?.id ? { approvalId: call.approval.id } : {}) });
      o.span.end({ outcome: finalOutcome, ...(errorCode !== undefined ? { errorCode } : {}), ...(errorMessage ? { errorMessage } : {}) });
      metrics?.recordRequest({
        method: call.method,
        ...(call.target ? { upstream: call.target.upstream, tool: call.target.name } : {}),
        outcome: finalOutcome,
        durationMs,
        // Time waiting on upstreams and on people is not the gateway's own overhead.
        ...(call.upstreamMs !== undefined || call.approvalWaitMs !== undefined ? { upstreamMs: (call.upstreamMs ?? 0) + (call.approvalWaitMs ?? 0) } : {}),
      });
      if (denied && call.decision) metrics?.recordPolicyDenial(call.decision.ruleId);
      if (finalOutcome === 'rate_limited' && call.decision) metrics?.recordRateLimited(call.decision.ruleId);
      if (!audit || !deps.bodies) return true;
      const rec = buildRequestRecord(
        call,
        reply === 'cancelled' ? ok({}) : reply,
        {
          requestId: o.requestId,
          time: o.time,
          ...(o.span.traceId ? { traceId: o.span.traceId } : {}),
          outcome: finalOutcome,
          ...(errorCode !== undefined ? { errorCode } : {}),
          durationMs: Math.round(durationMs * 1000) / 1000,
          ...(responseBytes !== undefined ? { responseBytes } : {}),
        },
        deps.bodies,
      );
      // A fail-open sink never rejects; a rejection means fail closed: nothing unrecorded leaves.
      return audit.record(rec).then(
        () => true,
        (e: unknown) => {
          logger.error('audit record not written; withholding the response', { requestId: o.requestId, error: (e as Error).message });
          return false;
        },
      );
    },
  };
  return observer;
}
