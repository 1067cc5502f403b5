// Verifies a sequence of audit lines, fed in chain order across files, and says where the
// chain first breaks. Pure: `gatehouse audit verify` reads the files and feeds the lines.
//
// Crash rule: the sink writes each line with its newline in one write, and acknowledges it
// only after fsync. A crash can therefore leave, at the very end of the newest file, a line
// without its newline: a write that was never acknowledged. Such a line is reported as
// incomplete and left out of the chain; the sink cuts it off when it restarts. The same thing
// anywhere else (not the last line of the last file) is a break.
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
      };
    },
  };
}
