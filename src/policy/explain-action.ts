// explain(): every rule, in load order, with each of its conditions judged and said in
// words, next to the decision decide() makes. For `gatehouse policy explain` and for people
// debugging a policy; it evaluates everything (no index, no short cuts), so it is slow by
// design and never on the request path.

import type { Principal } from '../identity/principal.ts';
import type { Decision, Effect, PolicyAction } from './decision.ts';
import type { CompiledRule, PrincipalMatcher } from './compile-rule.ts';
import type { GlobSet } from './glob.ts';
import { anyMatches, argumentsProblem, claimMatches, nameGlobs, paramLookup, paramMatches, principalEntryMatches } from './rule-match.ts';

export type ConditionOutcome = 'matched' | 'failed' | 'unknown';

export interface ConditionResult {
  condition: 'tool' | 'prompt' | 'resource' | 'upstream' | 'server' | 'principal' | 'params' | 'arguments';
  outcome: ConditionOutcome;
  detail: string;
}

export interface RuleExplanation {
  ruleId: string;
  file: string;
  line?: number;
  effect: Effect;
  description?: string;
  /** 'unknown' only when listing: no condition failed, but params/arguments need a call. */
  outcome: ConditionOutcome;
  /** Whether the rule took part in the decision (an unknown allow/approve does when listing). */
  counted: boolean;
  /** Empty for a rule without conditions (it matches everything). */
  conditions: ConditionResult[];
}

export interface Explanation {
  decision: Decision;
  rules: RuleExplanation[];
}

export function explainRules(rules: readonly CompiledRule[], principal: Principal, action: PolicyAction, decision: Decision): Explanation {
  return { decision, rules: rules.map((rule) => explainRule(rule, principal, action)) };
}

function explainRule(rule: CompiledRule, principal: Principal, action: PolicyAction): RuleExplanation {
  const listing = action.operation === 'list';
  const conditions: ConditionResult[] = [];
  const names = nameGlobs(rule, action.kind);
  const itemWord = action.kind === 'resourceTemplate' ? 'resource' : action.kind;
  if (names === null) {
    const named = Object.keys(rule.names ?? {}).join('/');
    conditions.push({ condition: itemWord, outcome: 'failed', detail: `the rule names ${named} items only, not a ${action.kind}` });
  } else if (names !== undefined) {
    conditions.push(globCondition(itemWord, names, action.name));
  }
  if (rule.upstream !== undefined) conditions.push(globCondition('upstream', rule.upstream, action.upstream));
  if (rule.server !== undefined) {
    conditions.push(action.server === undefined ? { condition: 'server', outcome: 'failed', detail: 'the call is on the default endpoint, not a virtual server' } : globCondition('server', rule.server, action.server));
  }
  if (rule.principal !== undefined) conditions.push(principalCondition(rule.principal, principal));
  if (rule.params !== undefined) {
    if (listing) conditions.push({ condition: 'params', outcome: 'unknown', detail: 'needs the call\'s Mcp-Param-* values' });
    else {
      const lookup = paramLookup(action.params);
      const failures = rule.params.filter((m) => !paramMatches(m, lookup)).map((m) => {
        const value = lookup.get(m.key);
        return value === undefined ? `${m.name} is missing` : `${m.name} ${JSON.stringify(value)} matches none of ${list(m.globs.patterns)}`;
      });
      conditions.push(
        failures.length === 0
          ? { condition: 'params', outcome: 'matched', detail: rule.params.map((m) => `${m.name} ${JSON.stringify(lookup.get(m.key))} matches ${JSON.stringify(m.globs.firstMatch(lookup.get(m.key) ?? ''))}`).join('; ') }
          : { condition: 'params', outcome: 'failed', detail: failures.join('; ') },
      );
    }
  }
  if (rule.arguments !== undefined) {
    if (listing) conditions.push({ condition: 'arguments', outcome: 'unknown', detail: 'needs the call\'s arguments' });
    else {
      const problem = argumentsProblem(rule, action);
      conditions.push(problem === undefined ? { condition: 'arguments', outcome: 'matched', detail: 'arguments satisfy the schema' } : { condition: 'arguments', outcome: 'failed', detail: problem });
    }
  }
  const outcome: ConditionOutcome = conditions.some((c) => c.outcome === 'failed')
    ? 'failed'
    : conditions.some((c) => c.outcome === 'unknown')
      ? 'unknown'
      : 'matched';
  const explained: RuleExplanation = {
    ruleId: rule.id,
    file: rule.file,
    effect: rule.effect,
    outcome,
    counted: outcome === 'matched' || (outcome === 'unknown' && rule.effect !== 'deny'),
    conditions,
  };
  if (rule.line !== undefined) explained.line = rule.line;
  if (rule.description !== undefined) explained.description = rule.description;
  return explained;
}

