import { describe, expect, it } from 'vitest';
import type { Principal } from '../identity/principal.ts';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import type { PolicyAction } from './decision.ts';
import { parsePolicyFiles } from './load-policy.ts';
import type { CompileOptions } from './compile-policy.ts';

function policyOf(text: string, opts: CompileOptions = {}) {
  return parsePolicyFiles([{ file: 'p.yaml', text }], opts);
}

function who(subject: string, extra: Partial<Principal> = {}): Principal {
  return { subject, groups: [], scopes: [], claims: {}, method: 'jwt', authContext: subject, ...extra };
}

function call(name: string, extra: Partial<PolicyAction> = {}): PolicyAction {
  const cut = name.indexOf('__');
  return { kind: 'tool', operation: 'call', upstream: name.slice(0, cut), name, upstreamName: name.slice(cut + 2), ...extra };
}

const alice = who('alice', { groups: ['analysts'] });

describe('precedence', () => {
  const policy = policyOf(`
rules:
  - { id: allow-all, effect: allow }
  - { id: approve-weather, effect: approve, approval: { approver: console }, when: { upstream: weather } }
  - { id: deny-danger, effect: deny, when: { tool: "weather__danger*" } }
  - { id: allow-again, effect: allow }
`);

  it('allows when only allow rules match, naming the first one in load order', () => {
    expect(policy.decide(alice, call('other__x'))).toMatchObject({ effect: 'allow', ruleId: 'allow-all' });
  });

  it('lets approve beat allow', () => {
    const d = policy.decide(alice, call('weather__forecast'));
    expect(d).toMatchObject({ effect: 'approve', ruleId: 'approve-weather', approval: { approver: 'console' } });
    expect(d.reason).toContain('needs approval by "console"');
  });

  it('lets deny beat approve and allow whatever the order', () => {
    const d = policy.decide(alice, call('weather__danger_zone'));
    expect(d).toMatchObject({ effect: 'deny', ruleId: 'deny-danger' });
    expect(d.reason).toBe('denied by rule "deny-danger" (p.yaml:5)');
  });

  it('takes the first matching rule of the winning effect, across files in load order', () => {
    const twoFiles = parsePolicyFiles([
      { file: 'dir/00-a.yaml', text: 'rules: [{ id: a-deny, effect: deny, description: first }]' },
      { file: 'dir/10-b.yaml', text: 'rules: [{ id: b-deny, effect: deny }, { id: b-allow, effect: allow }]' },
    ]);
    expect(twoFiles.decide(alice, call('x__y'))).toEqual({ effect: 'deny', ruleId: 'a-deny', reason: 'denied by rule "a-deny" (00-a.yaml:1): first' });
  });
});

describe('default effect', () => {
  it('denies with ruleId "default" when nothing matches', () => {
    expect(policyOf('rules: []').decide(alice, call('a__b'))).toEqual({
      effect: 'deny',
      ruleId: 'default',
      reason: 'no rule matched; the default effect is deny',
    });
  });

  it('can be configured to allow', () => {
    expect(policyOf('rules: []', { defaultEffect: 'allow' }).decide(alice, call('a__b'))).toMatchObject({ effect: 'allow', ruleId: 'default' });
  });

  it('refuses an empty file, naming it (a file caught half-written must not drop its rules); rules: [] is an empty policy', () => {
    expect(() => policyOf('# nothing yet\n')).toThrow(/p\.yaml: the file is empty/);
    expect(() => policyOf('')).toThrow(/the file is empty/);
    expect(policyOf('rules: []\n').decide(alice, call('a__b')).ruleId).toBe('default');
  });
});

