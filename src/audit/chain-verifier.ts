// Verifies a sequence of audit lines, fed in chain order across files, and says where the
// chain first breaks. Pure: `gatehouse audit verify` reads the files and feeds the lines.
//
// Crash rule: the sink writes each line with its newline in one write, and acknowledges it
// only after fsync. A crash can therefore leave, at the very end of the newest file, a line
// without its newline: a write that was never acknowledged. Such a line is reported as
// incomplete and left out of the chain; the sink cuts it off when it restarts. The same thing
// anywhere else (not the last line of the last file) is a break.
//
// Start. A chain that does not start at genesis lost its oldest lines. The sink opens every
// new file with an `audit_rotated` event naming the files the rotation budget deleted
// (audit-retention.ts), so when one of the events given names the file that ended just
// before the first line given, the report says the start was cut by the budget, when, and
// how old that history was then; otherwise nothing in the chain explains the missing start.
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { AUDIT_ROTATED } from './audit-retention.ts';
import { checkLine, GENESIS_HASH, type ChainBreakKind, type ChainHead } from './hash-chain.ts';

export interface VerifyInput {
  file: string;
  /** 1-based line number in the file. */
  lineNo: number;
  text: string;
  /** The line ended with a newline. */
  terminated: boolean;
}

export interface ChainBreakAt {
  file: string;
  lineNo: number;
  kind: ChainBreakKind | 'incomplete';
  message: string;
}

export interface VerifyReport {
  ok: boolean;
  records: number;
  firstSeq?: number;
  lastSeq?: number;
  /** The first line is seq 1 chained to the genesis hash (no older lines rotated away). */
  fromGenesis: boolean;
  /** Hash of the last good line: keep it elsewhere to anchor the chain (docs/audit.md). */
  lastHash?: string;
  broken?: ChainBreakAt;
  /** An incomplete last line (crash during write), not counted. */
  incomplete?: { file: string; lineNo: number; bytes: number };
  /** Why the chain starts mid-chain, when it does: `rotation` when an audit_rotated event
   * says the budget deleted the file just before the first line; `unexplained` otherwise. */
  start?: RotationCut | { cutBy: 'unexplained' };
}

export interface RotationCut {
  cutBy: 'rotation';
  /** The deleted file that held seq firstSeq - 1, and its range. */
  file: string;
  fromSeq: number;
  throughSeq: number;
  /** When the event that deleted it was written. */
  deletedAt: string;
  /** Time of the newest record in that file, when it was known. */
  newestTime?: string;
  budget?: JsonObject;
}

export interface ChainVerifier {
  /** Feeds the next line; false once the chain is broken (stop feeding). */
  push(input: VerifyInput): boolean;
  report(): VerifyReport;
}

export function createChainVerifier(): ChainVerifier {
  let head: ChainHead | undefined;
  let records = 0;
  let firstSeq: number | undefined;
  let fromGenesis = false;
  let broken: ChainBreakAt | undefined;
  let incomplete: VerifyInput | undefined;
  let cut: RotationCut | undefined;

  /** Notes the deletion of the file that ended just before the first line, if this event names it. */
  const noteRotation = (record: JsonObject): void => {
    if (cut !== undefined || firstSeq === undefined || record.type !== 'event' || record.event !== AUDIT_ROTATED) return;
    const detail = record.detail;
    if (!isJsonObject(detail) || !Array.isArray(detail.deleted) || typeof record.time !== 'string') return;
    for (const d of detail.deleted) {
      if (!isJsonObject(d) || typeof d.file !== 'string' || typeof d.firstSeq !== 'number' || d.lastSeq !== firstSeq - 1) continue;
      cut = { cutBy: 'rotation', file: d.file, fromSeq: d.firstSeq, throughSeq: d.lastSeq, deletedAt: record.time };
      if (typeof d.lastTime === 'string') cut.newestTime = d.lastTime;
      if (isJsonObject(detail.budget)) cut.budget = detail.budget;
      return;
    }
  };

  const breakAt = (input: VerifyInput, kind: ChainBreakAt['kind'], message: string): boolean => {
    broken = { file: input.file, lineNo: input.lineNo, kind, message };
    return false;
  };

  return {
    push(input) {
      if (broken !== undefined) return false;
      if (incomplete !== undefined) {
        return breakAt(incomplete, 'incomplete', 'incomplete line (no newline) that is not the last line of the newest file');
      }
      if (!input.terminated) {
        incomplete = input;
        return true;
      }
      const checked = checkLine(input.text, head);
      if (!checked.ok) return breakAt(input, checked.error.kind, checked.error.message);
      const line = checked.value;
      if (head === undefined) {
        firstSeq = line.seq;
        fromGenesis = line.prev === GENESIS_HASH;
        if (fromGenesis !== (line.seq === 1)) {
          return breakAt(input, 'prev_mismatch', fromGenesis ? `seq ${line.seq} claims to be the first line (genesis "prev")` : 'seq 1 does not chain to the genesis hash');
        }
      }
      head = { seq: line.seq, hash: line.hash };
      records++;
      if (!fromGenesis) noteRotation(line.record);
      return true;
    },
    report() {
      return {
        ok: broken === undefined,
        records,
        ...(firstSeq === undefined ? {} : { firstSeq }),
        ...(head === undefined ? {} : { lastSeq: head.seq, lastHash: head.hash }),
        fromGenesis,
        ...(broken === undefined ? {} : { broken }),
        ...(incomplete === undefined || broken !== undefined
          ? {}
          : { incomplete: { file: incomplete.file, lineNo: incomplete.lineNo, bytes: Buffer.byteLength(incomplete.text) } }),
        ...(firstSeq === undefined || fromGenesis ? {} : { start: cut ?? { cutBy: 'unexplained' } }),
      };
    },
  };
}
