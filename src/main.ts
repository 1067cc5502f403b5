// Process edge: argv -> command. Nothing here writes to stdout (help text is src/cli's).
import { auditCommand } from './cli/audit-command.ts';
import { policyCommand } from './cli/policy-command.ts';
import { keyCommand } from './cli/key-command.ts';
import { serveCommand } from './cli/serve.ts';
import { printHelp, USAGE } from './cli/usage.ts';


// @hono/node-server reports aborted requests with console.info; stdout is not for logs.
console.info = (...args: unknown[]) => process.stderr.write(`${args.map(String).join(' ')}\n`);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serveCommand(rest);
    case 'policy':
      return policyCommand(rest);
    case 'key':
      return keyCommand(rest);
    case 'audit':
      return auditCommand(rest);
    case undefined:
      process.stderr.write(USAGE);
      return 2;
    case 'help':
    case '--help':
    case '-h':
      printHelp();
      return 0;
    default:
      process.stderr.write(`gatehouse: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
