import { describe, expect, it } from 'vitest';
import type { Principal } from '../identity/principal.ts';
import type { PolicyAction } from './decision.ts';
import { parsePolicyFiles } from './load-policy.ts';

const alice: Principal = { subject: 'alice', groups: ['analysts'], scopes: [], claims: {}, method: 'jwt', authContext: 'alice' };
const bob: Principal = { ...alice, subject: 'bob', groups: [] };

function item(name: string, kind: PolicyAction['kind'] = 'tool'): Omit<PolicyAction, 'operation'> {
  return { kind, upstream: name.split('__')[0] ?? '', name, upstreamName: name.split('__')[1] ?? name };
}

function policyOf(text: string, defaultEffect: 'allow' | 'deny' = 'deny') {
  return parsePolicyFiles([{ file: 'p.yaml', text }], { defaultEffect });
}

describe('list visibility', () => {
  const policy = policyOf(`
rules:
  - { id: analysts, effect: allow, when: { principal: [{ groups: [analysts] }], tool: "w__*" } }
  - { id: eu-only, effect: allow, when: { tool: w__params, params: { Region: "eu-*" } } }
  - { id: small-only, effect: allow, when: { tool: w__args, arguments: { properties: { days: { maximum: 3 } } } } }
  - { id: approve, effect: approve, approval: { approver: console }, when: { tool: w__approve } }
  - { id: deny-big, effect: deny, when: { tool: "w__*", arguments: { properties: { days: { minimum: 9 } }, required: [days] } } }
  - { id: deny-secret, effect: deny, when: { tool: w__secret } }
`);

  it('shows an item some matching allow rule allows', () => {
    expect(policy.visible(alice, item('w__forecast'))).toBe(true);
  });

  it('hides an item no rule allows under default deny', () => {
    expect(policy.visible(bob, item('w__forecast'))).toBe(false);
  });

  it('counts allow rules with params or arguments as possibly matching (shown)', () => {
    expect(policy.visible(bob, item('w__params'))).toBe(true);
    expect(policy.visible(bob, item('w__args'))).toBe(true);
  });

  it('does not let a deny with call conditions hide an item', () => {
    // deny-big matches only calls with days >= 9; other calls to w__forecast are allowed.
    expect(policy.visible(alice, item('w__forecast'))).toBe(true);
  });

  it('lets an unconditional deny hide an item even from those an allow rule covers', () => {
    expect(policy.visible(alice, item('w__secret'))).toBe(false);
    const d = policy.decide(alice, { ...item('w__secret'), operation: 'list' });
    expect(d).toMatchObject({ effect: 'deny', ruleId: 'deny-secret' });
    expect(d.reason).toContain('hidden: rule "deny-secret"');
  });

  it('shows items that need approval', () => {
    expect(policy.visible(bob, item('w__approve'))).toBe(true);
    expect(policy.decide(bob, { ...item('w__approve'), operation: 'list' }).effect).toBe('approve');
  });

  it('under default allow, shows everything no unconditional deny hides', () => {
    const open = policyOf('rules: [{ id: d, effect: deny, when: { tool: x__a } }, { id: c, effect: deny, when: { tool: x__b, params: { P: v } } }]', 'allow');
    expect(open.visible(bob, item('x__a'))).toBe(false);
    expect(open.visible(bob, item('x__b'))).toBe(true);
    expect(open.visible(bob, item('x__c'))).toBe(true);
  });

  it('agrees with decide for calls: visible iff some call could be allowed or approved', () => {
    for (const name of ['w__forecast', 'w__params', 'w__args', 'w__approve', 'w__secret', 'w__other']) {
      for (const who of [alice, bob]) {
        const visible = policy.visible(who, item(name));
        const someCall = [
          { arguments: { days: 1 }, params: { 'Mcp-Param-Region': 'eu-1' } },
          { arguments: { days: 10 } },
        ].some((extra) => policy.decide(who, { ...item(name), operation: 'call', ...extra }).effect !== 'deny');
        expect({ name, who: who.subject, visible }).toEqual({ name, who: who.subject, visible: someCall });
      }
    }
  });

  it('filters prompts and resource templates with the same rules', () => {
    const p = policyOf('rules: [{ id: r, effect: allow, when: { prompt: "w__*", resource: "w://*" } }]');
    expect(p.visible(bob, item('w__pack', 'prompt'))).toBe(true);
    expect(p.visible(bob, { kind: 'resourceTemplate', upstream: 'w', name: 'w://{city}', upstreamName: 'w://{city}' })).toBe(true);
    expect(p.visible(bob, item('w__pack', 'tool'))).toBe(false);
  });
});