describe('conditions', () => {
  const allowWhen = (when: string) => policyOf(`rules: [{ id: r, effect: allow, when: ${when} }]`);
  const allowed = (when: string, principal: Principal, action: PolicyAction) => allowWhen(when).decide(principal, action).effect === 'allow';

  it('principal groups: any of the listed groups', () => {
    expect(allowed('{ principal: [{ groups: [admins, analysts] }] }', alice, call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ groups: [admins] }] }', alice, call('a__b'))).toBe(false);
    expect(allowed('{ principal: [{ groups: ["analy*"] }] }', alice, call('a__b'))).toBe(true);
  });

  it('principal subject: a glob', () => {
    expect(allowed('{ principal: [{ subject: "svc-*" }] }', who('svc-billing'), call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ subject: "svc-*" }] }', who('alice'), call('a__b'))).toBe(false);
  });

  it('principal scopes: any of them', () => {
    expect(allowed('{ principal: [{ scopes: ["tools:*"] }] }', who('a', { scopes: ['tools:read'] }), call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ scopes: ["tools:*"] }] }', who('a', { scopes: ['admin'] }), call('a__b'))).toBe(false);
  });

  it('principal claims: equal values, string globs, lists, array claims', () => {
    const finance = who('a', { claims: { department: 'finance', level: 3, staff: true, roles: ['viewer', 'editor'] } });
    expect(allowed('{ principal: [{ claims: { department: finance } }] }', finance, call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ claims: { department: "fin*" } }] }', finance, call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ claims: { department: sales } }] }', finance, call('a__b'))).toBe(false);
    expect(allowed('{ principal: [{ claims: { level: 3, staff: true } }] }', finance, call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ claims: { level: "3" } }] }', finance, call('a__b'))).toBe(false);
    expect(allowed('{ principal: [{ claims: { level: [1, 2] } }] }', finance, call('a__b'))).toBe(false);
    expect(allowed('{ principal: [{ claims: { roles: editor } }] }', finance, call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ claims: { missing: x } }] }', finance, call('a__b'))).toBe(false);
  });

  it('principal anonymous: true only for anonymous callers, false only for authenticated ones', () => {
    expect(allowed('{ principal: [{ anonymous: true }] }', ANONYMOUS_PRINCIPAL, call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ anonymous: true }] }', alice, call('a__b'))).toBe(false);
    expect(allowed('{ principal: [{ anonymous: false }] }', alice, call('a__b'))).toBe(true);
    expect(allowed('{ principal: [{ anonymous: false }] }', ANONYMOUS_PRINCIPAL, call('a__b'))).toBe(false);
  });

  it('principal entries are any-of, and fields within one entry are all-of', () => {
    const when = '{ principal: [{ groups: [admins] }, { subject: alice, groups: [analysts] }] }';
    expect(allowed(when, alice, call('a__b'))).toBe(true);
    expect(allowed(when, who('bob', { groups: ['analysts'] }), call('a__b'))).toBe(false);
    expect(allowed(when, who('bob', { groups: ['admins'] }), call('a__b'))).toBe(true);
  });

  it('upstream: globs on the upstream name', () => {
    expect(allowed('{ upstream: [weather, "git*"] }', alice, call('github__x'))).toBe(true);
    expect(allowed('{ upstream: weather }', alice, call('github__x'))).toBe(false);
  });

  it('tool: globs on the exposed name, and only for tools', () => {
    expect(allowed('{ tool: "weather__*" }', alice, call('weather__forecast'))).toBe(true);
    expect(allowed('{ tool: "forecast" }', alice, call('weather__forecast'))).toBe(false);
    expect(allowed('{ tool: "weather__*" }', alice, call('weather__forecast', { kind: 'prompt' }))).toBe(false);
  });

  it('prompt and resource: their own kinds; resource covers templates', () => {
    const when = '{ prompt: "weather__pack*", resource: "weather://*" }';
    expect(allowed(when, alice, call('weather__packing-list', { kind: 'prompt' }))).toBe(true);
    expect(allowed(when, alice, { kind: 'resource', operation: 'call', upstream: 'weather', name: 'weather://stations', upstreamName: 'weather://stations' })).toBe(true);
    expect(allowed(when, alice, { kind: 'resourceTemplate', operation: 'list', upstream: 'weather', name: 'weather://{city}', upstreamName: 'weather://{city}' })).toBe(true);
    expect(allowed(when, alice, call('weather__packing-list'))).toBe(false);
  });

  it('a rule without name conditions applies to every kind', () => {
    expect(allowed('{ upstream: weather }', alice, call('weather__packing-list', { kind: 'prompt' }))).toBe(true);
  });

  it('params: decoded Mcp-Param values, names case-insensitive, globs, missing does not match', () => {
    const when = '{ params: { region: ["eu-*"], Tier: gold } }';
    expect(allowed(when, alice, call('a__b', { params: { 'Mcp-Param-Region': 'eu-west', 'mcp-param-TIER': 'gold' } }))).toBe(true);
    expect(allowed(when, alice, call('a__b', { params: { 'MCP-PARAM-REGION': 'eu-west', 'Mcp-Param-Tier': 'gold' } }))).toBe(true);
    expect(allowed(when, alice, call('a__b', { params: { 'Mcp-Param-Region': 'us-east', 'Mcp-Param-Tier': 'gold' } }))).toBe(false);
    expect(allowed(when, alice, call('a__b', { params: { 'Mcp-Param-Region': 'eu-west' } }))).toBe(false);
    expect(allowed(when, alice, call('a__b'))).toBe(false);
  });

  it('params: numbers and booleans are matched as their text', () => {
    expect(allowed('{ params: { Count: "1*" } }', alice, call('a__b', { params: { 'Mcp-Param-Count': 12 } }))).toBe(true);
    expect(allowed('{ params: { Dry: "true" } }', alice, call('a__b', { params: { 'Mcp-Param-Dry': true } }))).toBe(true);
  });

  it('arguments: a JSON Schema the arguments must satisfy; absent arguments are {}', () => {
    const when = '{ arguments: { properties: { days: { type: integer, maximum: 3 } } } }';
    expect(allowed(when, alice, call('a__b', { arguments: { days: 3 } }))).toBe(true);
    expect(allowed(when, alice, call('a__b', { arguments: { days: 4 } }))).toBe(false);
    expect(allowed(when, alice, call('a__b', { arguments: { days: 'x' } }))).toBe(false);
    expect(allowed(when, alice, call('a__b'))).toBe(true);
    expect(allowed('{ arguments: { required: [days] } }', alice, call('a__b'))).toBe(false);
    expect(allowed('{ arguments: { properties: { to: { format: email } } } }', alice, call('a__b', { arguments: { to: 'no' } }))).toBe(false);
  });

  it('all present conditions must hold', () => {
    const when = '{ principal: [{ groups: [analysts] }], upstream: weather, tool: "weather__*", arguments: { properties: { days: { maximum: 3 } } } }';
    expect(allowed(when, alice, call('weather__forecast', { arguments: { days: 1 } }))).toBe(true);
    expect(allowed(when, who('bob'), call('weather__forecast', { arguments: { days: 1 } }))).toBe(false);
    expect(allowed(when, alice, call('weather__forecast', { upstream: 'other', arguments: { days: 1 } }))).toBe(false);
    expect(allowed(when, alice, call('weather__forecast', { arguments: { days: 9 } }))).toBe(false);
  });

  it('a deny whose arguments schema fails does not deny', () => {
    const policy = policyOf(`
rules:
  - { id: ok, effect: allow }
  - { id: big, effect: deny, when: { arguments: { properties: { days: { minimum: 8 } }, required: [days] } } }
`);
    expect(policy.decide(alice, call('a__b', { arguments: { days: 2 } })).ruleId).toBe('ok');
    expect(policy.decide(alice, call('a__b', { arguments: { days: 9 } })).ruleId).toBe('big');
  });
});

