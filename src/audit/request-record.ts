// Builds the audit record of one request from the typed Call and its reply (pure). Bodies
// go through the configured recording mode (digest by default, redacted or full per rule);
// nothing from headers or credentials is ever copied in.
import type { Reply } from '../call-handlers.ts';
import type { Call } from '../jsonrpc/call.ts';
import { isJsonObject, type JsonValue } from '../jsonrpc/message.ts';
import type { AuditBodies } from './audit-body.ts';
import type { AuditOutcome, RequestAuditRecord } from './audit-record.ts';

export interface RecordTiming {
  requestId: string;
  time: string;
  traceId?: string;
  outcome: AuditOutcome;
  errorCode?: number;
  durationMs: number;
  responseBytes?: number;
}

function requestBody(call: Call): JsonValue | undefined {
  if (call.method === 'tools/call' || call.method === 'prompts/get') return call.params.arguments;
  return undefined;
}

export function buildRequestRecord(call: Call, reply: Reply, t: RecordTiming, bodies: AuditBodies): RequestAuditRecord {
  const name = call.target?.name;
  const info = call.clientInfo;
  const args = requestBody(call);
  const argsBody = bodies.arguments(name, args);
  const resultBody = reply.ok && (call.method === 'tools/call' || call.method === 'prompts/get' || call.method === 'resources/read') ? bodies.result(name, reply.value) : undefined;
  return {
    type: 'request',
    time: t.time,
    requestId: t.requestId,
    rpcId: call.id ?? null,
    ...(t.traceId ? { traceId: t.traceId } : {}),
    principal: { subject: call.principal.subject, method: call.principal.method, groups: call.principal.groups },
    ...(isJsonObject(info) ? { client: { ...(typeof info.name === 'string' ? { name: info.name } : {}), ...(typeof info.version === 'string' ? { version: info.version } : {}) } } : {}),
    era: call.era,
    method: call.method,
    ...(call.target ? { upstream: call.target.upstream, name: call.target.name, upstreamName: call.target.upstreamName } : {}),
    ...(call.paramValues && Object.keys(call.paramValues).length > 0 ? { params: call.paramValues } : {}),
    ...(call.decision ? { decision: { effect: call.decision.effect, ruleId: call.decision.ruleId, ...(call.decision.reason ? { reason: call.decision.reason } : {}) } } : {}),
    ...(call.approval ? { approval: { id: call.approval.id ?? '', channel: call.approval.channel, decision: call.approval.decision, ...(call.approval.by ? { approver: call.approval.by } : {}) } } : {}),
    ...(argsBody ? { arguments: argsBody } : {}),
    ...(resultBody ? { result: resultBody } : {}),
    outcome: t.outcome,
    ...(t.errorCode !== undefined ? { errorCode: t.errorCode } : {}),
    ...(call.upstreamMs !== undefined ? { upstreamMs: Math.round(call.upstreamMs * 1000) / 1000 } : {}),
    durationMs: t.durationMs,
    ...(t.responseBytes !== undefined ? { responseBytes: t.responseBytes } : {}),
  };
}
