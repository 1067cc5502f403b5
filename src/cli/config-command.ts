// `gatehouse config check [--config FILE]`: everything `serve` would refuse at boot, found
// without starting anything, and all of it in one run: the config's own problems (every
// loading stage, load-config.ts), the files it names on disk (check-referenced-files.ts),
// and the policy directory with the shape of its tests. Exit 0 valid (a summary on stdout),
// 2 any problem (one line each on stderr, as `serve` prints them), as `serve` exits 2.
import { parseArgs } from 'node:util';
import { ConfigError, formatIssue, type ConfigIssue } from '../config/config-error.ts';
import { checkReferencedFiles } from '../config/check-referenced-files.ts';
import { collectConfigFile } from '../config/load-config.ts';
import type { GatewayConfig } from '../config/types.ts';
import type { CompiledPolicy } from '../policy/compile-policy.ts';
import { isPolicyTestFileName, listDirectory, loadPolicyDir, readSource } from '../policy/load-policy.ts';
import { parsePolicyTests } from '../policy/policy-tests.ts';

export const CONFIG_USAGE = 'usage: gatehouse config check [--config FILE]';
const DEFAULT_CONFIG = 'gatehouse.yaml';

export function configCommand(argv: string[]): number {
  const [sub, ...rest] = argv;
  if (sub === 'check') return configCheckCommand(rest);
  process.stderr.write(`gatehouse config: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}\n${CONFIG_USAGE}\n`);
  return 2;
}

export function configCheckCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): number {
  let file: string;
  try {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
    file = values.config ?? DEFAULT_CONFIG;
  } catch (e) {
    process.stderr.write(`gatehouse config check: ${(e as Error).message}\n${CONFIG_USAGE}\n`);
    return 2;
  }
  const collected = collectConfigFile(file, env);
  const issues: ConfigIssue[] = [...collected.issues];
  let policy: PolicySummary | undefined;
  const partial = collected.partial;
  if (partial !== undefined && collected.issueAt !== undefined) {
    for (const f of checkReferencedFiles(partial, env)) issues.push(collected.issueAt(f.path, f.message));
    if (partial.policy !== undefined) {
      const checked = checkPolicyDir(partial.policy.dir, partial.policy.defaultEffect);
      issues.push(...checked.issues);
      policy = checked.summary;
    }
  }
  if (issues.length > 0) {
    // ConfigError orders by line and drops exact repeats; files keep the order they were
    // checked in (the config, then the policy files, then their tests).
    const files = [...new Set(issues.map((i) => i.file))];
    const all = [...new ConfigError(issues).issues].sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file));
    process.stderr.write(`gatehouse config check: ${file}: ${all.length} problem${all.length === 1 ? '' : 's'}\n${all.map(formatIssue).join('\n')}\n`);
    return 2;
  }
  process.stdout.write(summary(file, partial as GatewayConfig, policy));
  return 0;
}

interface PolicySummary {
  policy: CompiledPolicy | undefined;
  cases: number;
  testFiles: number;
}

/** The policy as serve compiles it, and the shape of every *.test.yaml beside it. */
function checkPolicyDir(dir: string, defaultEffect: 'deny' | 'allow'): { issues: ConfigIssue[]; summary: PolicySummary } {
  const issues: ConfigIssue[] = [];
  let policy: CompiledPolicy | undefined;
  try {
    policy = loadPolicyDir(dir, { defaultEffect });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    issues.push(...e.issues);
  }
  let cases = 0;
  let testFiles: string[] = [];
  try {
    testFiles = listDirectory(dir, isPolicyTestFileName);
    for (const test of testFiles) {
      const parsed = parsePolicyTests({ file: test, text: readSource(test) });
      if (parsed.ok) cases += parsed.value.length;
      else issues.push(...parsed.error);
    }
  } catch (e) {
    // An unreadable directory was reported by the policy load just above.
    if (!(e instanceof ConfigError)) throw e;
    issues.push(...e.issues);
  }
  return { issues, summary: { policy, cases, testFiles: testFiles.length } };
}

function summary(file: string, config: GatewayConfig, policy: PolicySummary | undefined): string {
  const count = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const identity = config.identity === undefined
    ? 'none (every caller anonymous)'
    : [count(config.identity.apiKeys.length, 'API key'), ...(config.identity.jwt ? ['JWT'] : []), ...(config.identity.anonymous.enabled ? ['anonymous'] : [])].join(', ');
  const lines = [
    `${file}: valid`,
    `  listen     ${config.listen.host}:${config.listen.port}${config.listen.path}`,
    `  upstreams  ${config.upstreams.map((u) => `${u.name} (${u.kind})`).join(', ')}`,
    ...(config.servers.length === 0 ? [] : [`  servers    ${config.servers.map((s) => `${s.name} (${s.host ?? ''}${s.path}: ${s.upstreams.join(', ')})`).join('; ')}`]),
    `  identity   ${identity}`,
    `  policy     ${policy?.policy === undefined ? 'none (every caller may call everything)' : `${count(policy.policy.rules.length, 'rule')} and ${count(policy.policy.pins.size, 'pin')} in ${count(policy.policy.files.length, 'file')} (${config.policy?.dir}), default ${policy.policy.defaultEffect}; ${count(policy.cases, 'test case')} in ${count(policy.testFiles, 'test file')}`}`,
    `  approvals  ${config.approvals === undefined ? 'off' : 'on'}`,
    `  audit      ${config.audit.enabled ? config.audit.dir : 'off'}`,
  ];
  return `${lines.join('\n')}\n`;
}
