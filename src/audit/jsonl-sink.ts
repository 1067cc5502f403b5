// The default audit sink: hash-chained JSON Lines files (audit-file-writer.ts does the I/O).
// This part decides when records are written and what a caller sees when they cannot be.
//
// Durability. record() resolves only after the line holding its record is written and
// fdatasync'ed, in both modes: a request whose record() resolved has its record on disk before
// the response goes out. One write is in flight at a time; records arriving meanwhile all go
// out in the next write with one fsync, their callers released together once it is on disk
// (group commit; when the next write starts: commit-timer.ts, told how many records are still
// coming from requests under way when the gateway counts them: deps.activeRequests). Strings
// are capped first (cap-strings.ts), so no caller makes a record large.
//
// Bounds. At most maxQueue records and maxQueueBytes bytes wait or are being written (one
// record larger than that still goes alone). At the bound the sink is overloaded: fail closed,
// healthy() is false and new calls are refused (backpressure); records that still arrive are
// handled per onFailure, like a failed write, until the disk catches up.
//
// Failure. A write or fsync error, a write slower than writeTimeout, or a full queue, puts
// the sink in a degraded state handled per onFailure:
//   closed: healthy() is false (the pipeline refuses calls), record() rejects with
//           AuditUnavailableError, until the disk works again;
//   open:   healthy() stays true, record() resolves at once, the record is dropped and
//           counted, and an alarm is logged.
// While writes fail, nothing but a probe touches the disk, every retryInterval; the probe
// writes an `audit_gap` event saying what was lost, so recovery is itself on the record.
// After a full queue, the same event opens the next batch. What was lost, and what a write
// that missed its deadline but landed later takes off it: loss-ledger.ts.
import type { Logger } from '../telemetry/logger.ts';
import type { AuditConfig } from './audit-config.ts';
import type { AuditDirLock } from './audit-dir-lock.ts';
import type { AuditFileWriter, AppendResult, OpenAuditFile } from './audit-file-writer.ts';
import type { AuditRecord, AuditSinkStats, MeasuredAuditTrail } from './audit-record.ts';
import { AuditUnavailableError, gapEvent, type AuditGap, type AuditUnavailableReason } from './audit-unavailable.ts';
import { LossLedger, type LateWrite } from './loss-ledger.ts';
import { canonicalRecord } from './hash-chain.ts';
import { cappedCanonicalRecord } from './cap-strings.ts';
import { CommitTimer } from './commit-timer.ts';
import { TimedAppender } from './timed-append.ts';

export { AuditUnavailableError, type AuditUnavailableReason } from './audit-unavailable.ts';

export type JsonlSinkConfig = Pick<AuditConfig, 'dir' | 'file' | 'rotate' | 'durability' | 'batchWindowMs' | 'writeTimeoutMs' | 'retryIntervalMs' | 'onFailure' | 'maxQueue' | 'maxStringBytes'> &
  Partial<Pick<AuditConfig, 'groupCommitWaitMs' | 'maxQueueBytes'>>;

export interface JsonlSinkDeps {
  logger: Logger;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  /** Opens the audit file for appending (audit-file-writer.ts); node:fs/promises by default. */
  openFile?: OpenAuditFile;
  /** Requests being answered now, each recording when it ends; less the records queued: those still coming. */
  activeRequests?: () => number;
}

// The promise's own resolve and reject, not a closure per record.
interface Pending {
  canonical: string;
  bytes: number;
  at: number;
  resolve(): void;
  reject(error: Error): void;
}

export class JsonlAuditSink implements MeasuredAuditTrail {
  #config: JsonlSinkConfig;
  #writer: AuditFileWriter;
  #appender: TimedAppender;
  #logger: Logger;
  #now: () => number;
  #queue: Pending[] = [];
  #inFlight: Pending[] = [];
  /** UTF-8 bytes of the records waiting and being written. */
  #bytes = 0;
  readonly #maxQueueBytes: number;
  #flushing: Promise<void> | undefined;
  #timer: CommitTimer;
  #probeTimer: NodeJS.Timeout | undefined;
  #failure: { reason: AuditUnavailableReason; error: string } | undefined;
  #losses: LossLedger;
  #closed: Promise<void> | undefined;
  #counts = { written: 0, flushes: 0, writeErrors: 0, cut: 0 };
  /** What the write that timed out held, until it settles. */
  #late: LateWrite | undefined;
  #lock: AuditDirLock | undefined;

