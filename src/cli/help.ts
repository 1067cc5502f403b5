// The help of every command and subcommand, and how the command line asks for it: `--help`
// or `-h` anywhere before `--`, or `gatehouse help COMMAND [SUBCOMMAND]`. Help asked for is
// the command's output, so it goes to stdout with exit 0; the short usage printed after a
// mistake stays with each parser, on stderr. Commands whose options are read by their own
// modules (serve, policy, audit, key, config) are listed here so that `--help` never
// reaches a parser that would call it an unknown option.

export const COMMANDS: Readonly<Record<string, readonly string[]>> = {
  serve: [],
  config: ['check'],
  policy: ['check', 'explain', 'test', 'pin'],
  audit: ['verify', 'tail', 'query'],
  key: ['hash'],
  overlays: ['confirm'],
  catalog: ['show'],
  'user-tokens': ['list', 'revoke'],
};

const TOP = `gatehouse — an MCP gateway

usage:
  gatehouse serve --config FILE [--host HOST] [--port PORT]
  gatehouse config check [--config FILE]        (every problem of a config and its files)
  gatehouse key hash [--prefixed] < key         (the SHA-256 to put in identity.apiKeys)
  gatehouse policy check|explain|test|pin ...   (gatehouse policy --help)
  gatehouse audit verify|tail|query ...         (gatehouse audit --help)
  gatehouse overlays confirm --config FILE      (record the upstream hashes overlays apply to)
  gatehouse catalog show --config FILE [--server S] [--as P] (what a caller sees, and where each item comes from)
  gatehouse user-tokens list|revoke ...         (users' tokens for per-user upstreams)
  gatehouse --version

Every command and subcommand takes --help (-h); \`gatehouse help COMMAND\` says the same.
`;

