// Process edge: argv -> command. Nothing here writes to stdout except usage text.
import { auditCommand } from './cli/audit-command.ts';
import { policyCommand } from './cli/policy-command.ts';
import { keyCommand } from './cli/key-command.ts';
import { serveCommand } from './cli/serve.ts';

const USAGE = `gatehouse — an MCP gateway

usage:
  gatehouse serve --config FILE [--host HOST] [--port PORT]
  gatehouse key hash [--prefixed] < key      (prints the SHA-256 to put in identity.apiKeys)
  gatehouse policy check|explain|test|pin ...   (gatehouse policy help)
  gatehouse audit verify|tail|query ...         (gatehouse audit help)
`;

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
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`gatehouse: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
