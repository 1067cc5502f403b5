// The contract between the pipeline and the approval machinery (issue: human approval
// hooks). A rule with effect `approve` names an approver channel; the pipeline asks the
// service for a decision and forwards the call only on `approved`. Everything fails closed.
import type { JsonObject } from '../protocol/message.ts';

export type { ApprovalChannel } from './channels/registry.ts';
import type { ApprovalChannel } from './channels/registry.ts';

export interface ApprovalSubject {
  subject: string;
  authContext: string;
  groups: readonly string[];
}

/** What one approval covers: exactly one call with exactly these arguments, once. */
export interface ApprovalRequest {
  id: string;
  principal: ApprovalSubject;
  method: 'tools/call' | 'prompts/get' | 'resources/read';
  upstream: string;
  /** Exposed name (or URI). */
  name: string;
  upstreamName: string;
  /** Arguments as shown to approvers (possibly redacted). */
  arguments: JsonObject;
  /** sha256 of the canonical JSON of the real arguments: binds the approval to the call. */
  argumentsDigest: string;
  ruleId: string;
  channel: ApprovalChannel;
  createdAt: number;
  expiresAt: number;
}

export type ApprovalDecision = 'approved' | 'denied' | 'expired' | 'cancelled';

export interface ApprovalOutcome {
  decision: ApprovalDecision;
  /** Who decided (approver subject, "webhook", or the calling user). */
  by?: string;
  channel: ApprovalChannel;
  at: number;
  reason?: string;
  /** Set when no approval was requested because a cap was full (approvals.maxPending or
   * maxPendingPerPrincipal): the decision is `denied` (fail closed), the caller may retry. */
  limit?: 'maxPending' | 'maxPendingPerPrincipal';
}
