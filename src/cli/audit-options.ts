// What the `gatehouse audit` subcommands share: usage text, the options naming the chain, and
// reading the records of a chain in order.
import path from 'node:path';
import { DEFAULT_AUDIT_FILE, listAuditFiles } from '../audit/audit-files.ts';
import { readLines } from '../audit/line-reader.ts';
import { isJsonObject, type JsonObject } from '../protocol/message.ts';

export const AUDIT_USAGE = `usage:
  gatehouse audit verify [--file NAME] FILE|DIR...
  gatehouse audit tail [--dir DIR] [--file NAME] [-n N] [--follow] [--json]
  gatehouse audit query [--dir DIR] [--file NAME] [--principal GLOB] [--tool GLOB] [--outcome O]
                        [--since ISO] [--until ISO] [--json]
FILEs are checked in the order given (oldest first); a DIR stands for all files of its chain.
DIR defaults to ./audit, NAME to gatehouse-audit.jsonl (the audit.dir and audit.file config).`;

export const DEFAULT_AUDIT_DIR = 'audit';

/** Options naming the chain that tail and query read. */
export const CHAIN_OPTIONS = {
  dir: { type: 'string', short: 'd' },
  file: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Writes a usage error for `gatehouse audit <sub>` and returns exit code 2. */
export function auditUsageError(sub: string, message: string): number {
  process.stderr.write(`gatehouse audit ${sub}: ${message}\n${AUDIT_USAGE}\n`);
  return 2;
}

export function chainLocation(values: { dir?: string; file?: string }): { dir: string; file: string } {
  return { dir: path.resolve(values.dir ?? DEFAULT_AUDIT_DIR), file: values.file ?? DEFAULT_AUDIT_FILE };
}

export interface StoredLine {
  text: string;
  record: JsonObject;
}

/** Every complete, parseable line of the chain, oldest first. Broken lines are skipped
 * (reading is not verifying: `audit verify` is the judge of integrity). */
export async function* readChain(dir: string, file: string): AsyncGenerator<StoredLine> {
  for (const f of await listAuditFiles(dir, file)) {
    for await (const line of readLines(f)) {
      const record = parseStored(line.text);
      if (line.terminated && record !== undefined) yield { text: line.text, record };
    }
  }
}

export function parseStored(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
