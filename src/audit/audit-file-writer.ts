// The I/O half of the sink: appends chained lines to the current audit file, fsyncs, rotates
// and prunes, and resumes the chain from disk at startup. It owns the chain head, which moves
// only after the lines before it are on disk, so a failed write leaves the chain where the
// disk left it. The sink above decides when to write and what failure means for callers.
//
// Startup: the head is the last complete line of the current file, or of the newest rotated
// file if the current one is empty or missing, or genesis. An incomplete last line (crash
// rule, chain-verifier.ts) is cut off first: it was never acknowledged. After a failed write
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
import { lstat, mkdir, open, rename, truncate, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../telemetry/logger.ts';
import { listRotatedFiles, rotatedFileName } from './audit-files.ts';
import { chainLine, checkLine, GENESIS_HEAD, parseChainLine, type ChainHead } from './hash-chain.ts';
import { readFirstLine, readTail } from './line-reader.ts';

export interface AuditFileOptions {
  /** Absolute directory. */
  dir: string;
  file: string;
  maxBytes: number;
  /** Rotated files kept; 0 keeps all. */
  maxFiles: number;
}

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
  error?: Error;
}

export class AuditFileWriter {
  readonly path: string;
  #options: AuditFileOptions;
  #logger: Logger;
  #head: ChainHead;
  #handle: FileHandle | undefined;
  #identity: { dev: number; ino: number } | undefined;
  /** Acknowledged bytes of the current file. */
  #size = 0;
  /** seq of the current file's first line: its name once rotated. */
  #firstSeq: number;
  #lock: Promise<unknown> = Promise.resolve();
  #rotations = 0;
  #io: AppendIo = { writes: 0, syncs: 0 };

  private constructor(options: AuditFileOptions, logger: Logger, head: ChainHead, firstSeq: number) {
    this.#options = options;
    this.#logger = logger;
    this.path = path.join(options.dir, options.file);
    this.#head = head;
    this.#firstSeq = firstSeq;
  }

  /** Reads where the chain stands on disk. Throws (at boot) if the chain cannot be resumed. */
  static async open(options: AuditFileOptions, logger: Logger): Promise<AuditFileWriter> {
    await mkdir(options.dir, { recursive: true });
    const current = path.join(options.dir, options.file);
    const tail = await readTail(current, 1);
    if (tail !== undefined && tail.completeEnd < tail.size) {
      await truncate(current, tail.completeEnd);
      logger.warn('audit: cut off an incomplete last line left by a crash (never acknowledged)', {
        file: current,
        bytes: tail.size - tail.completeEnd,
      });
    }
    const last = tail?.lines.at(-1);
    if (last !== undefined) {
      const head = resumeFrom(last, current, logger);
      const first = await readFirstLine(current);
      const firstParsed = first === undefined ? undefined : parseChainLine(first);
      return new AuditFileWriter(options, logger, head, firstParsed?.ok ? firstParsed.value.seq : head.seq);
    }
    const newest = (await listRotatedFiles(options.dir, options.file)).at(-1);
    const rotatedPath = newest === undefined ? undefined : path.join(options.dir, newest.name);
    const rotatedLast = rotatedPath === undefined ? undefined : (await readTail(rotatedPath, 1))?.lines.at(-1);
    const head = rotatedLast === undefined || rotatedPath === undefined ? GENESIS_HEAD : resumeFrom(rotatedLast, rotatedPath, logger);
    return new AuditFileWriter(options, logger, head, head.seq + 1);
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
        const chained = chainLine(head, canonical);
        const text = `${chained.line}\n`;
        const bytes = Buffer.byteLength(text);
        // A line larger than maxBytes still goes into a file of its own.
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
      return { committed };
    } catch (e) {
      await this.#dropHandle();
      return { committed, error: e as Error };
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
    const handle = await open(this.path, APPEND_FLAGS);
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

  async #rotate(): Promise<void> {
    await this.#dropHandle();
    let attempt = 0;
    let target = path.join(this.#options.dir, rotatedFileName(this.#options.file, this.#firstSeq));
    while (await exists(target)) target = path.join(this.#options.dir, rotatedFileName(this.#options.file, this.#firstSeq, ++attempt));
    await rename(this.path, target);
    this.#rotations++;
    // The next file is new: nothing of it is acknowledged, and its first line is the next seq.
    this.#identity = undefined;
    this.#size = 0;
    this.#firstSeq = this.#head.seq + 1;
    await this.#ensureOpen();
    await this.#prune();
  }

  async #prune(): Promise<void> {
    if (this.#options.maxFiles === 0) return;
    try {
      const rotated = await listRotatedFiles(this.#options.dir, this.#options.file);
      for (const old of rotated.slice(0, Math.max(0, rotated.length - this.#options.maxFiles))) {
        await unlink(path.join(this.#options.dir, old.name));
        this.#logger.info('audit: deleted a rotated file (rotate.maxFiles)', { file: old.name });
      }
    } catch (e) {
      this.#logger.warn('audit: could not delete old rotated files', { error: e });
    }
  }

  async #dropHandle(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}

function resumeFrom(line: string, file: string, logger: Logger): ChainHead {
  const parsed = parseChainLine(line);
  if (!parsed.ok) {
    throw new Error(`audit: cannot continue the chain: the last line of ${file} is not an audit line (${parsed.error}); check the file with \`gatehouse audit verify\``);
  }
  const own = checkLine(line, undefined);
  if (!own.ok) logger.error('audit: the last line does not verify; the chain continues from its stated hash', { file, problem: own.error.message });
  return { seq: parsed.value.seq, hash: parsed.value.hash };
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
