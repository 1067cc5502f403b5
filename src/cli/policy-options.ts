// What the `gatehouse policy` subcommands share: usage text, the common options, loading the
// policy directory with every problem printed, exit code 2 for bad input.
import { ConfigError, formatIssue } from '../config/config-error.ts';
import type { CompiledPolicy, DefaultEffect } from '../policy/compile-policy.ts';
import { loadPolicyDir } from '../policy/load-policy.ts';

export const POLICY_USAGE = `usage:
  gatehouse policy check [--dir DIR] [--default-effect deny|allow]
  gatehouse policy explain [--dir DIR] --as PRINCIPAL (--call TOOL | --prompt NAME | --resource URI)
                           [--upstream U] [--server S] [--args JSON] [--params 'Name=value,...'] [--list] [--json]
  gatehouse policy test [FILE.test.yaml ...] [--dir DIR] [--server S]
  gatehouse policy pin --config GATEWAY.yaml [--tool GLOB ...] [--include-annotations]
DIR defaults to ./policies (for test: the directory of each test file). --server S judges as on the
virtual server S (rules with \`when.server\`); for test, in every case that names no server. PRINCIPAL is a subject
or JSON such as '{"subject":"alice","groups":["analysts"]}'.`;

export const DEFAULT_POLICY_DIR = 'policies';

/** Writes a usage error for `gatehouse policy <sub>` and returns exit code 2. */
export function usageError(sub: string, message: string): number {
  process.stderr.write(`gatehouse policy ${sub}: ${message}\n${POLICY_USAGE}\n`);
  return 2;
}

export function parseDefaultEffect(sub: string, value: string | undefined): DefaultEffect | number {
  if (value === undefined || value === 'deny') return 'deny';
  if (value === 'allow') return 'allow';
  return usageError(sub, `--default-effect must be deny or allow, got "${value}"`);
}

/** The compiled policy, or exit code 2 after printing every problem. */
export function loadPolicyForCli(dir: string, defaultEffect: DefaultEffect): CompiledPolicy | number {
  try {
    return loadPolicyDir(dir, { defaultEffect });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    printInvalid(dir, e);
    return 2;
  }
}

export function printInvalid(what: string, e: ConfigError): void {
  const n = e.issues.length;
  process.stderr.write(`gatehouse: invalid policy in ${what} (${n} problem${n === 1 ? '' : 's'})\n${e.issues.map(formatIssue).join('\n')}\n`);
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
