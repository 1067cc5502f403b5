// decide() on a policy of 1,000 generated rules: through the rule index, identical to judging
// every rule in order. How fast it decides is the benchmark's to measure, not a test's.
import { describe, expect, it } from 'vitest';
import type { Principal } from '../identity/principal.ts';
import { compilePolicy } from './compile-policy.ts';
import type { Effect, PolicyAction } from './decision.ts';
import type { RawRule } from './policy-schema.ts';

const UPSTREAMS = 40;

// A deterministic PRNG (mulberry32), so a failure reproduces.
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generateRules(count: number): RawRule[] {
  const rnd = random(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const rules: RawRule[] = [];
  for (let i = 0; i < count; i++) {
    const u = `up${i % UPSTREAMS}`;
    const effect: Effect = pick(['allow', 'allow', 'allow', 'allow', 'deny', 'approve']);
    const rule: RawRule = { id: `r${i}`, effect, when: {} };
    if (effect === 'approve') rule.approval = { approver: 'console' };
    const when = rule.when as Record<string, unknown>;
    const shape = i % 10;
    if (shape < 4) when['tool'] = `${u}__tool${i % 25}`;
    else if (shape < 6) when['tool'] = [`${u}__read-*`, `${u}__list-*`];
    else if (shape < 7) when['upstream'] = u;
    else if (shape < 8) when['tool'] = `${u}__tool${i % 25}`, (when['arguments'] = { properties: { days: { maximum: i % 7 } } });
    else if (shape < 9) when['tool'] = `${u}__*`, (when['params'] = { Region: [`eu-${i % 3}*`] });
    else when['resource'] = `doc://${u}/*`;
    if (rnd() < 0.7) when['principal'] = [{ groups: [`g${i % 12}`] }, { subject: `svc-${i % 5}-*` }];
    if (i % 100 === 0) {
      delete when['tool'];
      delete when['upstream'];
      when['principal'] = [{ claims: { tier: 'gold' } }];
    }
    if (effect !== 'deny' && rnd() < 0.3) rule.rateLimit = { capacity: 10, perSecond: 1 };
    rules.push(rule);
  }
  return rules;
}

function generateCalls(count: number): { principal: Principal; action: PolicyAction }[] {
  const rnd = random(11);
  const calls = [];
  for (let i = 0; i < count; i++) {
    const u = `up${Math.floor(rnd() * UPSTREAMS)}`;
    const tool = rnd() < 0.5 ? `tool${Math.floor(rnd() * 30)}` : `read-${Math.floor(rnd() * 5)}`;
    const subject = rnd() < 0.3 ? `svc-${Math.floor(rnd() * 6)}-x` : `user${i}`;
    const principal: Principal = {
      subject,
      groups: [`g${Math.floor(rnd() * 14)}`, `g${Math.floor(rnd() * 14)}`],
      scopes: [],
      claims: { tier: rnd() < 0.1 ? 'gold' : 'basic' },
      method: 'jwt',
      authContext: subject,
    };
    const action: PolicyAction = {
      kind: 'tool',
      operation: rnd() < 0.2 ? 'list' : 'call',
      upstream: u,
      name: `${u}__${tool}`,
      upstreamName: tool,
      arguments: { days: Math.floor(rnd() * 8) },
      params: { 'Mcp-Param-Region': `eu-${Math.floor(rnd() * 4)}x` },
    };
    calls.push({ principal, action });
  }
  return calls;
}

describe('decide() on 1,000 rules', () => {
  const compiled = compilePolicy([{ file: 'generated.yaml', data: { rules: generateRules(1000) } }]);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error.slice(0, 3)));
  const policy = compiled.value;
  const calls = generateCalls(2000);

  it('decides exactly as judging every rule in load order would', () => {
    const effects = new Set<string>();
    // explain() judges all 1,000 rules with messages: a sample keeps this quick.
    for (const { principal, action } of calls.slice(0, 400)) {
      const decision = policy.decide(principal, action);
      const counted = policy.explain(principal, action).rules.filter((r) => r.counted);
      const winner = (['deny', 'approve', 'allow'] as const).map((e) => counted.find((r) => r.effect === e)).find((r) => r !== undefined);
      expect(decision.ruleId).toBe(winner?.ruleId ?? 'default');
      effects.add(decision.effect);
    }
    expect([...effects].sort()).toEqual(['allow', 'approve', 'deny']);
  });
});
