// Property tests of policy matching: globs against a RegExp reference (`*` any run, `?` one
// code point, everything else literal), and whole decisions against a plain reading of the
// documented semantics (every matching rule counts; deny beats approve beats allow; the first
// rule in load order with the winning effect decides; no match is the default), which also
// exercises the rule index that narrows the rules by name prefix and upstream. Small
// alphabets, so that matches and near misses are both common. Bounded runs; fast-check
// prints the seed and the shrunk case on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../identity/principal.ts';
import { compileGlob, compileGlobSet } from './glob.ts';
import { parsePolicyFiles } from './load-policy.ts';

const RUNS = { numRuns: 300 };
const pattern = fc.array(fc.constantFrom('a', 'b', '_', '*', '?', '.', 'é', '😀'), { maxLength: 7 }).map((cs) => cs.join(''));
const value = fc.array(fc.constantFrom('a', 'b', '_', '.', '*', '?', 'é', '😀'), { maxLength: 9 }).map((cs) => cs.join(''));

function reference(p: string): RegExp {
  const source = Array.from(p, (c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, 'su');
}

describe('globs, properties', () => {
  it('match exactly what the RegExp reading of the pattern matches', () => {
    fc.assert(
      fc.property(pattern, value, (p, v) => {
        expect(compileGlob(p).matches(v)).toBe(reference(p).test(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('as a set, match when any of their globs does, and name the first that does', () => {
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 4 }), value, (ps, v) => {
        const set = compileGlobSet(ps);
        expect(set.matches(v)).toBe(ps.some((p) => reference(p).test(v)));
        expect(set.firstMatch(v)).toBe(ps.find((p) => reference(p).test(v)));
      }),
      RUNS,
    );
  });

  it('report a prefix every match starts with (the rule index files rules under it)', () => {
    fc.assert(
      fc.property(pattern, value, (p, v) => {
        const g = compileGlob(p);
        if (g.matches(v)) expect(v.startsWith(g.prefix)).toBe(true);
      }),
      RUNS,
    );
  });
});

interface RawRule {
  effect: 'allow' | 'deny' | 'approve';
  tool?: string[];
  upstream?: string;
  group?: string;
}

const rule = fc.record(
  {
    effect: fc.constantFrom('allow', 'deny', 'approve'),
    tool: fc.array(fc.array(fc.constantFrom('u', 'p', '_', 'a', 'b', '*', '?'), { minLength: 1, maxLength: 6 }).map((cs) => cs.join('')), { minLength: 1, maxLength: 2 }),
    upstream: fc.constantFrom('up', 'u*', 'other', '*'),
    group: fc.constantFrom('ops', 'dev'),
  },
  { requiredKeys: ['effect'] },
) as fc.Arbitrary<RawRule>;

function policyText(rules: readonly RawRule[]): string {
  return JSON.stringify({
    rules: rules.map((r, i) => ({
      id: `r${i}`,
      effect: r.effect,
      ...(r.effect === 'approve' ? { approval: { approver: 'console' } } : {}),
      ...(r.tool === undefined && r.upstream === undefined && r.group === undefined
        ? {}
        : { when: { ...(r.tool ? { tool: r.tool } : {}), ...(r.upstream ? { upstream: r.upstream } : {}), ...(r.group ? { principal: [{ groups: [r.group] }] } : {}) } }),
    })),
  });
}

describe('policy decisions, properties', () => {
  const principal = (groups: string[]): Principal => ({ subject: 's', groups, scopes: [], claims: {}, method: 'api_key', authContext: 'key:s' });

  it('agree with the documented semantics, whatever the rules, names and groups', () => {
    // Each run compiles a policy (ajv and all): fewer runs than the pure properties.
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 8 }),
        fc.array(fc.constantFrom('u', 'p', '_', 'a', 'b'), { minLength: 1, maxLength: 6 }).map((cs) => cs.join('')),
        fc.constantFrom('up', 'other', 'x'),
        fc.subarray(['ops', 'dev']),
        (rules, name, upstream, groups) => {
          const policy = parsePolicyFiles([{ file: '10-rules.yaml', text: policyText(rules) }]);
          const matching = rules
            .map((r, i) => ({ r, id: `r${i}` }))
            .filter(({ r }) => (r.tool === undefined || r.tool.some((t) => reference(t).test(name))) && (r.upstream === undefined || reference(r.upstream).test(upstream)) && (r.group === undefined || groups.includes(r.group)));
          const winner = (['deny', 'approve', 'allow'] as const).map((e) => matching.find((m) => m.r.effect === e)).find((m) => m !== undefined);
          const decision = policy.decide(principal(groups), { kind: 'tool', operation: 'call', upstream, name, upstreamName: name });
          expect({ effect: decision.effect, ruleId: decision.ruleId }).toEqual(winner === undefined ? { effect: 'deny', ruleId: 'default' } : { effect: winner.r.effect, ruleId: winner.id });
        },
      ),
      { numRuns: 150 },
    );
  });
});
