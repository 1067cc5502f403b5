// `gatehouse config check`, run as the real command: a config broken in every stage at once
// (schema, ${ENV}, normalisation and the files it reads, checks between fields, files on
// disk, the policy directory and its tests) gets every problem in one run, and nothing that
// is only a consequence of another; a sound config passes with a summary and exit 0.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killStarted, runCliToEnd } from '../harness/cli-process.ts';
import { EVERYTHING_SERVER } from '../harness/gateway.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-config-check-'));
afterAll(() => {
  killStarted();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const check = (config: string, env: NodeJS.ProcessEnv = {}) => runCliToEnd(['config', 'check', '--config', config], { cwd: dir, env });

describe('gatehouse config check', () => {
  it('reports every problem of every stage in one run, each once, and exits 2', async () => {
    write('broken/not-a-dir', 'a file where the audit directory should be\n');
    write('broken/policies/00-base.yaml', 'rules:\n  - id: r1\n    effect: permit\n');
    write('broken/policies/00-base.test.yaml', 'tests:\n  - name: t\n    as: bob\n');
    const config = write('broken/gatehouse.yaml', [
      'maxNameLength: "long"',                                  // 1 schema: wrong type
      'sessions: { secret: abcd }',                             // 2 check: secret too short
      'identity:',
      '  resource: https://gw.example.com/mcp',
      '  apiKeysFile: missing-keys.yaml',                       // 5 normalise: file missing
      'policy: { dir: policies }',
      'audit: { dir: not-a-dir }',                              // 7 disk: not a directory
      'upstreams:',
      '  - name: a',
      '    url: http://127.0.0.1:1/mcp',
      '    timout: 5s',                                         // 11 schema: unknown key
      '    headers:',
      '      X-Token: "${GATEHOUSE_TEST_UNSET}"',                 // 13 ${ENV}: unset
      '      X-File: { file: missing-token }',                  // 14 normalise: file missing
      '  - name: a',                                            // 15 check: duplicate name
      '    url: http://127.0.0.1:2/mcp',
      '  - name: tool',
      '    command: gatehouse-test-no-such-command',            // 18 disk: not on PATH
      '  - name: elsewhere',
      '    command: node',
      '    cwd: no-such-dir',                                   // 21 disk: no such directory
      '',
    ].join('\n'));
    const r = await check(config);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`gatehouse config check: ${config}: ${lines.length - 1} problems`);
    const problems = lines.slice(1);
    const at = (line: number, path: string, text: string) => expect.stringMatching(new RegExp(`^${escape(config)}:${line}:\\d+ ${escape(path)}: .*${escape(text)}`));
    expect(problems).toEqual([
      at(1, '/maxNameLength', 'expected integer'),
      at(2, '/sessions/secret', 'expected a 32-byte key'),
      at(5, '/identity/apiKeysFile', 'no such file'),
      at(7, '/audit/dir', 'not a directory'),
      at(11, '/upstreams/0/timout', 'unknown key "timout"'),
      at(13, '/upstreams/0/headers/X-Token', 'environment variable "GATEHOUSE_TEST_UNSET" is not set'),
      at(14, '/upstreams/0/headers/X-File/file', 'no such file'),
      at(15, '/upstreams/1/name', 'duplicate upstream name "a"'),
      at(18, '/upstreams/2/command', 'command "gatehouse-test-no-such-command" not found on PATH'),
      at(21, '/upstreams/3/cwd', 'no such directory'),
      expect.stringMatching(new RegExp(`^${escape(join(dir, 'broken/policies/00-base.yaml'))}:3:\\d+ /rules/0/effect: expected one of`)),
      expect.stringMatching(new RegExp(`^${escape(join(dir, 'broken/policies/00-base.test.yaml'))}:2:\\d+ /tests/0: a test needs`)),
    ]);
    // Secrets are described, never echoed.
    expect(r.stderr).not.toContain('abcd');
  });

  it('still runs the later stages when a whole upstream is rejected, with the others\' indices as written', async () => {
    const config = write('shifted/gatehouse.yaml', [
      'upstreams:',
      '  - name: broken',                                       // 2 no url, route or command
      '  - name: b',
      '    url: ftp://127.0.0.1/mcp',                           // 4 check: not http(s)
      '',
    ].join('\n'));
    const r = await check(config);
    expect(r.code).toBe(2);
    const problems = r.stderr.trimEnd().split('\n').slice(1);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(new RegExp(`^${escape(config)}:2:\\d+ /upstreams/0: `));
    expect(problems[1]).toMatch(new RegExp(`^${escape(config)}:4:\\d+ /upstreams/1/url: expected an http:// or https:// URL`));
  });

  it('does not report what follows from a problem already reported', async () => {
    // The unset variable leaves the URL empty; "not an http URL" would only restate it.
    const config = write('consequence/gatehouse.yaml', 'upstreams:\n  - name: a\n    url: "${GATEHOUSE_TEST_UNSET_URL}"\n');
    const r = await check(config);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringContaining('/upstreams/0/url: environment variable "GATEHOUSE_TEST_UNSET_URL" is not set'),
    ]);
  });

  it('passes a sound config, its policy and its files, with a summary on stdout', async () => {
    write('sound/policies/00-base.yaml', 'rules:\n  - id: all\n    effect: allow\n    when: { tool: "*" }\n');
    write('sound/policies/00-base.test.yaml', 'tests:\n  - name: echo\n    as: bob\n    call: { tool: ev__echo }\n    expect: allow\n');
    const config = write('sound/gatehouse.yaml', [
      'policy: { dir: policies }',
      'upstreams:',
      '  - name: ev',
      `    command: ${process.execPath}`,
      `    args: ["${EVERYTHING_SERVER}"]`,
      '',
    ].join('\n'));
    const r = await check(config);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${config}: valid`);
    expect(r.stdout).toMatch(/policy +1 rule and 0 pins in 1 file .*1 test case in 1 test file/);
  });

  it('lists the virtual servers of a config that has them, and refuses one naming no upstream', async () => {
    const config = write('servers/gatehouse.yaml', ['upstreams:', `  - { name: ev, command: ${process.execPath} }`, 'servers:', '  - { name: team, host: t.example }', '  - { name: solo, path: /solo, upstreams: [ev], prefix: none }', ''].join('\n'));
    const r = await check(config);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  servers    team (t.example/mcp/team: ev); solo (/solo: ev)\n');
    const bad = write('servers/bad.yaml', ['upstreams:', `  - { name: ev, command: ${process.execPath} }`, 'servers:', '  - { name: team, upstreams: [nope] }', ''].join('\n'));
    const refused = await check(bad);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad}:4:31 /servers/0/upstreams/0: no upstream is named "nope" (upstreams: ev)`);
  });

  it('names an unreadable config and exits 2, and defaults to ./gatehouse.yaml', async () => {
    const r = await runCliToEnd(['config', 'check'], { cwd: join(dir, 'sound') });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('gatehouse.yaml: valid');
    const missing = await check(join(dir, 'nope.yaml'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.yaml: cannot read the config file: no such file');
  });

  it('refuses unknown options and subcommands with the usage, exit 2', async () => {
    const option = await runCliToEnd(['config', 'check', '--frob']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('usage: gatehouse config check');
    const sub = await runCliToEnd(['config', 'lint']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('unknown subcommand "lint"');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
