// What a 2026-07-28 client is handed when a 2025-11-25 upstream asks for input in the middle of
// its call, and what the client's retry must prove (README, Protocol eras: bridging). Pure:
// the suspended call itself lives in suspended-calls.ts.
//
// The client gets an `input_required` result (MCP 2026-07-28, basic/patterns/mrtr) whose
// `inputRequests` are the upstream's requests under keys of ours, and a `requestState` sealed
// with the gateway's state key (AES-256-GCM, approvals/sealed-token.ts). The state is
// attacker-controlled input (mrtr, server rules 2 and 3), so it binds the principal, the
// method, the upstream and name, a digest of the arguments, an expiry, the replica that holds
// the call, the call's handle and the round it answers; each round's state is good once.
import { argumentsDigest, type StateSealer } from '../approvals/user-approval.ts';
import type { ClientAskMethod } from '../protocol/client-ask.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';

/** The methods that may answer `input_required` (MCP 2026-07-28, basic/patterns/mrtr). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Marks the sealed payload as this bridge's: an approval's state never opens as one. */
const KIND = 'upstream-input';

/** What one suspended call is for: who made it, and exactly which call it is. */
export interface SuspensionBinding {
  owner: string;
  method: string;
  upstream: string;
  name: string;
  digest: string;
}

/** The binding of a call in the upstream's own names (what every round's retry must match). */
export function bindingOf(owner: string, method: string, upstream: string, params: JsonObject): SuspensionBinding {
  const name = method === 'resources/read' ? params.uri : params.name;
  const args = method === 'resources/read' ? {} : isJsonObject(params.arguments) ? params.arguments : {};
  return { owner, method, upstream, name: typeof name === 'string' ? name : '', digest: argumentsDigest(args) };
}

export interface SealedRound {
  handle: string;
  round: number;
  replica: string;
  expiresAt: number;
}

export function sealRound(sealer: StateSealer, b: SuspensionBinding, r: SealedRound): string {
  return sealer.seal({ k: KIND, o: b.owner, m: b.method, u: b.upstream, n: b.name, d: b.digest, h: r.handle, g: r.round, p: r.replica, x: r.expiresAt });
}

const MISMATCH: Readonly<Record<string, string>> = {
  o: 'it belongs to another principal',
  m: 'it was issued for another method',
  u: 'it was issued for a call to another upstream',
  n: 'it was issued for a call to another tool, prompt or resource',
  d: 'the arguments changed since it was issued',
};

export const invalidState = (why: string): GatewayError => ({ kind: 'invalid_params', message: `Invalid requestState: ${why}` });

/** Opens a retry's state: the call it names on this replica, or why it names none. */
export function openRound(sealer: StateSealer, token: string, b: SuspensionBinding, replica: string, now: number): Result<{ handle: string; round: number }, GatewayError> {
  const s = sealer.unseal(token);
  if (!s || s.k !== KIND) return err(invalidState('it was not issued by this gateway for a suspended upstream call, or it was altered'));
  const expected: Record<string, string> = { o: b.owner, m: b.method, u: b.upstream, n: b.name, d: b.digest };
  for (const [k, v] of Object.entries(expected)) if (s[k] !== v) return err(invalidState(MISMATCH[k]!));
  if (typeof s.x !== 'number' || now > s.x) return err(invalidState('the upstream call it continues waited too long for this retry and was cancelled; call again without requestState'));
  if (s.p !== replica) {
    return err(invalidState(`the upstream call it continues is held by another Gatehouse replica (${String(s.p)}); route every request of one principal to the same replica (README, Protocol eras: bridging)`));
  }
  if (typeof s.h !== 'string' || typeof s.g !== 'number') return err(invalidState('it is incomplete'));
  return ok({ handle: s.h, round: s.g });
}

/** The upstream's request params as a 2026-07-28 input request: 2025-only fields out (the URL
 * elicitation's `elicitationId`, task augmentation, the request's own `_meta`). */
export function modernInputParams(method: ClientAskMethod, params: JsonObject): JsonObject | undefined {
  const { elicitationId: _id, task: _task, _meta: _meta, ...rest } = params;
  return method === 'roots/list' && Object.keys(rest).length === 0 ? undefined : rest;
}

export interface AskedInput {
  key: string;
  method: ClientAskMethod;
  params: JsonObject;
}

/** The questions as a 2026-07-28 `inputRequests` map (an MRTR result's, or a task's). */
export function inputRequestsOf(asked: readonly AskedInput[]): JsonObject {
  const inputRequests: JsonObject = {};
  for (const a of asked) {
    const params = modernInputParams(a.method, a.params);
    inputRequests[a.key] = params === undefined ? { method: a.method } : { method: a.method, params };
  }
  return inputRequests;
}

export function inputRequiredResult(asked: readonly AskedInput[], requestState: string): JsonObject {
  return { resultType: 'input_required', inputRequests: inputRequestsOf(asked), requestState };
}
