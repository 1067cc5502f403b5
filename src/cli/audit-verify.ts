// `gatehouse audit verify FILE|DIR...`: checks the hash chain and prints OK with the count,
// or the first broken line as file:line and why. Exit 0 intact, 1 broken, 2 unusable input.
import { parseArgs } from 'node:util';
import { DEFAULT_AUDIT_FILE } from '../audit/audit-files.ts';
import type { VerifyReport } from '../audit/chain-verifier.ts';
import { formatSeconds } from './audit-format.ts';
import { resolveAuditFiles, verifyFiles } from '../audit/verify-files.ts';
import { auditUsageError } from './audit-options.ts';

export async function auditVerifyCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { file: { type: 'string' } }, allowPositionals: true });
  } catch (e) {
    return auditUsageError('verify', (e as Error).message);
  }
  if (parsed.positionals.length === 0) return auditUsageError('verify', 'name the audit files or their directory');
  let files: string[];
  let report: VerifyReport;
  try {
    files = await resolveAuditFiles(parsed.positionals, parsed.values.file ?? DEFAULT_AUDIT_FILE);
    if (files.length === 0) {
      process.stderr.write(`gatehouse audit verify: no audit files in ${parsed.positionals.join(', ')}\n`);
      return 2;
    }
    report = await verifyFiles(files);
  } catch (e) {
    process.stderr.write(`gatehouse audit verify: ${(e as Error).message}\n`);
    return 2;
  }
  process.stdout.write(formatReport(report, files.length));
  return report.ok ? 0 : 1;
}

export function formatReport(report: VerifyReport, fileCount: number): string {
  const lines: string[] = [];
  if (report.incomplete !== undefined) {
    const { file, lineNo, bytes } = report.incomplete;
    lines.push(`warning: ${file}:${lineNo}: incomplete last line (${bytes} bytes, no newline): a write cut short by a crash, never acknowledged; not part of the chain`);
  }
  if (report.broken !== undefined) {
    const { file, lineNo, message } = report.broken;
    lines.push(`BROKEN: ${file}:${lineNo}: ${message}`);
    lines.push(`${report.records} record${report.records === 1 ? '' : 's'} before it verified`);
    return lines.map((l) => `${l}\n`).join('');
  }
  const files = `${fileCount} file${fileCount === 1 ? '' : 's'}`;
  if (report.records === 0) {
    lines.push(`OK: 0 records in ${files}`);
  } else {
    const start = report.fromGenesis ? 'from genesis' : 'starting mid-chain';
    lines.push(`OK: ${report.records} record${report.records === 1 ? '' : 's'} in ${files}, seq ${report.firstSeq}..${report.lastSeq} ${start}`);
    if (report.start !== undefined) lines.push(describeStart(report.start, report.firstSeq ?? 1));
    lines.push(`last hash ${report.lastHash}`);
  }
  return lines.map((l) => `${l}\n`).join('');
}

/** Why seq 1..firstSeq-1 are missing: deleted by the rotation budget (and how young that
 * history was: minutes mean a flood of records, not retention), or nothing in the chain says. */
function describeStart(start: NonNullable<VerifyReport['start']>, firstSeq: number): string {
  if (start.cutBy === 'unexplained') {
    return `history cut: seq 1..${firstSeq - 1} are not here, and no audit_rotated record in these files says the gateway deleted them (not given, or removed outside the gateway: by hand or by an age-based retention job)`;
  }
  const budget = start.budget === undefined ? '' : ` (rotate.maxFiles ${String(start.budget.maxFiles)}, rotate.maxBytes ${String(start.budget.maxBytes)})`;
  const age = start.newestTime === undefined ? undefined : (Date.parse(start.deletedAt) - Date.parse(start.newestTime)) / 1000;
  const old = age === undefined || Number.isNaN(age) ? '' : `, when the newest of them was ${formatSeconds(age)} old`;
  return `history cut by rotation: seq 1..${start.throughSeq} were deleted by the rotation budget${budget}, ${start.file} (seq ${start.fromSeq}..${start.throughSeq}) at ${start.deletedAt}${old}; not by retention age`;
}
