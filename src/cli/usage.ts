// The top-level usage text of the `gatehouse` command. Help asked for goes to stdout (it is
// the command's output); usage shown because of a mistake goes to stderr.

export const USAGE = `gatehouse — an MCP gateway

usage:
  gatehouse serve --config FILE [--host HOST] [--port PORT]
  gatehouse key hash [--prefixed] < key      (prints the SHA-256 to put in identity.apiKeys)
  gatehouse policy check|explain|test|pin ...   (gatehouse policy help)
  gatehouse audit verify|tail|query ...         (gatehouse audit help)
`;

export function printHelp(): void {
  process.stdout.write(USAGE);
}
