import { describe, expect, it } from 'vitest';
import type { Principal } from '../identity/principal.ts';
import { parsePolicyFiles } from './load-policy.ts';

const base: Principal = { subject: 'alice', groups: ['analysts'], scopes: [], claims: {}, method: 'jwt', authContext: 'jwt:i:alice' };
const as = (p: Partial<Principal>): Principal => ({ ...base, ...p });

function policyOf(text: string) {
  return parsePolicyFiles([{ file: 'p.yaml', text }]);
}

describe('principal key', () => {
  const policy = policyOf(`
rules:
  - { id: analysts, effect: allow, when: { principal: [{ groups: [analysts] }], tool: "w__*" } }
  - { id: analysts-too, effect: allow, when: { principal: [{ groups: [analysts] }], tool: "x__*" } }
  - { id: write, effect: allow, when: { principal: [{ scopes: ["tools:write"] }], tool: "w__set" } }
  - { id: eu, effect: allow, when: { principal: [{ claims: { region: "eu-*" } }], tool: "w__eu" } }
`);

  it('is the same for principals the rules cannot tell apart, whoever they are', () => {
    const key = policy.principalKey(base);
    expect(policy.principalKey(as({ subject: 'bob', authContext: 'key:bob', method: 'api_key' }))).toBe(key);
    // A claim no rule names, and a group no rule names, change nothing.
    expect(policy.principalKey(as({ subject: 'carol', groups: ['analysts', 'hikers'], claims: { team: 'x' } }))).toBe(key);
    expect(policy.principalKey(as({ claims: { region: 'eu-west' }, subject: 'dave' }))).toBe(policy.principalKey(as({ claims: { region: 'eu-north' } })));
  });

  it('differs where a group, scope or named claim changes what a rule matches', () => {
    const key = policy.principalKey(base);
    expect(policy.principalKey(as({ groups: [] }))).not.toBe(key);
    expect(policy.principalKey(as({ scopes: ['tools:write'] }))).not.toBe(key);
    expect(policy.principalKey(as({ claims: { region: 'eu-west' } }))).not.toBe(key);
    expect(policy.principalKey(as({ claims: { region: 'us-east' } }))).toBe(key);
  });

  it('tells subjects apart only when some rule matches on the subject', () => {
    const bySubject = policyOf(`
rules:
  - { id: alice-only, effect: allow, when: { principal: [{ subject: alice }], tool: "w__*" } }
  - { id: anyone-else, effect: allow, when: { principal: [{ anonymous: true }], tool: "w__open" } }
`);
    expect(bySubject.principalKey(base)).not.toBe(bySubject.principalKey(as({ subject: 'bob' })));
    expect(bySubject.principalKey(as({ subject: 'bob' }))).toBe(bySubject.principalKey(as({ subject: 'carol' })));
    expect(bySubject.principalKey(as({ subject: 'bob', method: 'anonymous' }))).not.toBe(bySubject.principalKey(as({ subject: 'bob' })));
  });

  it('is empty when no rule has a principal condition', () => {
    const open = policyOf('rules:\n  - { id: all, effect: allow, when: { tool: "w__*" } }\n');
    expect(open.principalKey(base)).toBe('');
    expect(open.principalKey(as({ subject: 'bob', groups: [] }))).toBe('');
  });
});
