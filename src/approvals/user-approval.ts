// The "user" approval channel: the calling user approves through their own client.
// Modern clients (2026-07-28) that declared elicitation get an MRTR `input_required` result
// with a form elicitation and a sealed `requestState`; the retry is verified — integrity,
// principal, the exact call (method, name, upstream, argument digest), expiry, single use —
// before anything is forwarded (MCP 2026-07-28, basic/patterns/mrtr (server rules) rules 2 and 3). Legacy clients (2025-11-25) that
// declared elicitation are asked with an `elicitation/create` request on the call's own
// SSE stream. Nothing reaches the upstream before "approve".
import { createHash, randomBytes } from 'node:crypto';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { canonicalJson } from '../audit/canonical-json.ts';

export const APPROVAL_INPUT_KEY = 'io.gatehouse/approval';

export interface StateSealer {
  seal(payload: JsonObject): string;
  unseal(token: string): JsonObject | undefined;
  /** True the first time a key is seen (across replicas when the store is shared). */
  consumeOnce(key: string, ttlMs: number): Promise<boolean>;
}

export interface ApprovalTarget {
  method: string;
  upstream: string;
  name: string;
  arguments: JsonObject;
  ruleId: string;
}

export type RetryVerdict = { kind: 'approved'; upstreamState?: string; id?: string } | { kind: 'declined'; reason: string; id?: string };

const MAX_SHOWN_ARGUMENTS = 4000;

/** Unguessable id of one user approval: the single-use nonce in its sealed state, and the id
 * its audit events and the call's record carry. */
export function newUserApprovalId(): string {
  return randomBytes(12).toString('base64url');
}

export function argumentsDigest(args: JsonObject): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

/** Can this request's client be asked? Form mode, explicitly or as the `{}` default (MCP 2026-07-28, basic/patterns/mrtr (client rules) rule 5). */
export function canElicitForm(caps: JsonObject): boolean {
  const e = caps.elicitation;
  if (!isJsonObject(e)) return false;
  return Object.keys(e).length === 0 || isJsonObject(e.form);
}

export function approvalQuestion(t: ApprovalTarget): JsonObject {
  let shown = JSON.stringify(t.arguments, null, 2);
  if (shown.length > MAX_SHOWN_ARGUMENTS) shown = `${shown.slice(0, MAX_SHOWN_ARGUMENTS)}\n… (${shown.length} characters in all)`;
  return {
    mode: 'form',
    message: `Approve this call?\n\nUpstream: ${t.upstream}\nTool: ${t.name}\nArguments:\n${shown}\n\nNothing runs unless you approve. (policy rule ${t.ruleId})`,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: { type: 'string', title: 'Decision', enum: ['approve', 'decline'], description: 'approve runs the call once, with exactly these arguments' },
      },
      required: ['decision'],
    },
  };
}

/** What a sealed state is good for: this principal, this exact call, under this policy rule
 * (an approval given under one rule does not carry over to a rule that replaced it). */
function binding(t: ApprovalTarget, authContext: string): JsonObject {
  return { o: authContext, m: t.method, u: t.upstream, n: t.name, d: argumentsDigest(t.arguments), r: t.ruleId };
}

const MISMATCH: Readonly<Record<string, string>> = { o: 'it belongs to another principal', d: 'the arguments changed', r: 'the policy rule it was issued under no longer applies; call again' };

/** The MRTR interim result that asks the user. */
export function askModern(sealer: StateSealer, t: ApprovalTarget, authContext: string, now: number, timeoutMs: number, id: string = newUserApprovalId()): JsonObject {
  const state = sealer.seal({ k: 'ask', ...binding(t, authContext), x: now + timeoutMs, j: id });
  return {
    resultType: 'input_required',
    inputRequests: { [APPROVAL_INPUT_KEY]: { method: 'elicitation/create', params: approvalQuestion(t) } },
    requestState: state,
  };
}

/** After approval, an upstream's own input_required keeps the approval for its retries. */
export function continuationState(sealer: StateSealer, t: ApprovalTarget, authContext: string, now: number, timeoutMs: number, upstreamState: JsonValue | undefined): string {
  return sealer.seal({
    k: 'cont',
    ...binding(t, authContext),
    x: now + timeoutMs,
    j: randomBytes(12).toString('base64url'),
    ...(typeof upstreamState === 'string' ? { s: upstreamState } : {}),
  });
}

const invalid = (why: string): GatewayError => ({ kind: 'invalid_params', message: `Invalid requestState: ${why}` });

/** Verifies a modern retry's requestState and reads the user's answer. `userMayApprove`: the
 * rule in force now names the calling user as approver or fallback; when it does not, the
 * user's own answer to an earlier question approves nothing. */
export async function verifyModernRetry(
  sealer: StateSealer,
  t: ApprovalTarget,
  authContext: string,
  requestState: string,
  inputResponses: JsonValue | undefined,
  now: number,
  userMayApprove = true,
): Promise<Result<RetryVerdict, GatewayError>> {
  const s = sealer.unseal(requestState);
  if (!s) return err(invalid('it was not issued by this gateway or was altered'));
  const expected = binding(t, authContext);
  for (const [k, v] of Object.entries(expected)) {
    if (s[k] !== v) return err(invalid(MISMATCH[k] ?? 'it was issued for another call'));
  }
  if (s.k === 'ask' && !userMayApprove) return err(invalid(MISMATCH.r!));
  if (typeof s.x !== 'number' || now > s.x) return err(invalid('it has expired; call again to be asked again'));
  if (typeof s.j !== 'string' || !(await sealer.consumeOnce(`approval-state:${s.j}`, Math.max(1, s.x - now) + 60_000))) {
    return err(invalid('it was already used; an approval covers one call, once'));
  }
  if (s.k === 'cont') return ok({ kind: 'approved', ...(typeof s.s === 'string' ? { upstreamState: s.s } : {}) });
  if (s.k !== 'ask') return err(invalid('unknown kind'));
  const answer = isJsonObject(inputResponses) ? inputResponses[APPROVAL_INPUT_KEY] : undefined;
  return ok({ ...readAnswer(answer), id: s.j });
}

/** An ElicitResult (modern inputResponses entry or legacy elicitation/create result). */
export function readAnswer(answer: JsonValue | undefined): RetryVerdict {
  if (!isJsonObject(answer)) return { kind: 'declined', reason: 'no answer was given' };
  if (answer.action !== 'accept') return { kind: 'declined', reason: `the user chose ${typeof answer.action === 'string' ? answer.action : 'nothing'}` };
  const content = isJsonObject(answer.content) ? answer.content : {};
  return content.decision === 'approve' ? { kind: 'approved' } : { kind: 'declined', reason: 'the user declined' };
}

export function declinedResult(t: ApprovalTarget, reason: string): JsonObject {
  return { content: [{ type: 'text', text: `Not run: approval for ${t.name} was declined (${reason}). Nothing was sent to ${t.upstream}.` }], isError: true };
}

/** The params to forward once approved: our own input and state removed, the upstream's kept. */
export function forwardedParams(params: JsonObject, upstreamState: string | undefined): JsonObject {
  const { requestState: _s, inputResponses, ...rest } = params;
  const out: JsonObject = { ...rest };
  if (isJsonObject(inputResponses)) {
    const { [APPROVAL_INPUT_KEY]: _ours, ...theirs } = inputResponses;
    if (Object.keys(theirs).length > 0) out.inputResponses = theirs;
  }
  if (upstreamState !== undefined) out.requestState = upstreamState;
  return out;
}
