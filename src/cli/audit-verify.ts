// `gatehouse audit verify FILE|DIR...`: checks the hash chain and prints OK with the count,
// or the first broken line as file:line and why. Exit 0 intact, 1 broken, 2 unusable input.
import { parseArgs } from 'node:util';
import { DEFAULT_AUDIT_FILE } from '../audit/audit-files.ts';
import type { VerifyReport } from '../audit/chain-verifier.ts';
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
    const start = report.fromGenesis ? 'from genesis' : `starting mid-chain (seq 1..${(report.firstSeq ?? 1) - 1} rotated away or not given)`;
    lines.push(`OK: ${report.records} record${report.records === 1 ? '' : 's'} in ${files}, seq ${report.firstSeq}..${report.lastSeq} ${start}`);
    lines.push(`last hash ${report.lastHash}`);
  }
  return lines.map((l) => `${l}\n`).join('');
}
