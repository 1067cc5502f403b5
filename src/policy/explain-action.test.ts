import { describe, expect, it } from 'vitest';
import type { Principal } from '../identity/principal.ts';
import type { PolicyAction } from './decision.ts';
import { parsePolicyFiles } from './load-policy.ts';

const erik: Principal = { subject: 'erik', groups: ['eu-analysts'], scopes: [], claims: { dept: 'ops' }, method: 'jwt', authContext: 'erik' };
const forecast: PolicyAction = {
  kind: 'tool',
  operation: 'call',
  upstream: 'weather',
  name: 'weather__forecast',
  upstreamName: 'forecast',
  arguments: { region: 'us-east', days: 5 },
  params: { 'Mcp-Param-Region': 'us-east' },
};

const policy = parsePolicyFiles([
  {
    file: 'policies/10-weather.yaml',
    text: `rules:
  - id: eu
    description: EU analysts, EU regions
    effect: allow
    when:
      principal: [{ groups: [eu-analysts] }, { claims: { dept: finance } }]
      tool: "weather__*"
      params: { Region: "eu-*" }
      arguments: { properties: { days: { maximum: 3 } } }
  - { id: anything, effect: allow }
  - { id: prompts, effect: deny, when: { prompt: "*" } }
`,
  },
]);

describe('explain', () => {
  it('gives the decision and every rule with each condition judged', () => {
    const e = policy.explain(erik, forecast);
    expect(e.decision).toEqual(policy.decide(erik, forecast));
    expect(e.decision.ruleId).toBe('anything');
    expect(e.rules.map((r) => [r.ruleId, r.outcome, r.counted])).toEqual([
      ['eu', 'failed', false],
      ['anything', 'matched', true],
      ['prompts', 'failed', false],
    ]);
    const eu = e.rules[0]!;
    expect(eu).toMatchObject({ file: 'policies/10-weather.yaml', line: 2, effect: 'allow', description: 'EU analysts, EU regions' });
    expect(eu.conditions).toEqual([
      { condition: 'tool', outcome: 'matched', detail: '"weather__forecast" matches "weather__*"' },
      { condition: 'principal', outcome: 'matched', detail: 'entry 1 { groups: ["eu-analysts"] } matches "erik"' },
      { condition: 'params', outcome: 'failed', detail: 'Region "us-east" matches none of ["eu-*"]' },
      { condition: 'arguments', outcome: 'failed', detail: 'arguments/days must be <= 3' },
    ]);
    expect(e.rules[1]!.conditions).toEqual([]);
    expect(e.rules[2]!.conditions).toEqual([{ condition: 'tool', outcome: 'failed', detail: 'the rule names prompt items only, not a tool' }]);
  });

  it('says why each principal entry fails', () => {
    const e = policy.explain({ ...erik, groups: [], claims: {} }, forecast);
    expect(e.rules[0]!.conditions[1]).toEqual({
      condition: 'principal',
      outcome: 'failed',
      detail: 'entry 1: groups [] have none of ["eu-analysts"]; entry 2: claim dept is missing, expected "finance"',
    });
  });

  it('names a missing param', () => {
    const e = policy.explain(erik, { ...forecast, params: {} });
    expect(e.rules[0]!.conditions[2]).toMatchObject({ outcome: 'failed', detail: 'Region is missing' });
  });

  it('marks call-data conditions unknown when listing, and says which rules count', () => {
    const e = policy.explain(erik, { ...forecast, operation: 'list' });
    expect(e.rules[0]).toMatchObject({ outcome: 'unknown', counted: true });
    expect(e.rules[0]!.conditions.slice(2).map((c) => c.outcome)).toEqual(['unknown', 'unknown']);
    expect(e.decision.effect).toBe('allow');
    expect(e.decision.ruleId).toBe('eu');
  });
});
