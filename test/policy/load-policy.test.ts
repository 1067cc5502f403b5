import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import type { Principal } from '../../src/identity/principal.ts';
import { loadPolicyDir, parsePolicyFiles, tryParsePolicyFiles } from '../../src/policy/load-policy.ts';

const bob: Principal = { subject: 'bob', groups: [], scopes: [], claims: {}, method: 'api_key', authContext: 'bob' };

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gatehouse-policy-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(root, 'p-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e.format();
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('loadPolicyDir', () => {
  it('loads *.yaml and *.yml in file-name order, skipping tests, hidden files, other files and subdirectories', () => {
    const dir = dirWith({
      '20-b.yml': 'rules: [{ id: b, effect: allow }]',
      '10-a.yaml': 'rules: [{ id: a, effect: allow }]',
      '10-a.test.yaml': 'tests: []',
      '.swap.yaml': 'garbage: [',
      'README.md': '# not a policy',
      'sub/30-c.yaml': 'rules: [{ id: c, effect: allow }]',
    });
    const policy = loadPolicyDir(dir);
    expect(policy.files).toEqual([path.join(dir, '10-a.yaml'), path.join(dir, '20-b.yml')]);
    expect(policy.rules.map((r) => r.id)).toEqual(['a', 'b']);
    expect(policy.rules[0]).toEqual({ id: 'a', file: path.join(dir, '10-a.yaml'), line: 1, effect: 'allow' });
  });

  it('names a missing directory', () => {
    const missing = path.join(root, 'nope');
    expect(errorOf(() => loadPolicyDir(missing))).toBe(`${missing}: cannot read the policy directory: no such directory`);
    const file = path.join(dirWith({ 'x.yaml': '' }), 'x.yaml');
    expect(errorOf(() => loadPolicyDir(file))).toBe(`${file}: the policy directory is not a directory`);
  });

  it('reports every problem in every file with file:line:column and the JSON path, grouped by file', () => {
    const dir = dirWith({
      '00-a.yaml': `rules:
  - id: one
    effect: allow
    when:
      tool: []
      principal: [{ groupz: [x] }]
  - id: two
    effect: approve
`,
      '10-b.yaml': `rules:
  - id: three
    effect: maybe
    rateLimit: { capacity: 5 }
pins:
  - { tool: a__b, sha256: ABC }
`,
    });
    const a = path.join(dir, '00-a.yaml');
    const b = path.join(dir, '10-b.yaml');
    expect(errorOf(() => loadPolicyDir(dir)).split('\n')).toEqual([
      `${a}:5:13 /rules/0/when/tool: expected a glob or a non-empty list of globs`,
      `${a}:6:21 /rules/0/when/principal/0/groupz: unknown key "groupz" (allowed: subject, groups, scopes, claims, anonymous)`,
      `${a}:7:5 /rules/1: effect approve needs \`approval: { approver: <channel> }\``,
      `${b}:3:13 /rules/0/effect: expected one of "allow", "deny", "approve", got "maybe"`,
      `${b}:4:16 /rules/0/rateLimit: rateLimit needs \`capacity\` and exactly one of perSecond, perMinute, perHour`,
      `${b}:6:27 /pins/0/sha256: expected 64 lowercase hex digits, got "ABC"`,
    ]);
  });

  it('rejects duplicate rule ids and duplicate pins across files, naming both places', () => {
    const hash = 'a'.repeat(64);
    const dir = dirWith({
      '00-a.yaml': `rules:\n  - { id: same, effect: allow }\npins:\n  - { tool: w__f, sha256: ${hash} }\n`,
      '10-b.yaml': `rules:\n  - { id: other, effect: deny }\n  - { id: same, effect: deny }\npins:\n  - { tool: w__f, sha256: ${hash} }\n`,
    });
    const a = path.join(dir, '00-a.yaml');
    const b = path.join(dir, '10-b.yaml');
    expect(errorOf(() => loadPolicyDir(dir)).split('\n')).toEqual([
      `${b}:3:11 /rules/1/id: duplicate rule id "same": already defined at ${a}:2`,
      `${b}:5:13 /pins/0/tool: duplicate pin for tool "w__f": already pinned at ${a}:4`,
    ]);
  });

  it('reports YAML syntax errors and arguments schemas that do not compile', () => {
    expect(errorOf(() => parsePolicyFiles([{ file: 'bad.yaml', text: 'rules: [\n' }]))).toMatch(/^bad\.yaml:2:1: invalid YAML: /);
    expect(
      errorOf(() =>
        parsePolicyFiles([
          {
            file: 'args.yaml',
            text: 'rules:\n  - id: r\n    effect: allow\n    when:\n      arguments: { properties: { days: { maximun: 3 } } }\n  - id: s\n    effect: allow\n    when:\n      arguments: { properties: { days: { maximum: "3" } } }\n',
          },
        ]),
      ).split('\n'),
    ).toEqual([
      'args.yaml:5:18 /rules/0/when/arguments: invalid arguments schema: strict mode: unknown keyword: "maximun"',
      'args.yaml:9:18 /rules/1/when/arguments: invalid arguments schema: arguments/properties/days/maximum must be number',
    ]);
  });

  it('reports rule problems as values through tryParsePolicyFiles (for hot reload)', () => {
    const result = tryParsePolicyFiles([{ file: 'x.yaml', text: 'rulez: []' }]);
    expect(result).toEqual({ ok: false, error: [{ file: 'x.yaml', path: '/rulez', line: 1, column: 1, message: 'unknown key "rulez" (allowed: rules, pins, tests)' }] });
  });

  it('changes the version when a file, its name or the default effect changes, and only then', () => {
    const files = [{ file: '/a/00-a.yaml', text: 'rules: [{ id: a, effect: allow }]' }];
    const v = parsePolicyFiles(files).version;
    expect(v).toMatch(/^[0-9a-f]{16}$/);
    expect(parsePolicyFiles([{ ...files[0]!, file: '/elsewhere/00-a.yaml' }]).version).toBe(v);
    expect(parsePolicyFiles([{ ...files[0]!, text: files[0]!.text + ' ' }]).version).not.toBe(v);
    expect(parsePolicyFiles([{ ...files[0]!, file: '/a/01-a.yaml' }]).version).not.toBe(v);
    expect(parsePolicyFiles(files, { defaultEffect: 'allow' }).version).not.toBe(v);
  });

  it('decides with the loaded rules', () => {
    const dir = dirWith({ 'p.yaml': 'rules: [{ id: echo, effect: allow, when: { tool: everything__echo } }]' });
    const action = { kind: 'tool', operation: 'call', upstream: 'everything', name: 'everything__echo', upstreamName: 'echo' } as const;
    expect(loadPolicyDir(dir).decide(bob, action).ruleId).toBe('echo');
  });
});
