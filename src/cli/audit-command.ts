// `gatehouse audit verify | tail | query`: reading the audit trail. Exit codes: 0 success,
// 1 the chain is broken (verify), 2 bad usage or unreadable files. Results go to stdout,
// problems to stderr.
import { auditQueryCommand } from './audit-query.ts';
import { auditTailCommand } from './audit-tail.ts';
import { AUDIT_USAGE } from './audit-options.ts';
import { auditVerifyCommand } from './audit-verify.ts';

export async function auditCommand(argv: string[]): Promise<number> {
  // `gatehouse audit query | head` closes stdout early: stop quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'verify':
      return auditVerifyCommand(rest);
    case 'tail':
      return auditTailCommand(rest);
    case 'query':
      return auditQueryCommand(rest);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${AUDIT_USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`gatehouse audit: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}\n${AUDIT_USAGE}\n`);
      return 2;
  }
}
