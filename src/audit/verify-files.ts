// The I/O edge of verification: resolves what the operator named (files in chain order, or
// a directory holding a chain) and streams their lines through the pure chain verifier.
import { stat } from 'node:fs/promises';
import { DEFAULT_AUDIT_FILE, listAuditFiles } from './audit-files.ts';
import { createChainVerifier, type VerifyReport } from './chain-verifier.ts';
import { readLines } from './line-reader.ts';

/** Files as given, with each directory replaced by its chain's files in chain order. */
export async function resolveAuditFiles(targets: readonly string[], file = DEFAULT_AUDIT_FILE): Promise<string[]> {
  const files: string[] = [];
  for (const target of targets) {
    if ((await stat(target)).isDirectory()) files.push(...(await listAuditFiles(target, file)));
    else files.push(target);
  }
  return files;
}

/** Verifies the chain through `files`, in the order given, stopping at the first break. */
export async function verifyFiles(files: readonly string[]): Promise<VerifyReport> {
  const verifier = createChainVerifier();
  for (const file of files) {
    for await (const line of readLines(file)) {
      if (!verifier.push({ file, lineNo: line.lineNo, text: line.text, terminated: line.terminated })) return verifier.report();
    }
  }
  return verifier.report();
}
