// What rotation deletes, and the `audit_rotated` event that says so. The file writer calls
// this at each rotation: it plans which rotated files rotate.maxFiles no longer keeps, the
// writer chains an `audit_rotated` event naming them (and the previous file's last seq and
// hash) as the first line of the new file, and only once that line is on disk are the files
// deleted. So the gateway never deletes audit history without first saying so in the chain,
// and `gatehouse audit verify` can tell a start cut by the rotation budget (however fast:
// an event that deletes minutes-old history is a flood, not retention) from one whose older
// files were removed some other way (chain-verifier.ts).
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import type { EventAuditRecord } from './audit-record.ts';
import { listRotatedFiles } from './audit-files.ts';
import type { ChainHead } from './hash-chain.ts';
import { parseChainLine } from './hash-chain.ts';
import { readFirstLine, readTail } from './line-reader.ts';

export const AUDIT_ROTATED = 'audit_rotated';

/** One rotated file: its seq range and the times of its first and last records. */
export interface FileSpan {
  file: string;
  firstSeq: number;
  lastSeq?: number;
  firstTime?: string;
  lastTime?: string;
}

export interface PrunePlan {
  deleted: FileSpan[];
  /** The oldest file that stays, where the retained history starts. */
  keptFrom?: FileSpan;
}

/** Which rotated files in `dir` go when only `maxFiles` may stay (0: none go). */
export async function planPrune(dir: string, file: string, maxFiles: number): Promise<PrunePlan> {
  const rotated = await listRotatedFiles(dir, file);
  const cut = maxFiles === 0 ? 0 : Math.max(0, rotated.length - maxFiles);
  const deleted: FileSpan[] = [];
  for (const [i, r] of rotated.slice(0, cut).entries()) {
    const span = await fileSpan(path.join(dir, r.name), r.firstSeq);
    // An unreadable file still has a known end: the line before the next file's first.
    span.lastSeq ??= rotated[i + 1]!.firstSeq - 1;
    deleted.push(span);
  }
  const kept = rotated[cut];
  return kept === undefined ? { deleted } : { deleted, keptFrom: await fileSpan(path.join(dir, kept.name), kept.firstSeq) };
}

/** Deletes what the plan names; the names of those that could not be deleted. */
export async function applyPrune(dir: string, plan: PrunePlan): Promise<string[]> {
  const failed: string[] = [];
  for (const d of plan.deleted) {
    try {
      await unlink(path.join(dir, d.file));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') failed.push(d.file);
    }
  }
  return failed;
}

export interface RotationFacts {
  time: string;
  /** The file just closed: its rotated name and first seq, and the chain head at its end. */
  previous: { file: string; firstSeq: number; last: ChainHead };
  plan: PrunePlan;
  budget: { maxBytes: number; maxFiles: number };
}

/** The event that opens each new file. */
export function rotatedEvent(f: RotationFacts): EventAuditRecord {
  const span = (s: FileSpan) => ({
    file: s.file,
    firstSeq: s.firstSeq,
    ...(s.lastSeq === undefined ? {} : { lastSeq: s.lastSeq }),
    ...(s.firstTime === undefined ? {} : { firstTime: s.firstTime }),
    ...(s.lastTime === undefined ? {} : { lastTime: s.lastTime }),
  });
  return {
    type: 'event',
    time: f.time,
    event: AUDIT_ROTATED,
    detail: {
      reason: 'maxBytes',
      previous: { file: f.previous.file, firstSeq: f.previous.firstSeq, lastSeq: f.previous.last.seq, lastHash: f.previous.last.hash },
      deleted: f.plan.deleted.map(span),
      ...(f.plan.keptFrom === undefined ? {} : { keptFrom: span(f.plan.keptFrom) }),
      budget: { maxBytes: f.budget.maxBytes, maxFiles: f.budget.maxFiles },
    },
  };
}

async function fileSpan(file: string, firstSeq: number): Promise<FileSpan> {
  const span: FileSpan = { file: path.basename(file), firstSeq };
  try {
    const first = timeOf(await readFirstLine(file));
    if (first !== undefined) span.firstTime = first.time;
    const lastLine = (await readTail(file, 1))?.lines.at(-1);
    const last = timeOf(lastLine);
    if (last !== undefined) {
      span.lastSeq = last.seq;
      span.lastTime = last.time;
    }
  } catch {
    // An unreadable file is still named by its seq; its times are simply not known.
  }
  return span;
}

function timeOf(line: string | undefined): { seq: number; time: string } | undefined {
  if (line === undefined) return undefined;
  const parsed = parseChainLine(line);
  if (!parsed.ok) return undefined;
  const time = parsed.value.record.time;
  return typeof time === 'string' ? { seq: parsed.value.seq, time } : undefined;
}
