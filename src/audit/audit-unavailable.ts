// When the audit trail cannot take records: the error fail-closed callers get, and the gap
// that the sink writes into the chain afterwards (an `audit_gap` event), so that a reader of
// the trail sees where and why it is incomplete instead of finding nothing.
import type { EventAuditRecord } from './audit-record.ts';

export type AuditUnavailableReason = 'write_failed' | 'stalled' | 'queue_full' | 'closed';

/** What record() rejects with in fail-closed mode; the pipeline maps it to a refusal. */
export class AuditUnavailableError extends Error {
  override readonly name = 'AuditUnavailableError';
  readonly kind = 'audit_unavailable';
  readonly reason: AuditUnavailableReason;

  constructor(reason: AuditUnavailableReason, detail?: string) {
    super(`the audit trail cannot record (${reason.replace('_', ' ')}${detail === undefined ? '' : `: ${detail}`}); calls are refused until it can`);
    this.reason = reason;
  }
}

/** A period in which records were lost: dropped (fail open) or rejected (fail closed). */
export interface AuditGap {
  /** Milliseconds since the epoch. */
  since: number;
  reason: AuditUnavailableReason;
  /** errno code or message of the first failure. */
  error?: string;
  dropped: number;
  rejected: number;
}

export function gapEvent(gap: AuditGap, nowMs: number): EventAuditRecord {
  const until = new Date(nowMs).toISOString();
  return {
    type: 'event',
    time: until,
    event: 'audit_gap',
    detail: {
      reason: gap.reason,
      ...(gap.error === undefined ? {} : { error: gap.error }),
      since: new Date(gap.since).toISOString(),
      until,
      dropped: gap.dropped,
      rejected: gap.rejected,
    },
  };
}

/** One gap covering both, for a gap event that could not be written before the next began. */
export function mergeGaps(older: AuditGap, newer: AuditGap | undefined): AuditGap {
  if (newer === undefined) return older;
  return { ...older, dropped: older.dropped + newer.dropped, rejected: older.rejected + newer.rejected };
}
