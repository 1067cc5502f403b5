// The hash chain of the audit file. Every line is one JSON object:
//
//   {"seq":N,"prev":"sha256:…","hash":"sha256:…", …the record's fields in canonical order…}
//
//   seq   1 for the first record ever written, +1 per line, continuing across rotated files.
//   prev  the `hash` of the line before (in the previous file for a file's first line), or
//         GENESIS_HASH for the very first line.
//   hash  "sha256:" + hex SHA-256 of the UTF-8 canonical JSON (RFC 8785) of the object
//         {"prev": prev, "record": <the record>, "seq": seq}, where <the record> is the line
//         without seq, prev and hash.
//
// Editing a line breaks its hash; deleting, inserting or reordering lines breaks the
// seq/prev links, also at file boundaries. A forger who rewrites every later line too is
// caught only against a hash kept elsewhere (docs/audit.md: anchoring). The line text
// itself is exactly what chainLine builds, so verification also rejects reformatting.
// Pure: files and their order are the caller's business (chain-verifier.ts, the sink).
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { canonicalJson, canonicalJsonWithin } from './canonical-json.ts';
import { sha256Text } from './digest.ts';

export const GENESIS_HASH = `sha256:${'0'.repeat(64)}`;

/** Fields the chain adds to a record; a record may not carry them itself. */
export const CHAIN_FIELDS = ['seq', 'prev', 'hash'] as const;

const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** The last line written: what the next line chains to. seq 0 means nothing written yet. */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export const GENESIS_HEAD: ChainHead = { seq: 0, hash: GENESIS_HASH };

export interface ChainedLine {
  /** The line without its newline. */
  line: string;
  seq: number;
  hash: string;
}

/**
 * Canonical JSON of a record, checked to be a chainable object. Done when the pipeline calls
 * record(), so a bad record fails its caller instead of a whole batch.
 */
export function canonicalRecord(record: object): string {
  checkChainable(record);
  const text = canonicalJson(record);
  if (!text.startsWith('{')) throw new TypeError('audit record must be a JSON object');
  return text;
}

/** canonicalRecord, when no string of the record is over `maxStringBytes` (outside the
 * top-level fields in `uncapped`); undefined when one is (canonicalJsonWithin). */
export function canonicalRecordWithin(record: object, maxStringBytes: number, uncapped?: ReadonlySet<string>): string | undefined {
  checkChainable(record);
  return canonicalJsonWithin(record, maxStringBytes, uncapped);
}

function checkChainable(record: object): void {
  for (const field of CHAIN_FIELDS) {
    if (Object.hasOwn(record, field)) throw new TypeError(`audit record may not have a "${field}" field`);
  }
}

export function chainHash(seq: number, prev: string, canonical: string): string {
  // Canonical JSON of {"prev","record","seq"}: those keys are already in sorted order.
  return sha256Text(`{"prev":${JSON.stringify(prev)},"record":${canonical},"seq":${seq}}`);
}

/** The line for record `canonical` (from canonicalRecord) following `head`. */
export function chainLine(head: ChainHead, canonical: string): ChainedLine {
  const seq = head.seq + 1;
  const hash = chainHash(seq, head.hash, canonical);
  const rest = canonical === '{}' ? '}' : `,${canonical.slice(1)}`;
  return { line: `{"seq":${seq},"prev":"${head.hash}","hash":"${hash}"${rest}`, seq, hash };
}

export interface ParsedLine {
  seq: number;
  prev: string;
  hash: string;
  record: JsonObject;
}

/** Parses one line; the error says what is wrong with its shape. */
export function parseChainLine(text: string): Result<ParsedLine, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return err('not valid JSON');
  }
  if (!isJsonObject(value)) return err('not a JSON object');
  const { seq, prev, hash, ...record } = value;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return err('"seq" is not a positive integer');
  if (typeof prev !== 'string' || !HASH_PATTERN.test(prev)) return err('"prev" is not a sha256: hash');
  if (typeof hash !== 'string' || !HASH_PATTERN.test(hash)) return err('"hash" is not a sha256: hash');
  return ok({ seq, prev, hash, record });
}

export type ChainBreakKind = 'malformed' | 'edited' | 'reformatted' | 'seq_gap' | 'seq_back' | 'prev_mismatch';

export interface ChainBreak {
  kind: ChainBreakKind;
  message: string;
}

/**
 * Checks one line against the head before it. `head` undefined: the first line given, which
 * may start mid-chain (older files rotated away), so only its own hash is checked.
 */
export function checkLine(text: string, head: ChainHead | undefined): Result<ParsedLine, ChainBreak> {
  const parsed = parseChainLine(text);
  if (!parsed.ok) return err({ kind: 'malformed', message: `malformed line: ${parsed.error}` });
  const line = parsed.value;
  const canonical = canonicalJson(line.record);
  const expected = chainLine({ seq: line.seq - 1, hash: line.prev }, canonical);
  if (expected.hash !== line.hash) {
    return err({ kind: 'edited', message: 'edited: the content does not match its "hash"' });
  }
  if (expected.line !== text) {
    return err({ kind: 'reformatted', message: 'reformatted: the content matches its hash but the text is not as written' });
  }
  if (head === undefined) return ok(line);
  if (line.seq > head.seq + 1) {
    const missing = line.seq - head.seq - 1;
    return err({ kind: 'seq_gap', message: `seq gap: ${head.seq} is followed by ${line.seq}, ${missing} line${missing === 1 ? '' : 's'} deleted (or lines reordered)` });
  }
  if (line.seq <= head.seq) {
    return err({ kind: 'seq_back', message: `seq ${line.seq} after ${head.seq}: a line was inserted or lines were reordered` });
  }
  if (line.prev !== head.hash) {
    return err({ kind: 'prev_mismatch', message: `"prev" does not match the hash of line seq ${head.seq}: a line was inserted, deleted or replaced before this one` });
  }
  return ok(line);
}
