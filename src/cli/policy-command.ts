// `gatehouse policy check | explain | test | pin`: the operator's tools for policy files.
// Exit codes: 0 success, 1 a policy test failed, 2 bad usage, invalid files or (pin) an
// upstream that cannot be reached (as `serve` exits 2 on a bad config). Results go to
// stdout, problems to stderr.
import { policyCheckCommand } from './policy-check.ts';
import { policyExplainCommand } from './policy-explain.ts';
import { policyPinCommand } from './policy-pin.ts';
import { policyTestCommand } from './policy-test.ts';
import { POLICY_USAGE } from './policy-options.ts';

export async function policyCommand(argv: string[]): Promise<number> {
  // `gatehouse policy test | head` closes stdout early: stop quietly, not with a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'check':
      return policyCheckCommand(rest);
    case 'explain':
      return policyExplainCommand(rest);
    case 'test':
      return policyTestCommand(rest);
    case 'pin':
      return policyPinCommand(rest);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${POLICY_USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`gatehouse policy: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}\n${POLICY_USAGE}\n`);
      return 2;
  }
}
