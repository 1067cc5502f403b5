// What the audit sink lost while the disk failed, until the trail can say so: the pending
// gap (records dropped in fail-open mode, refused in fail-closed mode, since when, why), which
// the sink writes as an `audit_gap` event once writing works again (jsonl-sink.ts), and the
// cumulative dropped/rejected counters behind its stats and metrics.
//
// A write given up on at its deadline goes on (Node cannot cancel it) and may land after all.
// Its records were counted as lost, and the gap event it carried was merged back into the
// pending gap; what landed is in the chain, so it comes off the pending gap, whose event then
// counts only records that are really missing. The counters stay: they count what callers
// were told.
import type { Logger } from '../telemetry/logger.ts';
import { AuditUnavailableError, mergeGaps, type AuditGap, type AuditUnavailableReason } from './audit-unavailable.ts';

/** What a write that timed out held: a batch (gap event lines first, then records) or a probe's gap event. */
export interface LateWrite {
  records: number;
  gapLines: number;
  /** The gap its event told of, as counted when it was written. */
  gap: AuditGap | undefined;
  probe: boolean;
}

export interface LossLedgerOptions {
  onFailure: 'open' | 'closed';
  /** Where the audit trail is, for the alarm. */
  dir: string;
  file: string;
}

export class LossLedger {
  readonly counts = { dropped: 0, rejected: 0 };
  #gap: AuditGap | undefined;

  constructor(
    private readonly opts: LossLedgerOptions,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /** The pending gap, if any. */
  get pending(): AuditGap | undefined {
    return this.#gap;
  }

  /** The pending gap for a probe to write, opened now if nothing has been lost yet. */
  pendingFor(reason: AuditUnavailableReason): AuditGap {
    return (this.#gap ??= { since: this.now(), reason, dropped: 0, rejected: 0 });
  }

  /** Hands the pending gap to a batch that will write it first. */
  take(): AuditGap | undefined {
    const gap = this.#gap;
    this.#gap = undefined;
    return gap;
  }

  /** A batch that held `gap` did not write it: it is pending again. */
  putBack(gap: AuditGap): void {
    this.#gap = mergeGaps(gap, this.#gap);
  }

  /** The gap, opened now with an alarm in the log if none is pending. */
  open(reason: AuditUnavailableReason, error?: string): AuditGap {
    if (this.#gap !== undefined) return this.#gap;
    this.#gap = { since: this.now(), reason, dropped: 0, rejected: 0, ...(error === undefined ? {} : { error }) };
    const open = this.opts.onFailure === 'open';
    this.logger.error(
      open ? 'audit: ALARM records are being dropped (onFailure: open)' : 'audit: ALARM refusing calls, audit records cannot be written (onFailure: closed)',
      { reason, error, dir: this.opts.dir, file: this.opts.file },
    );
    return this.#gap;
  }

  /** Counts one lost record into the gap; the error to reject with, if fail-closed. */
  lose(reason: AuditUnavailableReason, error?: string): AuditUnavailableError | undefined {
    const gap = this.open(reason, error);
    if (this.opts.onFailure === 'open') {
      gap.dropped++;
      this.counts.dropped++;
      return undefined;
    }
    gap.rejected++;
    this.counts.rejected++;
    return new AuditUnavailableError(reason, error);
  }

  /** A probe wrote `gap`'s event, which told of `counted`: what was lost since opens the next gap. */
  written(gap: AuditGap, counted: { dropped: number; rejected: number }): void {
    this.recovered(gap);
    const dropped = Math.max(0, gap.dropped - counted.dropped);
    const rejected = Math.max(0, gap.rejected - counted.rejected);
    this.#gap = dropped + rejected === 0 ? undefined : { ...gap, since: this.now(), dropped, rejected };
  }

  /** A late batch wrote `committed` of its lines: those come off the pending gap. Returns the records that landed. */
  landedLate(late: LateWrite, committed: number): number {
    const records = Math.min(late.records, Math.max(0, committed - late.gapLines));
    const pending = this.#gap;
    if (pending === undefined) return records;
    if (late.gap !== undefined && late.gapLines > 0 && committed >= late.gapLines) {
      pending.dropped -= late.gap.dropped;
      pending.rejected -= late.gap.rejected;
    }
    if (this.opts.onFailure === 'open') pending.dropped -= records;
    else pending.rejected -= records;
    pending.dropped = Math.max(0, pending.dropped);
    pending.rejected = Math.max(0, pending.rejected);
    return records;
  }

  recovered(gap: AuditGap): void {
    this.logger.warn('audit: writing again; the gap is recorded as an audit_gap event', {
      reason: gap.reason,
      dropped: gap.dropped,
      rejected: gap.rejected,
      durationMs: this.now() - gap.since,
    });
  }
}
