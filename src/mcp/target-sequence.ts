// The one sequence every target method runs (docs/architecture.md §4, MCP ring): resolve the
// exposed name -> judge it (policy with pins and rate limits, or visibility alone) -> check
// (headers, arguments) -> approval -> send upstream -> rewrite the reply -> shape a tool's
// result (result-shaping/, when configured). tools/call,
// prompts/get, resources/read and completion/complete differ only in the data their
// resolvers (targets.ts) return. Each stage returns what it decided, and the CallRecord that
// audit, metrics and spans read is assembled here from those returns.
import { continuationState } from '../approvals/user-approval.ts';
import { runApproval, type ApprovalDeps, type FlowStep } from '../approvals/approval-flow.ts';
import type { ApprovalRecord, Call, CallRecord, Handled, RecordedEffect, Reply } from '../protocol/call.ts';
import { HEADER_MISMATCH, INTERNAL_ERROR, type GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { HeaderParamValue } from '../headers/param-headers.ts';
import type { ItemOrigin } from '../catalog/merge.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import type { CallTarget, Enforcer } from '../policy/enforcer.ts';
import type { Decision } from '../policy/decision.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { ResultShaper } from '../result-shaping/result-shaper.ts';
import type { ShapingRecord } from '../result-shaping/shape-result.ts';
import { isJsonObject } from '../protocol/message.ts';
import { sendUpstream, type SendDeps } from './send-upstream.ts';
import { credentialKind, type CredentialKind } from '../upstream/credential-kind.ts';
import { relayFor, type RelayContext } from './relay-decision.ts';

/** What a resolver found: the target as policy sees it, and how to reach and answer it. */
export interface Resolved {
  target: CallTarget;
  upstream: Upstream;
  /** `call`: the policy decides (pins, rate limits, approval); `visibility`: the caller need
   * only be able to see the listed item (completion, which runs nothing). */
  judge: 'call' | 'visibility';
  /** The item as listed, for visibility: required by `visibility` and by `precheck`. */
  listed?: { list: ListKind; item: JsonObject; origin: ItemOrigin };
  /** A check that runs before the decision because its error must come first (a 2026-07-28
   * header mismatch is -32020 whatever policy says); to a caller who may not see the
   * target, its failure answers as `unknown`, so it reveals nothing. */
  precheck?: GatewayError;
  /** The answer when the caller may not see it: exactly that of a name that does not exist. */
  unknown: GatewayError;
  /** Decoded Mcp-Param-* values, for the record. */
  paramValues?: Readonly<Record<string, HeaderParamValue>>;
  /** An overlay filled these arguments in: the record then holds the target's arguments (what
   * the upstream is sent), not the request's. */
  filled?: Readonly<Record<string, 'fixed' | 'default'>>;
  /** Checks after the decision (so a hidden target never answers "invalid") and before any
   * approval (so nobody approves a call that cannot run): headers, arguments. */
  check?: () => GatewayError | undefined;
  /** The upstream's params from the client's (or the approved) ones: its own names. */
  upstreamParams(base: JsonObject): JsonObject;
  /** Mcp-Param-* headers for the upstream, from its own schema. */
  upstreamHeaders?: () => Result<Record<string, string>, GatewayError>;
  rewrite?: (reply: Reply) => Reply;
  /** false: `rewrite` does not read a result (no output validation, no output note), so it may
   * be relayed unread (relay-decision.ts); unset: it does. */
  readsResult?: boolean;
  /** Resolves again after the upstream refused the gateway's Mcp-* headers (its schema
   * changed under us: MCP 2026-07-28, custom headers from tool parameters). */
  refresh?: () => Promise<Resolved | undefined>;
}

export interface SequenceDeps extends SendDeps {
  enforcer: Enforcer;
  logger: Logger;
  /** Unset: rules with effect approve get a clear "approval required" error. */
  approvals?: ApprovalDeps;
  /** Unset: tool results pass as the upstream sent them. */
  shaper?: ResultShaper;
  /** The audit trail records this tool's result; unset: no result is recorded. */
  auditReadsResult?: (name: string) => boolean;
}

/** A CallRecord while this call's sequence makes it; handed on only once done. */
type RecordBeingMade = { -readonly [K in keyof CallRecord]: CallRecord[K] };

const HIDDEN = Object.freeze({ effect: 'hidden' as const, ruleId: 'visibility', reason: 'not visible to the caller' });

/** The decision as the record names it. */
function recorded(d: Decision): { effect: RecordedEffect; ruleId: string; reason?: string } {
  if (d.ruleId === 'quarantine') return { effect: 'quarantined', ruleId: d.ruleId, reason: d.reason };
  return { effect: d.effect, ruleId: d.ruleId, reason: d.reason };
}

/** The answer to a caller who may not see the target: that of a name that does not exist. */
function hidden(r: Resolved, base: RecordBeingMade): Handled {
  return { reply: err(r.unknown), record: { ...base, decision: HIDDEN } };
}

function visibleTo(enforcer: Enforcer, call: Call, r: Resolved): boolean {
  return r.listed === undefined || enforcer.visible(call.principal, r.listed.list, r.listed.item, r.listed.origin);
}

/** What the sends of one call share: its inputs, and the upstream time and credential kind found. */
interface Sending {
  readonly call: Call;
  /** The target as first resolved (an approval kept across the upstream's input_required names it). */
  readonly target: CallTarget;
  readonly step: FlowStep | undefined;
  readonly params: JsonObject;
  readonly ruleId: string;
  upstreamMs: number;
  credential: CredentialKind | undefined;
}

export function createTargetSequence(deps: SequenceDeps): (call: Call, resolve: (call: Call) => Result<Resolved, GatewayError> | Promise<Result<Resolved, GatewayError>>) => Promise<Handled> {
  const { enforcer, logger } = deps;
  const relayContext: RelayContext = { shaping: deps.shaper !== undefined, auditReadsResult: deps.auditReadsResult ?? (() => false) };

  /** After an approved call, an upstream's own input_required keeps the approval for its
   * retries; our sealed state wraps the upstream's. */
  const keepApproval = (call: Call, step: FlowStep | undefined, reply: Reply, t: CallTarget, ruleId: string): Reply => {
    if (!step || !deps.approvals || call.era !== 'modern' || !reply.ok || reply.value.resultType !== 'input_required') return reply;
    const a = deps.approvals;
    const target = { method: call.method, upstream: t.upstream, name: t.name, arguments: t.arguments ?? {}, ruleId };
    return ok({ ...reply.value, requestState: continuationState(a.sealer, target, call.authContext, a.now(), a.defaultTimeoutMs, reply.value.requestState) });
  };

  /** One send of the call to a resolved target, its time and credential kept in `s`: a
   * function of the sequence, not a closure made per call. */
  const sendResolved = async (s: Sending, res: Resolved): Promise<Reply> => {
    const headers = res.upstreamHeaders?.();
    if (headers && !headers.ok) return headers;
    const call = s.call;
    s.credential = credentialKind(res.upstream.config);
    const relay = relayFor(call, { name: res.target.name, readsResult: res.readsResult }, s.step !== undefined, relayContext);
    const sent = await sendUpstream(deps, call, res.upstream, res.upstreamParams(s.params), headers?.value, relay);
    s.upstreamMs += sent.ms;
    const reply = keepApproval(call, s.step, sent.reply, s.target, s.ruleId);
    return res.rewrite ? res.rewrite(reply) : reply;
  };

  return async (call, resolve) => {
    const resolving = resolve(call);
    const found = resolving instanceof Promise ? await resolving : resolving;
    if (!found.ok) return { reply: found, record: {} };
    let r = found.value;
    const t = r.target;
    // The call's record, filled in as the stages return (plain assignments: cheaper than spreads).
    const base: RecordBeingMade = { target: { upstream: t.upstream, name: t.name, upstreamName: t.upstreamName } };
    if (r.paramValues) base.paramValues = r.paramValues;
    if (r.filled) {
      base.arguments = t.arguments ?? {};
      base.filledArguments = r.filled;
    }

    if (r.precheck) return visibleTo(enforcer, call, r) ? { reply: err(r.precheck), record: base } : hidden(r, base);

    // Judge.
    let decision: Decision | undefined;
    if (r.judge === 'visibility') {
      if (!visibleTo(enforcer, call, r)) return hidden(r, base);
    } else {
      // Synchronous unless a rate limit needs the shared store: no await on the common path.
      const gated = enforcer.gate(call.principal, t);
      const g = gated instanceof Promise ? await gated : gated;
      if (!g.ok) {
        const e = g.error;
        const effect: RecordedEffect = e.kind === 'rate_limited' ? 'rate_limited' : 'unchecked';
        return { reply: g, record: { ...base, decision: { effect, ruleId: e.kind === 'rate_limited' ? e.ruleId : 'rate-limiter', reason: e.kind } } };
      }
      decision = g.value;
      if (decision.effect === 'deny') return { reply: err(r.unknown), record: { ...base, decision: recorded(decision) } };
    }
    const judged = base;
    if (decision) judged.decision = recorded(decision);

    // Check.
    const invalid = r.check?.();
    if (invalid) return { reply: err(invalid), record: judged };

    // Approve.
    let step: FlowStep | undefined;
    let approval: ApprovalRecord | undefined;
    let approvalWaitMs: number | undefined;
    if (decision?.effect === 'approve') {
      const run = await runApproval(deps.approvals, call, decision, { method: call.method, upstream: t.upstream, name: t.name, upstreamName: t.upstreamName, arguments: t.arguments ?? {}, ruleId: decision.ruleId });
      approval = run.approval;
      approvalWaitMs = run.waitedMs;
      if (approval) judged.approval = approval;
      if (approvalWaitMs !== undefined) judged.approvalWaitMs = approvalWaitMs;
      if (!run.step.ok) return { reply: run.step, record: judged };
      step = run.step.value;
      if (step.kind === 'reply') return { reply: ok(step.result), record: judged };
    }
    const params = step?.kind === 'forward' ? step.params : call.params;
    const ruleId = decision?.ruleId ?? '';

    // Send (and once more after a header refusal from an upstream whose schema changed).
    const sending: Sending = { call, target: t, step, params, ruleId, upstreamMs: 0, credential: undefined };
    let reply = await sendResolved(sending, r);
    if (!reply.ok && r.refresh && reply.error.kind === 'upstream_error' && reply.error.error.code === HEADER_MISMATCH) {
      logger.info('upstream rejected Mcp-* headers; refreshing its tools and retrying once', { upstream: r.upstream.name, tool: t.upstreamName });
      const fresh = await r.refresh();
      if (!fresh) reply = err(r.unknown);
      else {
        r = fresh;
        reply = await sendResolved(sending, fresh);
        if (!reply.ok && reply.error.kind === 'upstream_error' && reply.error.error.code === HEADER_MISMATCH) {
          // Not the client's fault: its headers were checked. Do not hand it a -32020 to chase.
          const name = fresh.upstream.name;
          reply = err({ kind: 'upstream_error', upstream: name, error: { code: INTERNAL_ERROR, message: `Upstream "${name}" rejected the gateway's request headers: ${reply.error.error.message}` } });
        }
      }
    }
    // Shape, last: output validation (in rewrite) has seen the whole result.
    let shaping: ShapingRecord | undefined;
    if (deps.shaper && r.target.kind === 'tool') {
      const item = r.target.item;
      const shaped = deps.shaper.shape(reply, { tool: t.name, upstream: t.upstream, outputSchema: item && isJsonObject(item.outputSchema) ? item.outputSchema : undefined, owner: call.authContext });
      reply = shaped.reply;
      shaping = shaped.record;
    }
    judged.upstreamMs = sending.upstreamMs;
    const credential = sending.credential;
    if (credential !== undefined && credential !== 'none') judged.credential = credential;
    if (shaping) judged.shaping = shaping;
    return { reply, record: judged };
  };
}
