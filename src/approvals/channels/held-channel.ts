// The channels that hold a call until a person decides (webhook, console), behind one
// interface: the approval service creates the pending approval, asks the channel to announce
// it, and waits for a decision from any replica; the channel says who may decide through it.
// A new channel is one file implementing this and one entry in registry.ts. The calling-user
// channel is not one of these: its question travels in the call's own answer (MRTR or an
// elicitation on the call's stream, approval-flow.ts).
import type { ApprovalRequest } from '../approval.ts';

/** What announcing a request came to: the approver will answer later (through
 * `POST /approvals/{id}` or the console), answered at once, or could not be reached. */
export type ChannelNotice =
  | { kind: 'accepted' }
  | { kind: 'decided'; decision: 'approved' | 'denied'; by?: string; reason?: string }
  | { kind: 'failed'; reason: string };

export type DecisionRefusal = 'self_approval';

export interface HeldChannel {
  readonly name: 'webhook' | 'console';
  /** Tells the channel's approvers that `request` waits; aborted when the wait ends. */
  announce(request: ApprovalRequest, signal: AbortSignal): Promise<ChannelNotice>;
  /** Why `by` may not decide `request` this way, if they may not. */
  refuses(request: ApprovalRequest, decision: 'approved' | 'denied', by: string): DecisionRefusal | undefined;
}
