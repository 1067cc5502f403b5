// Runs the approval a rule with effect `approve` asks for, through the channel it names
// (or its fallback), and says what the pipeline does next: forward the call (with exactly
// the approved params), or answer now (the MRTR question, a declined tool result). Every
// timeout, error and cancellation fails closed: nothing is forwarded (issue: approvals).
import type { ApprovalRecord, Call } from '../protocol/call.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { askFailureError } from '../protocol/client-ask.ts';
import type { Decision } from '../policy/decision.ts';
import type { ApprovalChannel, ApprovalOutcome, ApprovalRequest } from './approval.ts';
import {
  approvalQuestion,
  argumentsDigest,
  askModern,
  canElicitForm,
  declinedResult,
  forwardedParams,
  newUserApprovalId,
  readAnswer,
  verifyModernRetry,
  type ApprovalTarget,
  type StateSealer,
} from './user-approval.ts';

export interface ApprovalDeps {
  sealer: StateSealer;
  defaultTimeoutMs: number;
  /** Channels configured besides "user" (which needs no configuration). */
  channels: ReadonlySet<ApprovalChannel>;
  request(
    req: Omit<ApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>,
    opts: { signal: AbortSignal; timeoutMs?: number; onWaiting?: (elapsedMs: number) => void; onCreated?: (r: ApprovalRequest) => void },
  ): Promise<ApprovalOutcome>;
  now(): number;
  /** Audit events of the calling-user channel (the service emits those of the others). */
  event?: (name: 'approval_requested' | 'approval_decided', detail: JsonObject) => void;
}

/** Pending approvals are decided by people: minutes, not seconds. */
const APPROVAL_RETRY_AFTER_MS = 30_000;

export type FlowStep = { kind: 'forward'; params: JsonObject } | { kind: 'reply'; result: JsonObject };

/** What the approval decided, and the record of it (channel, decision, who, id, time waited). */
export interface ApprovalRun {
  step: Result<FlowStep, GatewayError>;
  approval?: ApprovalRecord;
  waitedMs?: number;
}

export interface FlowTarget extends ApprovalTarget {
  upstreamName: string;
}

function usable(channel: ApprovalChannel, call: Call, deps: ApprovalDeps | undefined): boolean {
  if (channel === 'user') return call.era === 'modern' ? canElicitForm(call.clientCapabilities) && deps !== undefined : call.ask !== undefined && canElicitForm(call.clientCapabilities);
  return deps?.channels.has(channel) ?? false;
}