function globCondition(condition: ConditionResult['condition'], globs: GlobSet, value: string): ConditionResult {
  const hit = globs.firstMatch(value);
  return hit === undefined
    ? { condition, outcome: 'failed', detail: `${JSON.stringify(value)} matches none of ${list(globs.patterns)}` }
    : { condition, outcome: 'matched', detail: `${JSON.stringify(value)} matches ${JSON.stringify(hit)}` };
}

function principalCondition(entries: readonly PrincipalMatcher[], p: Principal): ConditionResult {
  const hit = entries.findIndex((m) => principalEntryMatches(m, p));
  if (hit !== -1) {
    return { condition: 'principal', outcome: 'matched', detail: `entry ${hit + 1} ${describeEntry(entries[hit]!)} matches ${JSON.stringify(p.subject)}` };
  }
  const why = entries.map((m, i) => `entry ${i + 1}: ${entryProblem(m, p)}`);
  return { condition: 'principal', outcome: 'failed', detail: why.join('; ') };
}

function entryProblem(m: PrincipalMatcher, p: Principal): string {
  if (m.anonymous !== undefined && m.anonymous !== (p.method === 'anonymous')) {
    return m.anonymous ? 'the caller is authenticated, not anonymous' : 'the caller is anonymous';
  }
  if (m.subject !== undefined && !m.subject.matches(p.subject)) return `subject ${JSON.stringify(p.subject)} matches none of ${list(m.subject.patterns)}`;
  if (m.groups !== undefined && !anyMatches(m.groups, p.groups)) return `groups ${list(p.groups)} have none of ${list(m.groups.patterns)}`;
  if (m.scopes !== undefined && !anyMatches(m.scopes, p.scopes)) return `scopes ${list(p.scopes)} have none of ${list(m.scopes.patterns)}`;
  for (const c of m.claims ?? []) {
    const actual = p.claims[c.name];
    if (!claimMatches(c, actual)) {
      return `claim ${c.name} ${actual === undefined ? 'is missing' : `is ${JSON.stringify(actual)}`}, expected ${c.written.length === 1 ? JSON.stringify(c.written[0]) : `one of ${JSON.stringify(c.written)}`}`;
    }
  }
  return 'matches';
}

function describeEntry(m: PrincipalMatcher): string {
  const parts: string[] = [];
  if (m.subject !== undefined) parts.push(`subject: ${list(m.subject.patterns)}`);
  if (m.groups !== undefined) parts.push(`groups: ${list(m.groups.patterns)}`);
  if (m.scopes !== undefined) parts.push(`scopes: ${list(m.scopes.patterns)}`);
  for (const c of m.claims ?? []) parts.push(`claims.${c.name}: ${JSON.stringify(c.written.length === 1 ? c.written[0] : c.written)}`);
  if (m.anonymous !== undefined) parts.push(`anonymous: ${m.anonymous}`);
  return `{ ${parts.join(', ')} }`;
}

function list(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
}
