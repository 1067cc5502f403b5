// The example policies in policies/ come with tests (policies/*.test.yaml); `npm test` runs
// them here, so an example that stops doing what its tests say fails the build.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/config/config-error.ts';
import { loadPolicyDir, readSource } from '../../src/policy/load-policy.ts';
import { parsePolicyTests, runPolicyTests, type PolicyTestResult } from '../../src/policy/policy-tests.ts';

const POLICIES = fileURLToPath(new URL('../../policies/', import.meta.url));
const policy = loadPolicyDir(POLICIES);
const scratch = mkdtempSync(path.join(tmpdir(), 'gatehouse-examples-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runFile(file: string): PolicyTestResult[] {
  const parsed = parsePolicyTests({ file, text: readSource(file) });
  if (!parsed.ok) throw new Error(parsed.error.map(formatIssue).join('\n'));
  return runPolicyTests(policy, parsed.value);
}

describe('example policies', () => {
  const testFiles = readdirSync(POLICIES).filter((f) => f.endsWith('.test.yaml')).sort();

  it('come with test files', () => {
    expect(testFiles).toEqual(['00-baseline.test.yaml', '10-weather.test.yaml', '20-approvals.test.yaml']);
  });

  for (const name of testFiles) {
    it(`pass ${name}`, () => {
      const results = runFile(path.join(POLICIES, name));
      expect(results.length).toBeGreaterThan(0);
      const failures = results.filter((r) => !r.passed).map((r) => `${r.test.name}: got ${r.actual} by ${r.ruleId} (${r.reason})`);
      expect(failures).toEqual([]);
    });
  }

  it('the runner reports a case that does not hold as failed', () => {
    const file = path.join(scratch, 'wrong.test.yaml');
    writeFileSync(
      file,
      `tests:
  - name: admins may dump the environment (they may not)
    as: { subject: root, groups: [admins] }
    call: { tool: everything__get-env }
    expect: allow
  - name: echo is allowed
    as: bob
    call: { tool: everything__echo }
    expect: allow
`,
    );
    const results = runFile(file);
    expect(results.map((r) => [r.passed, r.actual, r.ruleId])).toEqual([
      [false, 'deny', 'no-environment-dumps'],
      [true, 'allow', 'everyone-readonly-demo-tools'],
    ]);
  });
});