export async function runApproval(deps: ApprovalDeps | undefined, call: Call, decision: Decision, t: FlowTarget): Promise<ApprovalRun> {
  const approver = (decision.approval?.approver ?? 'console') as ApprovalChannel;
  const fallback = decision.approval?.fallback as ApprovalChannel | undefined;
  const timeoutMs = decision.approval?.timeoutMs ?? deps?.defaultTimeoutMs ?? 300_000;
  const state = call.params.requestState;

  // A modern retry that carries our sealed state: verify it before anything else.
  if (call.era === 'modern' && typeof state === 'string' && deps) {
    const userMayApprove = approver === 'user' || fallback === 'user';
    const v = await verifyModernRetry(deps.sealer, t, call.authContext, state, call.params.inputResponses, deps.now(), userMayApprove);
    if (!v.ok) return { step: v };
    const decision = v.value.kind === 'approved' ? 'approved' : 'denied';
    const approval: ApprovalRecord = { channel: 'user', decision, by: call.principal.subject, ...(v.value.id ? { id: v.value.id } : {}) };
    if (v.value.id) userEvent(deps, 'approval_decided', call, t, v.value.id, { decision, by: call.principal.subject });
    if (v.value.kind === 'declined') return { step: ok({ kind: 'reply', result: declinedResult(t, v.value.reason) }), approval };
    return { step: ok({ kind: 'forward', params: forwardedParams(call.params, v.value.upstreamState) }), approval };
  }

  const channel = [approver, fallback].find((c): c is ApprovalChannel => c !== undefined && usable(c, call, deps));
  if (!channel) {
    const how = approver === 'user'
      ? 'this client cannot be asked: use a client that declares the elicitation capability (form mode)'
      : `the "${approver}" approval channel is not configured on this gateway`;
    return { step: err({
      kind: 'approval_required',
      message: `Calling ${t.name} needs approval (${approver}), and ${how}${fallback ? ` (fallback "${fallback}" is not available either)` : ''}. Nothing was run.`,
      data: { rule: decision.ruleId, approver, ...(fallback ? { fallback } : {}) },
    }) };
  }

  if (channel === 'user' && call.era === 'modern') {
    const id = newUserApprovalId();
    userEvent(deps, 'approval_requested', call, t, id);
    return { step: ok({ kind: 'reply', result: askModern(deps!.sealer, t, call.authContext, deps!.now(), timeoutMs, id) }), approval: { channel: 'user', decision: 'requested', id } };
  }
  if (channel === 'user') {
    const id = newUserApprovalId();
    userEvent(deps, 'approval_requested', call, t, id);
    const started = performance.now();
    const answer = await call.ask!('elicitation/create', approvalQuestion(t), timeoutMs);
    const waitedMs = performance.now() - started;
    if (!answer.ok) {
      const error = askFailureError(answer.error);
      userEvent(deps, 'approval_decided', call, t, id, { decision: 'expired', reason: error.kind === 'approval_required' ? error.message : error.kind });
      return { step: err(error), waitedMs };
    }
    const verdict = readAnswer(answer.value);
    const decision = verdict.kind === 'approved' ? 'approved' : 'denied';
    const approval: ApprovalRecord = { channel: 'user', decision, by: call.principal.subject, id };
    userEvent(deps, 'approval_decided', call, t, id, { decision, by: call.principal.subject });
    const step: FlowStep = verdict.kind === 'approved' ? { kind: 'forward', params: call.params } : { kind: 'reply', result: declinedResult(t, verdict.reason) };
    return { step: ok(step), approval, waitedMs };
  }

  const progressToken = isJsonObject(call.params._meta) ? call.params._meta.progressToken : undefined;
  const waitStarted = performance.now();
  let createdId: string | undefined;
  const outcome = await deps!.request(
    {
      principal: { subject: call.principal.subject, authContext: call.authContext, groups: call.principal.groups },
      method: t.method as ApprovalRequest['method'],
      upstream: t.upstream,
      name: t.name,
      upstreamName: t.upstreamName,
      arguments: t.arguments,
      argumentsDigest: argumentsDigest(t.arguments),
      ruleId: t.ruleId,
      channel,
    },
    {
      signal: call.signal,
      timeoutMs,
      // The approval's id goes into the call's audit record and span.
      onCreated: (r) => {
        createdId = r.id;
      },
      // Progress keeps the client's stream alive while a person decides (issue: webhook).
      ...(typeof progressToken === 'string' || typeof progressToken === 'number'
        ? { onWaiting: (ms: number) => call.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: Math.round(ms / 1000), message: `waiting for approval (${channel})` } }) }
        : {}),
    },
  );
  const waitedMs = performance.now() - waitStarted;
  const approval: ApprovalRecord = { channel, decision: outcome.decision, ...(createdId ? { id: createdId } : {}), ...(outcome.by ? { by: outcome.by } : {}) };
  // Nobody was asked: the queue was full. Not a decline, a refusal the caller may retry.
  if (outcome.limit) {
    return {
      step: err({ kind: 'over_capacity', limit: outcome.limit, message: `No approval could be requested for ${t.name}: ${outcome.reason ?? 'too many pending approvals'}; nothing was run. Try again later.`, retryAfterMs: APPROVAL_RETRY_AFTER_MS }),
      approval,
      waitedMs,
    };
  }
  switch (outcome.decision) {
    case 'approved':
      return { step: ok({ kind: 'forward', params: call.params }), approval, waitedMs };
    case 'denied':
      return { step: ok({ kind: 'reply', result: declinedResult(t, outcome.reason ?? `denied by ${outcome.by ?? channel}`) }), approval, waitedMs };
    default:
      return {
        step: err({ kind: 'approval_required', message: `No approval for ${t.name} (${outcome.decision}${outcome.reason ? `: ${outcome.reason}` : ''}); nothing was run.`, data: { rule: decision.ruleId, approver: channel } }),
        approval,
        waitedMs,
      };
  }
}

function userEvent(deps: ApprovalDeps | undefined, name: 'approval_requested' | 'approval_decided', call: Call, t: FlowTarget, id: string, extra: JsonObject = {}): void {
  deps?.event?.(name, {
    id,
    channel: 'user',
    subject: call.principal.subject,
    authContext: call.authContext,
    method: t.method,
    upstream: t.upstream,
    name: t.name,
    ruleId: t.ruleId,
    argumentsDigest: argumentsDigest(t.arguments),
    at: Date.now(),
    ...extra,
  });
}
