// `gatehouse policy explain --server` and `policy test --server` as a user runs them: a rule
// with `when.server` decides on that server only, and never on the default endpoint.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-policy-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(
  path.join(dir, '10-servers.yaml'),
  'rules:\n  - id: github-for-team-a\n    effect: allow\n    when: { server: team-a, tool: "github__*" }\n',
);

function gatehouse(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/gatehouse.js'), 'policy', ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('gatehouse policy explain --server', () => {
  it('allows the call on the server the rule names, and says which server', () => {
    const r = gatehouse('explain', '--dir', dir, '--as', 'alice', '--call', 'github__create_issue', '--server', 'team-a');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('calling tool "github__create_issue" on upstream "github" through server "team-a"\ndecision: allow\nrule:     github-for-team-a');
    expect(r.stdout).toContain('+ server: "team-a" matches "team-a"');
  });

  it('denies it on another server and on the default endpoint, naming the failed condition', () => {
    const other = gatehouse('explain', '--dir', dir, '--as', 'alice', '--call', 'github__create_issue', '--server', 'team-b');
    expect(other.stdout).toContain('decision: deny');
    expect(other.stdout).toContain('- server: "team-b" matches none of ["team-a"]');
    const none = gatehouse('explain', '--dir', dir, '--as', 'alice', '--call', 'github__create_issue');
    expect(none.stdout).toContain('decision: deny');
    expect(none.stdout).toContain('- server: the call is on the default endpoint, not a virtual server');
  });
});

describe('gatehouse policy test --server', () => {
  const file = path.join(dir, 'servers.test.yaml');
  writeFileSync(
    file,
    [
      'tests:',
      '  - { name: on team-a by its own server, as: alice, call: { tool: github__x, server: team-a }, expect: allow }',
      '  - { name: with no server of its own, as: alice, call: { tool: github__x }, expect: allow }',
      '',
    ].join('\n'),
  );

  it('applies --server to cases without a server of their own', () => {
    const r = gatehouse('test', file, '--server', 'team-a');
    expect(r.stdout).toContain('2 passed, 0 failed');
    expect(r.status).toBe(0);
  });

  it('without --server, a case without a server is on the default endpoint', () => {
    const r = gatehouse('test', file);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('FAIL  with no server of its own');
    expect(r.stdout).toContain('1 passed, 1 failed');
  });
});
