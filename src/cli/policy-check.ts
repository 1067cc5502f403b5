// `gatehouse policy check [--dir DIR]`: validate every policy file and every *.test.yaml in
// the directory (their shape, not their outcome: `policy test` runs them), print what was
// loaded, exit 0, or 2 with all problems.
import { parseArgs } from 'node:util';
import type { ConfigIssue } from '../config/config-error.ts';
import { PolicyError } from '../policy/policy-error.ts';
import { isPolicyTestFileName, listDirectory, readSource } from '../policy/load-policy.ts';
import { parsePolicyTests } from '../policy/policy-tests.ts';
import { DEFAULT_POLICY_DIR, loadPolicyForCli, parseDefaultEffect, plural, printInvalid, usageError } from './policy-options.ts';

export function policyCheckCommand(argv: string[]): number {
  let values: { dir?: string; 'default-effect'?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { dir: { type: 'string', short: 'd' }, 'default-effect': { type: 'string' } } }));
  } catch (e) {
    return usageError('check', (e as Error).message);
  }
  const dir = values.dir ?? DEFAULT_POLICY_DIR;
  const defaultEffect = parseDefaultEffect('check', values['default-effect']);
  if (typeof defaultEffect === 'number') return defaultEffect;
  const policy = loadPolicyForCli(dir, defaultEffect);
  if (typeof policy === 'number') return policy;

  const testIssues: ConfigIssue[] = [];
  let cases = 0;
  const testFiles = listDirectory(dir, isPolicyTestFileName);
  for (const file of testFiles) {
    const parsed = parsePolicyTests({ file, text: readSource(file) });
    if (parsed.ok) cases += parsed.value.length;
    else testIssues.push(...parsed.error);
  }
  if (testIssues.length > 0) {
    printInvalid(dir, new PolicyError(testIssues));
    return 2;
  }
  process.stdout.write(
    `${dir}: ${plural(policy.rules.length, 'rule')} and ${plural(policy.pins.size, 'pin')} in ${plural(policy.files.length, 'file')}, ` +
      `default effect ${policy.defaultEffect}, version ${policy.version}; ` +
      `${plural(cases, 'test case')} in ${plural(testFiles.length, 'test file')}\n`,
  );
  return 0;
}
