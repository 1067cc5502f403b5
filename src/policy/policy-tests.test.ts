import { describe, expect, it } from 'vitest';
import { formatIssue } from '../config/config-error.ts';
import { parsePolicyFiles } from './load-policy.ts';
import { actionFrom, parsePolicyTests, principalFrom, runPolicyTests } from './policy-tests.ts';

const policy = parsePolicyFiles([
  {
    file: 'p.yaml',
    text: `rules:
  - { id: analysts, effect: allow, when: { principal: [{ groups: [analysts] }], tool: "weather__*" } }
  - { id: review, effect: approve, approval: { approver: console }, when: { tool: weather__alerts } }
`,
  },
]);

function casesOf(text: string) {
  const parsed = parsePolicyTests({ file: 't.test.yaml', text });
  if (!parsed.ok) throw new Error(parsed.error.map(formatIssue).join('\n'));
  return parsed.value;
}

function issuesOf(text: string): string[] {
  const parsed = parsePolicyTests({ file: 't.test.yaml', text });
  return parsed.ok ? [] : parsed.error.map(formatIssue);
}

describe('policy tests', () => {
  it('turns cases into principals and actions and reports pass/fail with the deciding rule', () => {
    const results = runPolicyTests(
      policy,
      casesOf(`tests:
  - name: analysts forecast
    as: { subject: alice, groups: [analysts] }
    call: { tool: weather__forecast, arguments: { days: 2 }, params: { Region: eu-west } }
    expect: allow
    expectRule: analysts
  - name: wrong rule expected
    as: { subject: alice, groups: [analysts] }
    call: { tool: weather__alerts }
    expect: approve
    expectRule: analysts
  - name: hidden from guests
    as: bob
    list: { tool: weather__forecast }
    expect: hidden
  - name: wrongly expected visible
    as: bob
    list: { tool: weather__forecast }
    expect: visible
`),
    );
    expect(results.map((r) => [r.test.name, r.passed, r.actual, r.ruleId])).toEqual([
      ['analysts forecast', true, 'allow', 'analysts'],
      ['wrong rule expected', false, 'approve', 'review'],
      ['hidden from guests', true, 'hidden', 'default'],
      ['wrongly expected visible', false, 'hidden', 'default'],
    ]);
    expect(results[0]!.test).toMatchObject({
      file: 't.test.yaml',
      line: 2,
      action: { kind: 'tool', operation: 'call', upstream: 'weather', upstreamName: 'forecast', params: { 'Mcp-Param-Region': 'eu-west' } },
    });
  });

  it('reports malformed test files with positions', () => {
    expect(issuesOf('tests:\n  - name: x\n    as: bob\n    call: { tool: a__b }\n    expect: visible\n')).toEqual([
      't.test.yaml:5:13 /tests/0/expect: a `call` test expects allow, deny or approve',
    ]);
    expect(issuesOf('tests:\n  - name: x\n    as: bob\n    expect: allow\n')).toEqual([
      't.test.yaml:2:5 /tests/0: a test needs `name`, `as`, `expect` and exactly one of `call` or `list`',
    ]);
    expect(issuesOf('tests:\n  - name: x\n    as: bob\n    call: { tool: nounderscore }\n    expect: allow\n')).toEqual([
      't.test.yaml:4:11 /tests/0/call: `upstream` is needed: "nounderscore" has no "__" prefix to take it from',
    ]);
    expect(issuesOf('tests: [')[0]).toMatch(/^t\.test\.yaml:1:\d+: invalid YAML/);
  });

  it('builds principals: a subject string, an object, anonymous', () => {
    expect(principalFrom('alice')).toEqual({ ok: true, value: { subject: 'alice', groups: [], scopes: [], claims: {}, method: 'api_key', authContext: 'alice' } });
    expect(principalFrom({ anonymous: true })).toMatchObject({ ok: true, value: { subject: 'anonymous', method: 'anonymous' } });
    expect(principalFrom({ subject: 'a', claims: { x: 1 } })).toMatchObject({ ok: true, value: { method: 'jwt', claims: { x: 1 } } });
    expect(principalFrom({ groups: ['x'] })).toEqual({ ok: false, error: 'a principal needs `subject` (or `anonymous: true`)' });
  });

  it('takes the upstream from the name prefix unless given', () => {
    expect(actionFrom({ tool: 'a__b__c' }, 'call')).toMatchObject({ ok: true, value: { upstream: 'a', upstreamName: 'b__c' } });
    expect(actionFrom({ tool: 'gh.search', upstream: 'github' }, 'call')).toMatchObject({ ok: true, value: { upstream: 'github', upstreamName: 'gh.search' } });
    expect(actionFrom({ resource: 'file:///x', upstream: 'fs' }, 'list')).toMatchObject({ ok: true, value: { kind: 'resource', name: 'file:///x', upstreamName: 'file:///x' } });
  });
});
