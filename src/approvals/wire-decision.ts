// The decision as approvers send it, in a webhook's response, a webhook callback or a console
// click: {"decision": "approve" | "deny", "by"?: string, "reason"?: string, "id"?: string}.
// Parsed once, strictly: anything else is refused, never read as a default (fail closed).
// Pure.
import { err, ok, type Result } from '../protocol/result.ts';

export const WIRE_APPROVE = 'approve';
export const WIRE_DENY = 'deny';
const MAX_TEXT = 200;

export interface WireDecision {
  decision: 'approved' | 'denied';
  by: string | undefined;
  reason: string | undefined;
  /** The approval it names; callbacks must name the one in their URL. */
  id: string | undefined;
}

export function parseWireDecision(body: unknown): Result<WireDecision, string> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return err('expected a JSON object');
  const b = body as Record<string, unknown>;
  const decision = b['decision'] === WIRE_APPROVE ? 'approved' : b['decision'] === WIRE_DENY ? 'denied' : undefined;
  if (decision === undefined) return err(`"decision" must be "${WIRE_APPROVE}" or "${WIRE_DENY}"`);
  const by = text(b['by']);
  const reason = text(b['reason']);
  const id = text(b['id']);
  if (by === null) return err(`"by" must be a string of 1 to ${MAX_TEXT} printable characters`);
  if (reason === null) return err(`"reason" must be a string of 1 to ${MAX_TEXT} printable characters`);
  if (id === null) return err('"id" must be a string');
  return ok({ decision, by, reason, id });
}

/** undefined when absent; null when present but not a short printable string. */
function text(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TEXT) return null;
  // Control characters would let a value forge lines in logs or terminals.
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value) ? null : value;
}