const HELP: Readonly<Record<string, string>> = {
  '': TOP,
  serve: `usage: gatehouse serve --config FILE [--host HOST] [--port PORT]

Starts the gateway with the config FILE: the MCP endpoint (listen.path, /mcp by default),
/healthz, /readyz, /metrics and the approvals console on one port. A config that does not
load exits 2 with every problem; an address that cannot be listened on, or an audit
directory another gateway holds, exits 1 at once. SIGTERM or SIGINT drains it (/readyz
503 at once, still serving for shutdown.drainDelay, then in-flight requests get
shutdown.deadline); a second signal stops it at once. SIGHUP, or a change to the
config file, reloads the config and the policy; a config that does not load, or that
changes a restart-only field (listen, admin, audit, ...), is refused and the running
one stays.

options:
  -c, --config FILE   the gateway config (YAML); required
      --host HOST     listen on HOST instead of listen.host
  -p, --port PORT     listen on PORT instead of listen.port (0: any free port)
  -h, --help          this help

environment: GATEHOUSE_LOG_LEVEL=debug|info|warn|error (JSON logs on stderr), OTEL_* (traces)
`,
  config: `usage: gatehouse config check [--config FILE]

  check   validate a gateway config and every file it refers to (gatehouse config check --help)
`,
  'config check': `usage: gatehouse config check [--config FILE]

Validates the config FILE as \`gatehouse serve\` would load it, and every file it refers to:
API key lists and JWKS files, header and secret files of upstreams, the working directory
and command of stdio upstreams, the audit directory, and the policy directory (its rules and
pins, and the shape of its *.test.yaml files). Every problem of every stage is reported in
one run, one line each (file:line:column /path: message), on stderr. Starts nothing and
contacts no upstream. Exit 0 valid (a summary on stdout), 2 any problem.

options:
  -c, --config FILE   the gateway config; default ./gatehouse.yaml
  -h, --help          this help
`,
  policy: `usage:
  gatehouse policy check [--dir DIR] [--default-effect deny|allow]
  gatehouse policy explain [--dir DIR] --as PRINCIPAL (--call TOOL | --prompt NAME | --resource URI) ...
  gatehouse policy test [FILE.test.yaml ...] [--dir DIR] [--server S]
  gatehouse policy pin --config GATEWAY.yaml [--tool GLOB ...]

  check     validate the policy files and the shape of their tests
  explain   which rule decides one call (or one item's visibility), and why
  test      run the policy test cases
  pin       print pins for the tools the upstreams serve now

\`gatehouse policy SUBCOMMAND --help\` describes each one.
`,
  'policy check': `usage: gatehouse policy check [--dir DIR] [--default-effect deny|allow]

Validates every policy file and every *.test.yaml in DIR (their shape; \`policy test\` runs
them) and prints what was loaded. Exit 0 valid, 2 any problem (all of them listed).

options:
  -d, --dir DIR                  the policy directory; default ./policies
      --default-effect EFFECT    deny (default) or allow, as policy.defaultEffect
  -h, --help                     this help
`,
  'policy explain': `usage: gatehouse policy explain [--dir DIR] --as PRINCIPAL (--call TOOL | --prompt NAME | --resource URI)
                                [--upstream U] [--server S] [--args JSON] [--params 'Name=value,...'] [--list] [--json]

Prints the decision for one principal and one call, the rule that decided, and every rule's
verdict with its reason. Exit 0, or 2 on bad usage or invalid policy files.

options:
      --as PRINCIPAL             a subject, or JSON such as '{"subject":"alice","groups":["analysts"]}'
      --call TOOL                a tool, as exposed (prefixed) or with --upstream
      --prompt NAME              a prompt
      --resource URI             a resource
      --upstream U               the upstream, when the name is not prefixed
      --server S                 the call comes to virtual server S (rules with \`when.server\`);
                                 the name is the one the default endpoint shows
      --args JSON                the call's arguments
      --params 'Name=value,...'  Mcp-Param-* values the call would carry
      --list                     the item's visibility in lists instead of the call
      --json                     the explanation as JSON
  -d, --dir DIR                  the policy directory; default ./policies
      --default-effect EFFECT    deny (default) or allow
  -h, --help                     this help
`,
  'policy test': `usage: gatehouse policy test [FILE.test.yaml ...] [--dir DIR] [--server S] [--default-effect deny|allow]

Runs policy test cases and prints each one's result and a closing \`N passed, M failed\` line.
Without --dir each file is tested against the policies in its own directory; without files,
every *.test.yaml in DIR runs. Exit 0 all passed, 1 any failed, 2 invalid files.

options:
  -d, --dir DIR                  the policy directory; default ./policies
      --server S                 cases without a \`server\` of their own come to virtual server S
      --default-effect EFFECT    deny (default) or allow
  -h, --help                     this help
`,
  'policy pin': `usage: gatehouse policy pin --config GATEWAY.yaml [--tool GLOB ...]

Starts the upstreams of the gateway config, merges their tools as the gateway does and prints
a \`pins:\` policy file for them on stdout (review it, then save it: > policies/90-pins.yaml).
Every upstream must answer. Exit 0, or 2 (bad config, an upstream down, a GLOB matching nothing).

options:
  -c, --config FILE   the gateway config; required
  -t, --tool GLOB     pin only the exposed tools matching GLOB (repeatable)
  -h, --help          this help
`,
  overlays: `usage: gatehouse overlays confirm --config GATEWAY.yaml [--check]

  confirm   record the hash of the upstream definition each overlay applies to
`,
  'overlays confirm': `usage: gatehouse overlays confirm --config GATEWAY.yaml [--check]

Starts the upstreams of the gateway config and, for every entry of \`overlays:\` and of each
server's \`servers[].overlays\`, writes the SHA-256 of the upstream definition it applies to now into its \`sha256\` (the file is edited in
place; comments and \${VAR} references stay). An overlay held back as unconfirmed or
quarantined applies again when the gateway reloads the file (it watches it) or restarts:
review what changed upstream first. An overlay that cannot apply (its item is missing, a narrowed schema is wider
than the upstream's, a hidden required argument has no value, a rename collides) is reported
as file:line /path: reason, and nothing is written. Every upstream must answer.
Exit 0, 1 (--check: some hash would change), 2 (bad config, an upstream down, a bad overlay).

options:
  -c, --config FILE   the gateway config; required
      --check         write nothing; exit 1 when some overlay is not confirmed
  -h, --help          this help
`,
  catalog: `usage: gatehouse catalog show --config GATEWAY.yaml [--server NAME] [--as PRINCIPAL] [--json]

  show   what a caller sees after the merge, overlays and policy, with each item's origin
`,
  'catalog show': `usage: gatehouse catalog show --config GATEWAY.yaml [--server NAME] [--as PRINCIPAL] [--json]

Starts the upstreams of the gateway config and prints the tools, prompts, resources and
templates that PRINCIPAL (anonymous by default) sees on the endpoint (or server NAME), each with
its upstream and own name, the overlay (file:line /path), the rule that shows it, its policy name.
Items hidden by policy, quarantined by a pin or held back by their overlay follow, with why.
Exit 0, or 2 (bad usage, bad config or policy, an unknown server, an upstream down).

options:
  -c, --config FILE    the gateway config; required
      --server NAME    a virtual server (servers:): its view, rules judged with its name
      --as PRINCIPAL   a subject, or JSON such as '{"subject":"alice","groups":["support"]}'
      --json           the same as JSON
  -h, --help           this help
`,
  audit: `usage:
  gatehouse audit verify [--file NAME] FILE|DIR...
  gatehouse audit tail [--dir DIR] [--file NAME] [-n N] [--follow] [--json]
  gatehouse audit query [--dir DIR] [--file NAME] [--principal GLOB] [--tool GLOB] [--outcome O]
                        [--since ISO] [--until ISO] [--json]

  verify   check the hash chain
  tail     the last records, and with --follow the ones being written
  query    the records that match principal, tool, outcome and time

\`gatehouse audit SUBCOMMAND --help\` describes each one.
`,
  'audit verify': `usage: gatehouse audit verify [--file NAME] FILE|DIR...

Checks the hash chain of the audit FILEs (in the order given, oldest first; a DIR stands for
every file of its chain) and prints OK with the count, or the first broken line and why.
Exit 0 intact, 1 broken, 2 unusable input.

options:
      --file NAME   the chain's file name in a DIR; default gatehouse-audit.jsonl (audit.file)
  -h, --help        this help
`,
  'audit tail': `usage: gatehouse audit tail [--dir DIR] [--file NAME] [-n N] [--follow] [--json]

Prints the last N records of a chain, then with --follow the records as they are written
(across rotations). Exit 0, or 2 on bad usage or unreadable files.

options:
  -d, --dir DIR     the audit directory; default ./audit (audit.dir)
      --file NAME   the chain's file name; default gatehouse-audit.jsonl (audit.file)
  -n, --lines N     how many records; default 10
  -f, --follow      keep printing new records
      --json        the stored JSON lines instead of one summary line each
  -h, --help        this help
`,
  'audit query': `usage: gatehouse audit query [--dir DIR] [--file NAME] [--principal GLOB] [--tool GLOB] [--outcome O]
                           [--since ISO] [--until ISO] [--json]

Prints the records of a chain that match every filter given, oldest first. Exit 0, or 2 on
bad usage or unreadable files.

options:
      --principal GLOB   the caller's subject
      --tool GLOB        the exposed tool name
      --outcome O        ok, tool_error, error, denied, rate_limited, approval_required or cancelled
      --since ISO        at or after this time (ISO 8601)
      --until ISO        before this time
  -d, --dir DIR          the audit directory; default ./audit
      --file NAME        the chain's file name; default gatehouse-audit.jsonl
      --json             the stored JSON lines instead of one summary line each
  -h, --help             this help
`,
  key: `usage: gatehouse key hash [--prefixed] < keyfile

  hash   print the SHA-256 of an API key read from stdin (gatehouse key hash --help)
`,
  'key hash': `usage: gatehouse key hash [--prefixed] < keyfile

Reads one API key from stdin (not argv, so it stays out of shell history) and prints its hex
SHA-256, the value identity.apiKeys[].sha256 stores. The key is never printed back.

options:
      --prefixed   print it as sha256:HEX
  -h, --help       this help
`,
  'user-tokens': `usage: gatehouse user-tokens list|revoke --config FILE ...

  list     who connected which per-user upstream (gatehouse user-tokens list --help)
  revoke   remove one user's tokens for one upstream (gatehouse user-tokens revoke --help)
`,
  'user-tokens list': `usage: gatehouse user-tokens list --config FILE [--upstream NAME] [--principal ID] [--json]

Lists the connections to per-user upstreams in the config's Redis token store (userAuth.store
kind redis): upstream, principal (key:ID, jwt:ISSUER:SUBJECT), expiry, refreshable, scopes.
Never a token. --upstream and --principal filter; --json prints one object per line.
`,
  'user-tokens revoke': `usage: gatehouse user-tokens revoke --config FILE --upstream NAME --principal ID

Removes the principal's tokens for the upstream from the Redis token store; the gateway's next
request for that user asks them to consent again. Exit 0 removed, 1 none there.
`,
};

/** `--help` or `-h` before a `--` that ends the options. */
export function helpRequested(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** The command path (`policy check`, `serve`) that help applies to, from the words on the
 * command line; undefined for words that are not commands (the dispatcher reports those). */
export function helpTopic(words: readonly string[]): string | undefined {
  const [command, sub] = words;
  if (command === undefined || command.startsWith('-')) return '';
  const subs = COMMANDS[command];
  if (subs === undefined) return undefined;
  if (sub === undefined || sub.startsWith('-') || subs.length === 0) return command;
  return subs.includes(sub) ? `${command} ${sub}` : undefined;
}

export function helpText(topic: string): string | undefined {
  return HELP[topic];
}

export const USAGE = helpText('') ?? '';

/** Prints the help for the command path in `words` (or the words after `help`): 0 printed, 2 unknown. */
export function printHelp(words: readonly string[]): number {
  const topic = helpTopic(words);
  const text = topic === undefined ? undefined : helpText(topic);
  if (text === undefined) {
    process.stderr.write(`gatehouse: no help for "${words.join(' ')}"\n${USAGE}`);
    return 2;
  }
  process.stdout.write(text);
  return 0;
}