  constructor(config: JsonlSinkConfig, writer: AuditFileWriter, logger: Logger, now: () => number, lock?: AuditDirLock, activeRequests?: () => number) {
    this.#lock = lock;
    this.#config = config;
    this.#writer = writer;
    this.#appender = new TimedAppender(writer, config.writeTimeoutMs, (late) => this.#landedLate(late));
    this.#logger = logger;
    this.#now = now;
    this.#losses = new LossLedger({ onFailure: config.onFailure, dir: config.dir, file: config.file }, logger, now);
    this.#maxQueueBytes = config.maxQueueBytes ?? Infinity;
    const timing = { durability: config.durability, batchWindowMs: config.batchWindowMs, groupCommitWaitMs: config.groupCommitWaitMs ?? 0 };
    const write = (): void => void this.#flush().catch(this.#flushFailed);
    this.#timer = new CommitTimer(timing, activeRequests === undefined ? { write } : { write, coming: () => Math.max(0, activeRequests() - this.#depth()) });
  }

  record(rec: AuditRecord): Promise<void> {
    if (this.#closed !== undefined) return Promise.reject(new AuditUnavailableError('closed'));
    let canonical: string;
    try {
      const line = cappedCanonicalRecord(rec, this.#config.maxStringBytes);
      if (line.cut) this.#counts.cut++;
      canonical = line.text;
    } catch (e) {
      return Promise.reject(e as Error);
    }
    if (this.#failure !== undefined) return this.#refuse(this.#failure.reason, this.#failure.error);
    const bytes = Buffer.byteLength(canonical, 'utf8');
    if (this.#depth() >= this.#config.maxQueue || (this.#bytes > 0 && this.#bytes + bytes > this.#maxQueueBytes)) return this.#refuse('queue_full');
    this.#bytes += bytes;
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ canonical, bytes, at: this.#now(), resolve, reject });
      this.#schedule(0);
    });
  }

  healthy(): boolean {
    if (this.#closed !== undefined) return false;
    // Fail-open keeps serving whatever the disk does; stats() tells the truth.
    if (this.#config.onFailure === 'open') return true;
    return this.#failure === undefined && !this.#full();
  }

  stats(): AuditSinkStats {
    const oldest = this.#inFlight[0] ?? this.#queue[0];
    const state = this.#closed !== undefined ? 'closed' : this.#failure !== undefined ? 'failing' : this.#full() ? 'overloaded' : 'ok';
    return {
      state,
      ...this.#counts,
      ...this.#losses.counts,
      queueDepth: this.#depth(),
      queueBytes: this.#bytes,
      commitWaits: this.#timer.waits,
      lagMs: oldest === undefined ? 0 : Math.max(0, this.#now() - oldest.at),
      lastSeq: this.#writer.head().seq,
      rotations: this.#writer.rotations(),
      ...this.#writer.retention(),
      ...this.#writer.io(),
    };
  }

  /** Writes what is waiting (unless the disk is failing), then closes the file. */
  close(): Promise<void> {
    this.#closed ??= this.#drainAndClose();
    return this.#closed;
  }

  async #drainAndClose(): Promise<void> {
    this.#timer.cancel();
    clearTimeout(this.#probeTimer);
    this.#probeTimer = undefined;
    for (;;) {
      if (this.#flushing !== undefined) await this.#flushing;
      else if (this.#queue.length > 0 && this.#failure === undefined) await this.#flush();
      else break;
    }
    // Only records of a failing sink can be left, and those were already given up.
    this.#failAll(this.#queue.splice(0));
    // A stalled disk must not hold shutdown forever.
    if (!(await this.#appender.close())) this.#logger.error('audit: closing the audit file timed out; a write is stalled', { file: this.#config.file });
    await this.#lock?.release();
  }

  #depth(): number {
    return this.#queue.length + this.#inFlight.length;
  }

  #full(): boolean {
    return this.#depth() >= this.#config.maxQueue || this.#bytes >= this.#maxQueueBytes;
  }

  /** `followers`: records that arrived while the previous write was in flight. */
  #schedule(followers: number): void {
    if (this.#flushing !== undefined || this.#closed !== undefined) return;
    const now = this.#now();
    this.#timer.schedule(this.#queue[0]?.at ?? now, now, followers);
  }

  /** #flushNow reports write errors as results; what it throws is a bug, and the records it held fail as a failed write fails them. */
  #flushFailed = (e: unknown): void => {
    this.#logger.error('audit: writing a batch failed', { error: e as Error });
    this.#enterFailure('write_failed', e instanceof Error ? e : new Error(String(e)));
    this.#failAll([...this.#inFlight.splice(0), ...this.#queue.splice(0)]);
  };

  #flush(): Promise<void> {
    if (this.#flushing !== undefined || this.#queue.length === 0 || this.#failure !== undefined) return this.#flushing ?? Promise.resolve();
    this.#flushing = this.#flushNow().finally(() => {
      this.#flushing = undefined;
      // Everything waiting now arrived during that write.
      if (this.#queue.length > 0 && this.#failure === undefined) this.#schedule(this.#queue.length);
    });
    return this.#flushing;
  }

  async #flushNow(): Promise<void> {
    const batch = this.#queue.splice(0);
    this.#inFlight = batch;
    const gap = this.#losses.take();
    const lines = batch.map((p) => p.canonical);
    if (gap !== undefined) lines.unshift(canonicalRecord(gapEvent(gap, this.#now())));
    const gapLines = lines.length - batch.length;
    const result = await this.#appender.append(lines);
    if (result.timedOut === true) this.#late = { records: batch.length, gapLines, gap, probe: false };
    if (gap !== undefined && result.committed === 0) this.#losses.putBack(gap);
    else if (gap !== undefined) this.#losses.recovered(gap);
    if (result.committed > 0) this.#counts.flushes++;
    const landed = Math.max(0, result.committed - gapLines);
    this.#counts.written += result.committed;
    for (let i = 0; i < landed; i++) {
      this.#bytes -= batch[i]!.bytes;
      batch[i]!.resolve();
    }
    this.#inFlight = [];
    if (result.error !== undefined) {
      this.#enterFailure(result.timedOut === true ? 'stalled' : 'write_failed', result.error);
      this.#failAll([...batch.slice(landed), ...this.#queue.splice(0)]);
    }
  }

  /** A write given up on at its deadline settled after all (loss-ledger.ts). */
  #landedLate(late: AppendResult): void {
    const batch = this.#late;
    this.#late = undefined;
    this.#counts.written += late.committed;
    if (late.committed > 0) this.#counts.flushes++;
    const pending = this.#losses.pending;
    // A probe's gap event that landed is a probe that worked: the failure ends as it would have.
    if (batch?.probe === true && late.committed === 1 && pending !== undefined && this.#failure !== undefined) {
      this.#logger.warn('audit: a stalled probe completed late; the disk is writing again', {});
      return this.#probeLanded(pending, { dropped: batch.gap?.dropped ?? 0, rejected: batch.gap?.rejected ?? 0 });
    }
    const records = batch === undefined ? 0 : this.#losses.landedLate(batch, late.committed);
    this.#logger.warn('audit: a stalled write completed late; what it holds is in the chain after all', { committed: late.committed, records, error: late.error });
  }

  #enterFailure(reason: AuditUnavailableReason, error: Error): void {
    this.#counts.writeErrors++;
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    if (this.#failure === undefined) {
      this.#failure = { reason, error: code };
      this.#losses.open(reason, code);
    }
    this.#scheduleProbe();
  }

  #scheduleProbe(): void {
    if (this.#closed !== undefined) return;
    const retry = (e: unknown): void => { this.#logger.error('audit: probing the disk failed', { error: e as Error }); this.#scheduleProbe(); };
    this.#probeTimer = setTimeout(() => void this.#probe().catch(retry), this.#config.retryIntervalMs);
    // A failing audit disk must not keep a process alive that is otherwise done.
    this.#probeTimer.unref();
  }

  /** While failing: try to write the gap event; success ends the failure. */
  async #probe(): Promise<void> {
    this.#probeTimer = undefined;
    if (this.#closed !== undefined || this.#failure === undefined) return;
    const gap = this.#losses.pendingFor(this.#failure.reason);
    // A stalled write still holds the file: probing behind it would only queue more writes.
    if (this.#appender.busy()) return this.#scheduleProbe();
    const counted = { dropped: gap.dropped, rejected: gap.rejected };
    const result = await this.#appender.append([canonicalRecord(gapEvent(gap, this.#now()))]);
    if (result.committed !== 1) {
      if (result.timedOut === true) this.#late = { records: 0, gapLines: 1, gap: { ...gap, ...counted }, probe: true };
      this.#logger.debug('audit: still failing', { error: result.error });
      return this.#enterFailure(result.timedOut === true ? 'stalled' : 'write_failed', result.error ?? new Error('nothing written'));
    }
    this.#counts.written++;
    this.#counts.flushes++;
    this.#probeLanded(gap, counted);
  }

  /** A probe's gap event is on disk: the failure is over, and that event told of `counted`. */
  #probeLanded(gap: AuditGap, counted: { dropped: number; rejected: number }): void {
    this.#failure = undefined;
    clearTimeout(this.#probeTimer);
    this.#probeTimer = undefined;
    // Records lost while the probe was writing go into the next gap event.
    this.#losses.written(gap, counted);
    if (this.#queue.length > 0) this.#schedule(0);
  }

  #refuse(reason: AuditUnavailableReason, error?: string): Promise<void> {
    const refusal = this.#losses.lose(reason, error);
    return refusal === undefined ? Promise.resolve() : Promise.reject(refusal);
  }

  /** Gives up on records, per onFailure: dropped (settled fine) or rejected. */
  #failAll(pending: Pending[]): void {
    for (const p of pending) {
      this.#bytes -= p.bytes;
      const refusal = this.#losses.lose(this.#failure?.reason ?? 'write_failed', this.#failure?.error);
      if (refusal === undefined) p.resolve();
      else p.reject(refusal);
    }
  }
}
