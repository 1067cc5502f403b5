// `gatehouse policy check | explain | test` as a user runs them: the real binary, exit codes,
// stdout for results and stderr for problems.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const POLICIES = path.join(ROOT, 'policies');
const scratch = mkdtempSync(path.join(tmpdir(), 'gatehouse-policy-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function gatehouse(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/gatehouse.js'), 'policy', ...args], { cwd: scratch, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function write(name: string, text: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, text);
  return file;
}

describe('gatehouse policy check', () => {
  it('exits 0 and counts rules, pins and test cases of a valid directory', () => {
    const r = gatehouse('check', '--dir', POLICIES);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^.*policies: 10 rules and 0 pins in 3 files, default effect deny, version [0-9a-f]{16}; 23 test cases in 3 test files\n$/);
  });

  it('exits 2 listing every problem with file:line:column', () => {
    const dir = mkdtempSync(path.join(scratch, 'bad-'));
    writeFileSync(path.join(dir, '00-a.yaml'), 'rules:\n  - id: a\n    effect: allow\n  - id: a\n    effect: nope\n');
    writeFileSync(path.join(dir, '10-b.yaml'), 'rules:\n  - { id: a, effect: deny }\n');
    const r = gatehouse('check', '--dir', dir);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `gatehouse: invalid policy in ${dir} (2 problems)\n` +
        `${dir}/00-a.yaml:5:13 /rules/1/effect: expected one of "allow", "deny", "approve", got "nope"\n` +
        `${dir}/10-b.yaml:2:11 /rules/0/id: duplicate rule id "a": already defined at ${dir}/00-a.yaml:2\n`,
    );
  });

  it('exits 2 for a missing directory, and reads ./policies by default', () => {
    const r = gatehouse('check');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('policies: cannot read the policy directory: no such directory');
  });

  it('exits 2 on bad usage', () => {
    expect(gatehouse('frobnicate').status).toBe(2);
    expect(gatehouse('check', '--default-effect', 'maybe').status).toBe(2);
  });
});

describe('gatehouse policy explain', () => {
  it('prints the decision, the deciding rule and every rule with why it matched or not', () => {
    const r = gatehouse(
      'explain', '--dir', POLICIES,
      '--as', '{"subject":"erik","groups":["eu-analysts"]}',
      '--call', 'weather__forecast', '--args', '{"region":"eu-west","days":2}', '--params', 'Region=eu-west',
    );
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'calling tool "weather__forecast" on upstream "weather"',
      'decision: allow',
      'rule:     eu-analysts-forecast',
      'reason:   allowed by rule "eu-analysts-forecast" (10-weather.yaml:19): EU analysts may forecast EU regions (up to three days)',
    ]);
    expect(r.stdout).toMatch(/ {2}match {2}eu-analysts-forecast +allow +\S+10-weather\.yaml:19\n/);
    expect(r.stdout).toContain('- principal: entry 1: groups ["eu-analysts"] have none of ["analysts"]');
    expect(r.stdout).toContain('+ params: Region "eu-west" matches "eu-*"');
  });

  it('explains visibility with --list and takes a bare subject', () => {
    const r = gatehouse('explain', '--dir', POLICIES, '--as', 'bob', '--call', 'everything__get-env', '--list');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('decision: hidden\nrule:     no-environment-dumps\n');
  });

  it('prints JSON with --json', () => {
    const r = gatehouse('explain', '--dir', POLICIES, '--as', 'bob', '--call', 'everything__gzip-file-as-resource', '--json');
    expect(r.status).toBe(0);
    const e = JSON.parse(r.stdout);
    expect(e.decision).toMatchObject({ effect: 'approve', ruleId: 'gzip-needs-approval', approval: { approver: 'console', timeoutMs: 300000 } });
    expect(e.rules).toHaveLength(10);
  });

  it('exits 2 on a bad principal or arguments', () => {
    expect(gatehouse('explain', '--dir', POLICIES, '--as', '{"groups": "x"}', '--call', 'a__b').status).toBe(2);
    expect(gatehouse('explain', '--dir', POLICIES, '--as', 'bob', '--call', 'a__b', '--args', '[1]').stderr).toContain('--args must be a JSON object');
    expect(gatehouse('explain', '--dir', POLICIES, '--call', 'a__b').stderr).toContain('--as is required');
  });
});

describe('gatehouse policy test', () => {
  it('runs every *.test.yaml of the directory and exits 0 when all pass', () => {
    const r = gatehouse('test', '--dir', POLICIES);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('  pass  hidden from guests\n');
    expect(r.stdout.endsWith('23 passed, 0 failed\n')).toBe(true);
  });

  it('exits 1 and says what happened instead when a case fails', () => {
    const file = write(
      'mixed.test.yaml',
      'tests:\n  - { name: echo works, as: bob, call: { tool: everything__echo }, expect: allow }\n  - { name: guests forecast, as: bob, call: { tool: weather__forecast }, expect: allow }\n',
    );
    const r = gatehouse('test', file, '--dir', POLICIES);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('  pass  echo works\n');
    expect(r.stdout).toContain(`  FAIL  guests forecast (${file}:3)\n        expected allow, got deny by rule "default": no rule matched; the default effect is deny\n`);
    expect(r.stdout.endsWith('1 passed, 1 failed\n')).toBe(true);
  });

  it('exits 2 for a malformed test file', () => {
    const file = write('broken.test.yaml', 'tests:\n  - { name: x, as: bob, expect: allow }\n');
    const r = gatehouse('test', file, '--dir', POLICIES);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}:2:5 /tests/0: a test needs`);
  });

  it('tests a file against the policies in its own directory by default', () => {
    const r = gatehouse('test', path.join(POLICIES, '20-approvals.test.yaml'));
    expect(r.status).toBe(0);
    expect(r.stdout.endsWith('5 passed, 0 failed\n')).toBe(true);
  });
});
