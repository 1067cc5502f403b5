// Builds the audit record of one request from the typed Call, the record of what the MCP
// ring decided about it, and the reply the client received (pure). Bodies
// go through the configured recording mode (digest by default, redacted or full per rule);
// nothing from headers or credentials is ever copied in.
import type { Call, CallRecord, Reply } from '../protocol/call.ts';
import { isJsonObject, type JsonValue } from '../protocol/message.ts';
import type { AuditBodies } from './audit-body.ts';
import type { AuditOutcome, RequestAuditRecord } from './audit-record.ts';

export interface RecordTiming {
  requestId: string;
  time: string;
  traceId?: string;
  outcome: AuditOutcome;
  errorCode?: number;
  /** The configured limit (its key) that refused the request, when one did. */
  limit?: string;
  durationMs: number;
  responseBytes?: number;
  /** The virtual server the request came to; undefined: the default endpoint. */
  server?: string;
}

function requestBody(call: Call): JsonValue | undefined {
  if (call.method === 'tools/call' || call.method === 'prompts/get') return call.params.arguments;
  return undefined;
}

// The literal lists the keys in canonical (RFC 8785) order, nested ones too, so that
// canonicalJson takes its fast path; an absent field is an undefined member, which the
// canonical text leaves out exactly as it would leave out a missing key. (Any order would be
// correct, only slower.) No spreads: this runs once per request.
export function buildRequestRecord(call: Call, record: CallRecord, reply: Reply, t: RecordTiming, bodies: AuditBodies): RequestAuditRecord {
  const target = record.target;
  const name = target?.name;
  const info = call.clientInfo;
  const decision = record.decision;
  const approval = record.approval;
  const params = record.paramValues;
  const method = call.method;
  const withResult = reply.ok && (method === 'tools/call' || method === 'prompts/get' || method === 'resources/read');
  // Executed upstream, not passed on: the record says there was a result, and why it is not here.
  const refusedResult = !reply.ok && reply.error.kind === 'upstream_answer_too_deep' ? { unrecorded: `nested deeper than ${reply.error.limit} levels (limits.maxJsonDepth); not forwarded` } : undefined;
  return {
    approval: approval ? { approver: approval.by || undefined, channel: approval.channel, decision: approval.decision, id: approval.id ?? '' } : undefined,
    arguments: bodies.arguments(name, record.arguments ?? requestBody(call)),
    client: isJsonObject(info)
      ? { name: typeof info.name === 'string' ? info.name : undefined, version: typeof info.version === 'string' ? info.version : undefined }
      : undefined,
    credential: record.credential,
    decision: decision ? { effect: decision.effect, reason: decision.reason || undefined, ruleId: decision.ruleId } : undefined,
    durationMs: t.durationMs,
    era: call.era,
    errorCode: t.errorCode,
    filledArguments: record.filledArguments,
    limit: t.limit,
    method,
    name,
    outcome: t.outcome,
    params: params && Object.keys(params).length > 0 ? params : undefined,
    principal: { groups: call.principal.groups, method: call.principal.method, subject: call.principal.subject },
    relayed: record.relayed === true ? true : undefined,
    requestId: t.requestId,
    responseBytes: t.responseBytes,
    result: withResult ? bodies.result(name, reply.value) : refusedResult,
    rpcId: call.id ?? null,
    server: t.server,
    shaping: record.shaping,
    task: record.task ? { id: record.task.id, status: record.task.status } : undefined,
    time: t.time,
    traceId: t.traceId || undefined,
    type: 'request',
    upstream: target?.upstream,
    upstreamMs: record.upstreamMs !== undefined ? Math.round(record.upstreamMs * 1000) / 1000 : undefined,
    upstreamName: target?.upstreamName,
    via: record.via,
  };
}