describe('rate limits and approvals', () => {
  const policy = policyOf(`
rules:
  - { id: base, effect: allow, rateLimit: { capacity: 100, perMinute: 60 } }
  - { id: tool, effect: allow, when: { tool: "a__*" }, rateLimit: { capacity: 5, perHour: 36, per: principal+tool } }
  - { id: no-limit, effect: allow, when: { tool: "a__*" } }
  - { id: review, effect: approve, when: { tool: a__review }, approval: { approver: webhook, timeout: 5m }, rateLimit: { capacity: 2, perSecond: 1, per: upstream } }
  - { id: block, effect: deny, when: { tool: a__blocked } }
`);

  it('attaches the rate limit of every matching allow rule, in load order', () => {
    expect(policy.decide(alice, call('a__x')).rateLimits).toEqual([
      { id: 'base', capacity: 100, refillPerSecond: 1, per: 'principal' },
      { id: 'tool', capacity: 5, refillPerSecond: 0.01, per: 'principal+tool' },
    ]);
  });

  it('includes approve rules in the union and carries the approver and timeout', () => {
    const d = policy.decide(alice, call('a__review'));
    expect(d.effect).toBe('approve');
    expect(d.approval).toEqual({ approver: 'webhook', timeoutMs: 300_000 });
    expect(d.rateLimits?.map((l) => l.id)).toEqual(['base', 'tool', 'review']);
  });

  it('attaches nothing to a denied call', () => {
    const d = policy.decide(alice, call('a__blocked'));
    expect(d.effect).toBe('deny');
    expect(d.rateLimits).toBeUndefined();
  });

  it('omits rateLimits when no matching rule has one', () => {
    expect(policyOf('rules: [{ id: r, effect: allow }]').decide(alice, call('a__b')).rateLimits).toBeUndefined();
  });
});

describe('arguments predicates with a pattern', () => {
  const policy = policyOf(`
rules:
  - { id: allow-all, effect: allow }
  - id: no-odd-names
    effect: deny
    when: { tool: "db__*", arguments: { properties: { name: { type: string, pattern: "^(a+)+$" } }, required: [name] } }
`);

  it('decides whatever string a client sends (pattern runs on RE2)', () => {
    // A backtracking RegExp needs about 2^40 steps for this: it would not end within the test.
    const d = policy.decide(alice, call('db__query', { arguments: { name: `${'a'.repeat(40)}!` } }));
    expect(d).toMatchObject({ effect: 'allow', ruleId: 'allow-all' });
    expect(policy.decide(alice, call('db__query', { arguments: { name: 'aaaa' } }))).toMatchObject({ effect: 'deny', ruleId: 'no-odd-names' });
  });
});
