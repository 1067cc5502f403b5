// `gatehouse policy test [FILE.test.yaml ...] [--dir DIR]`: run policy test cases and print
// each one's pass/fail and a closing `N passed, M failed` line. Without --dir, each file is
// tested against the policies in its own directory; without files, every *.test.yaml in
// DIR (default ./policies) runs. Exit 0 all passed, 1 any failed, 2 invalid files.
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/config-error.ts';
import type { CompiledPolicy } from '../policy/compile-policy.ts';
import { isPolicyTestFileName, listDirectory, readSource } from '../policy/load-policy.ts';
import { PolicyError } from '../policy/policy-error.ts';
import { parsePolicyTests, runPolicyTests, type PolicyTestResult } from '../policy/policy-tests.ts';
import { DEFAULT_POLICY_DIR, loadPolicyForCli, parseDefaultEffect, printInvalid, usageError } from './policy-options.ts';

export function policyTestCommand(argv: string[]): number {
  let values: { dir?: string; 'default-effect'?: string; server?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { dir: { type: 'string', short: 'd' }, 'default-effect': { type: 'string' }, server: { type: 'string' } } }));
  } catch (e) {
    return usageError('test', (e as Error).message);
  }
  const defaultEffect = parseDefaultEffect('test', values['default-effect']);
  if (typeof defaultEffect === 'number') return defaultEffect;
  let files: string[];
  try {
    files = positionals.length > 0 ? positionals : listDirectory(values.dir ?? DEFAULT_POLICY_DIR, isPolicyTestFileName);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    printInvalid(values.dir ?? DEFAULT_POLICY_DIR, e);
    return 2;
  }
  if (files.length === 0) return usageError('test', `no *.test.yaml files in ${values.dir ?? DEFAULT_POLICY_DIR}`);

  const policies = new Map<string, CompiledPolicy>();
  const results: PolicyTestResult[] = [];
  for (const file of files) {
    const dir = values.dir ?? dirname(file);
    let policy = policies.get(dir);
    if (policy === undefined) {
      const loaded = loadPolicyForCli(dir, defaultEffect);
      if (typeof loaded === 'number') return loaded;
      policies.set(dir, (policy = loaded));
    }
    let text: string;
    try {
      text = readSource(file);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      printInvalid(file, e);
      return 2;
    }
    const parsed = parsePolicyTests({ file, text });
    if (!parsed.ok) {
      printInvalid(file, new PolicyError(parsed.error));
      return 2;
    }
    process.stdout.write(`${file}  [policy dir: ${dir}]\n`);
    for (const result of runPolicyTests(policy, parsed.value, values.server)) {
      results.push(result);
      process.stdout.write(formatResult(result));
    }
  }
  const failed = results.filter((r) => !r.passed).length;
  process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}

export function formatResult(r: PolicyTestResult): string {
  if (r.passed) return `  pass  ${r.test.name}\n`;
  const where = `${r.test.file}${r.test.line === undefined ? '' : `:${r.test.line}`}`;
  const expected = `${r.test.expect}${r.test.expectRule === undefined ? '' : ` by rule "${r.test.expectRule}"`}`;
  return `  FAIL  ${r.test.name} (${where})\n        expected ${expected}, got ${r.actual} by rule "${r.ruleId}": ${r.reason}\n`;
}
