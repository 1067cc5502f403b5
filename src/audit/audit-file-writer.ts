// The I/O half of the sink: appends chained lines to the current audit file, fsyncs, rotates
// and prunes, and resumes the chain from disk at startup. It owns the chain head, which moves
// only after the lines before it are on disk, so a failed write leaves the chain where the
// disk left it. The sink above decides when to write and what failure means for callers.
//
// Startup: audit-resume.ts. Rotation: each new file opens with an `audit_rotated` event, and
// rotated files beyond rotate.maxFiles are deleted only once that event is on disk
// (audit-retention.ts). After a failed write
// the file is reopened on the next attempt and, if it is still the same file, truncated back
// to the last acknowledged byte, so a half-written batch never stays in the chain. A file
// that was replaced meanwhile (an operator freeing a disk) continues the in-memory chain.
// One writer per directory: two gateways appending to the same file would fork the chain.
//
// Cost. A batch is one write(2) of all its lines, then one fdatasync. (Opening the file
// with O_DSYNC instead, one system call per batch, measured no faster here, and proves
// nothing for a path that is not a regular file.) io() counts both, so tests can hold a
// batch to one of each.
import { constants } from 'node:fs';
import { lstat, open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../telemetry/logger.ts';
import { rotatedFileName } from './audit-files.ts';
import { applyPrune, planPrune, rotatedEvent } from './audit-retention.ts';
import { resumeChain } from './audit-resume.ts';
import { canonicalRecord, chainLine, type ChainHead } from './hash-chain.ts';

export interface AuditFileOptions {
  /** Absolute directory. */
  dir: string;
  file: string;
  maxBytes: number;
  /** Rotated files kept; 0 keeps all. */
  maxFiles: number;
  /** Milliseconds since the epoch, for the time of `audit_rotated` events; Date.now by default. */
  now?: () => number;
  /** Opens the audit file for appending; node:fs/promises `open` by default (tests wrap it to
   * count or fail writes and syncs). */
  openFile?: OpenAuditFile;
}

/** What the writer does with an open audit file. */
export type AuditFileHandle = Pick<FileHandle, 'write' | 'datasync' | 'stat' | 'truncate' | 'close'>;
export type OpenAuditFile = (file: string, flags: number) => Promise<AuditFileHandle>;

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

/** System calls spent on appends: write(2) calls, and durability barriers (fdatasync
 * an fdatasync). A batch that fits the current file costs one of each. */
export interface AppendIo {
  writes: number;
  syncs: number;
}

/** How many of the lines given are on disk (in order), and why the rest are not. */
export interface AppendResult {
  committed: number;
  /** Lines the writer added itself and made durable: `audit_rotated` events. */
  extra?: number;
  error?: Error;
}

/** What rotation did so far, for metrics: files deleted by the budget, and where the history
 * kept on disk starts (the first record time of the oldest file kept). */
export interface RetentionStats {
  filesDeleted: number;
  retainedSince?: string;
}

export class AuditFileWriter {
  readonly path: string;
  #options: AuditFileOptions;
  #logger: Logger;
  #head: ChainHead;
  #handle: AuditFileHandle | undefined;
  #identity: { dev: number; ino: number } | undefined;
  /** Acknowledged bytes of the current file. */
  #size = 0;
  /** seq of the current file's first line: its name once rotated. */
  #firstSeq: number;
  #lock: Promise<unknown> = Promise.resolve();
  #rotations = 0;
  #io: AppendIo = { writes: 0, syncs: 0 };
  #extra = 0;
  #retention: RetentionStats = { filesDeleted: 0 };

  private constructor(options: AuditFileOptions, logger: Logger, head: ChainHead, firstSeq: number) {
    this.#options = options;
    this.#logger = logger;
    this.path = path.join(options.dir, options.file);
    this.#head = head;
    this.#firstSeq = firstSeq;
  }

  /** Reads where the chain stands on disk (audit-resume.ts). Throws (at boot) if the chain
   * cannot be resumed. */
  static async open(options: AuditFileOptions, logger: Logger): Promise<AuditFileWriter> {
    const at = await resumeChain(options.dir, options.file, logger);
    const writer = new AuditFileWriter(options, logger, at.head, at.firstSeq);
    if (at.retainedSince !== undefined) writer.#retention.retainedSince = at.retainedSince;
    return writer;
  }

  /** The last acknowledged line. */
  head(): ChainHead {
    return this.#head;
  }

  rotations(): number {
    return this.#rotations;
  }

  io(): AppendIo {
    return { ...this.#io };
  }

  retention(): RetentionStats {
    return { ...this.#retention };
  }

  /** Chains, writes and fsyncs `canonicals` (from canonicalRecord); serialized. */
  append(canonicals: readonly string[]): Promise<AppendResult> {
    const run = this.#lock.then(() => this.#appendNow(canonicals));
    this.#lock = run;
    return run;
  }

  async close(): Promise<void> {
    await this.#lock;
    await this.#dropHandle();
  }

  async #appendNow(canonicals: readonly string[]): Promise<AppendResult> {
    let committed = 0;
    try {
      await this.#ensureOpen();
      let head = this.#head;
      // One string for the whole batch, converted to bytes once: the write is one system call.
      let pending = '';
      let pendingLines = 0;
      let pendingBytes = 0;
      for (const canonical of canonicals) {
        let chained = chainLine(head, canonical);
        let text = `${chained.line}\n`;
        let bytes = Buffer.byteLength(text);
        // A line larger than maxBytes still goes into a file of its own (after its rotation event).
        const size = this.#size + pendingBytes;
        if (size > 0 && size + bytes > this.#options.maxBytes) {
          if (pendingLines > 0) {
            await this.#write(pending, pendingBytes);
            committed += pendingLines;
            this.#head = head;
            pending = '';
            pendingLines = 0;
            pendingBytes = 0;
          }
          await this.#rotate();
          // The new file opens with the rotation event: the line follows it in the chain.
          head = this.#head;
          chained = chainLine(head, canonical);
          text = `${chained.line}\n`;
          bytes = Buffer.byteLength(text);
        }
        pending += text;
        pendingLines++;
        pendingBytes += bytes;
        head = { seq: chained.seq, hash: chained.hash };
      }
      if (pendingLines > 0) {
        await this.#write(pending, pendingBytes);
        committed += pendingLines;
        this.#head = head;
      }
      return { committed, extra: this.#extra };
    } catch (e) {
      await this.#dropHandle();
      return { committed, extra: this.#extra, error: e as Error };
    } finally {
      this.#extra = 0;
    }
  }

  async #write(text: string, bytes: number): Promise<void> {
    const handle = this.#handle;
    if (handle === undefined) throw new Error('audit file is not open');
    const buf = Buffer.from(text, 'utf8');
    for (let offset = 0; offset < buf.length; ) {
      this.#io.writes++;
      const { bytesWritten } = await handle.write(buf, offset, buf.length - offset);
      offset += bytesWritten;
    }
    // fdatasync: the data and the file size, which is what reading the line back needs.
    this.#io.syncs++;
    await handle.datasync();
    this.#size += bytes;
  }

  async #ensureOpen(): Promise<void> {
    if (this.#handle !== undefined) return;
    const handle = await (this.#options.openFile ?? open)(this.path, APPEND_FLAGS);
    try {
      const stat = await handle.stat();
      const known = this.#identity;
      const same = known !== undefined && known.dev === stat.dev && known.ino === stat.ino;
      if (!stat.isFile()) {
        this.#size = 0;
      } else if (same && stat.size > this.#size) {
        await handle.truncate(this.#size);
        await handle.datasync();
        this.#logger.warn('audit: removed the unacknowledged tail of a failed write', { file: this.path, bytes: stat.size - this.#size });
      } else if (same && stat.size < this.#size) {
        this.#logger.error('audit: the audit file shrank while the gateway held it; acknowledged lines are missing', { file: this.path, bytes: this.#size - stat.size });
        this.#size = stat.size;
      } else if (!same) {
        if (known !== undefined) this.#logger.warn('audit: the audit file was replaced; the chain continues in the new file', { file: this.path });
        this.#size = stat.size;
        if (stat.size === 0) this.#firstSeq = this.#head.seq + 1;
      }
      this.#identity = { dev: stat.dev, ino: stat.ino };
      if (stat.isFile() && stat.size === 0) await syncDir(this.#options.dir);
    } catch (e) {
      await handle.close().catch(() => undefined);
      throw e;
    }
    this.#handle = handle;
  }

  /** Renames the full file, opens the next one with an `audit_rotated` event (durable before
   * anything is deleted), then deletes what rotate.maxFiles no longer keeps (audit-retention.ts). */
  async #rotate(): Promise<void> {
    await this.#dropHandle();
    let attempt = 0;
    let name = rotatedFileName(this.#options.file, this.#firstSeq);
    while (await exists(path.join(this.#options.dir, name))) name = rotatedFileName(this.#options.file, this.#firstSeq, ++attempt);
    await rename(this.path, path.join(this.#options.dir, name));
    this.#rotations++;
    const previous = { file: name, firstSeq: this.#firstSeq, last: this.#head };
    // The next file is new: nothing of it is acknowledged, and its first line is the next seq.
    this.#identity = undefined;
    this.#size = 0;
    this.#firstSeq = this.#head.seq + 1;
    await this.#ensureOpen();
    const { dir, maxBytes, maxFiles } = this.#options;
    const plan = await planPrune(dir, this.#options.file, maxFiles);
    const event = rotatedEvent({ time: new Date((this.#options.now ?? Date.now)()).toISOString(), previous, plan, budget: { maxBytes, maxFiles } });
    const chained = chainLine(this.#head, canonicalRecord(event));
    const text = `${chained.line}\n`;
    await this.#write(text, Buffer.byteLength(text));
    this.#head = { seq: chained.seq, hash: chained.hash };
    this.#extra++;
    if (plan.keptFrom?.firstTime !== undefined) this.#retention.retainedSince = plan.keptFrom.firstTime;
    if (plan.deleted.length === 0) return;
    const failed = await applyPrune(dir, plan);
    this.#retention.filesDeleted += plan.deleted.length - failed.length;
    const oldest = plan.deleted[0]!;
    this.#logger.info('audit: deleted rotated files (rotate.maxFiles)', {
      files: plan.deleted.map((d) => d.file),
      throughSeq: plan.deleted.at(-1)!.lastSeq,
      ...(oldest.firstTime === undefined ? {} : { oldestRecord: oldest.firstTime }),
    });
    if (failed.length > 0) this.#logger.warn('audit: could not delete old rotated files', { files: failed });
  }

  async #dropHandle(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** A new or renamed directory entry is durable only once the directory is fsynced. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
