// Process edge: argv -> command. Nothing here writes to stdout (help and version are src/cli's).
// Each command's module is imported only when that command runs, so `--help`, `--version`
// and the small commands do not load the whole gateway first.
import { helpRequested, helpTopic, printHelp, USAGE } from './cli/help.ts';
import { printVersion } from './cli/version.ts';

// @hono/node-server reports aborted requests with console.info; stdout is not for logs.
console.info = (...args: unknown[]) => process.stderr.write(`${args.map(String).join(' ')}\n`);


async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'help') return printHelp(rest);
  if (command === '--version' || command === '-V' || command === 'version') {
    return printVersion();
  }
  // `gatehouse policy frob --help` is left to the dispatcher, which names the unknown word.
  if (helpRequested(argv) && helpTopic(argv) !== undefined) return printHelp(argv);
  switch (command) {
    case 'serve':
      (await import('./cli/heap-tuning.ts')).tuneHeap();
      return (await import('./cli/serve.ts')).serveCommand(rest);
    case 'config':
      return (await import('./cli/config-command.ts')).configCommand(rest);
    case 'policy':
      return (await import('./cli/policy-command.ts')).policyCommand(rest);
    case 'overlays':
      return (await import('./cli/overlays-command.ts')).overlaysCommand(rest);
    case 'catalog':
      return (await import('./cli/catalog-command.ts')).catalogCommand(rest);
    case 'key':
      return (await import('./cli/key-command.ts')).keyCommand(rest);
    case 'audit':
      return (await import('./cli/audit-command.ts')).auditCommand(rest);
    case 'user-tokens':
      return (await import('./cli/user-tokens-command.ts')).userTokensCommand(rest);
    case undefined:
      process.stderr.write(USAGE);
      return 2;
    default:
      process.stderr.write(`gatehouse: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
