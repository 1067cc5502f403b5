// decide(): the pure decision over compiled rules. The semantics (also in docs/policy.md):
//
// - Every rule whose conditions all hold matches; conditions left out hold for everything.
// - Precedence is deny > approve > allow: the most restrictive matching effect wins, so no
//   file, however it sorts, can weaken another file's deny. The winner is the first rule in
//   load order (file-name order, then order in the file) with the winning effect.
// - No match: the configured default effect, with ruleId "default".
// - Rate limits: the rateLimit of every matching allow and approve rule, in load order, when
//   the call is allowed or sent for approval (a denied call consumes nothing).
// - Listing (operation 'list') asks "could some call to this item be allowed or approved?".
//   `params` and `arguments` need a call, so they are unknown: an allow/approve rule with
//   them counts as matching (the item is shown), a deny rule with them does not (only a deny
//   without them hides the item). Approve counts as visible.
//
// Cost: the rule index narrows the rules to the ones filed under the item's name or upstream;
// conditions run cheapest first and ajv only for rules whose other conditions all held,
// and not at all for allow/approve rules once a deny has matched.

import type { Principal } from '../identity/principal.ts';
import type { Decision, PolicyAction, RateLimitRef } from './decision.ts';
import type { CompiledRule } from './compile-rule.ts';
import type { RuleIndex } from './rule-index.ts';
import { argumentsOf, cheapConditionsMatch, paramLookup, paramMatches } from './rule-match.ts';

export type DefaultEffect = 'allow' | 'deny';

export interface DecideContext {
  rules: readonly CompiledRule[];
  index: RuleIndex;
  defaultEffect: DefaultEffect;
}

export const DEFAULT_RULE_ID = 'default';

/** The outcome before it becomes a Decision: the first matching rule per effect. */
interface Matches {
  deny?: CompiledRule;
  approve?: CompiledRule;
  allow?: CompiledRule;
  /** Matching allow/approve rules, ascending, for the rate-limit union. */
  granting: CompiledRule[];
}

export function decideAction(ctx: DecideContext, principal: Principal, action: PolicyAction): Decision {
  const listing = action.operation === 'list';
  const matches: Matches = { granting: [] };
  const needArguments: CompiledRule[] = [];
  let lookup: ReadonlyMap<string, string> | undefined;

  for (const id of ctx.index.candidates(action)) {
    const rule = ctx.rules[id];
    if (rule === undefined || !cheapConditionsMatch(rule, principal, action)) continue;
    if (listing) {
      // Unknown call data: shows the item for allow/approve, cannot hide it for deny.
      if (rule.effect !== 'deny' || !rule.needsCallData) record(matches, rule);
      continue;
    }
    if (rule.params !== undefined) {
      lookup ??= paramLookup(action.params);
      const params = lookup;
      if (!rule.params.every((m) => paramMatches(m, params))) continue;
    }
    if (rule.arguments !== undefined) needArguments.push(rule);
    else record(matches, rule);
  }

  // Denies first: once one matches, no allow/approve schema needs to run.
  for (const rule of needArguments) {
    if (rule.effect === 'deny' && (matches.deny === undefined || rule.index < matches.deny.index) && rule.arguments?.(argumentsOf(action))) {
      record(matches, rule);
    }
  }
  if (matches.deny === undefined) {
    for (const rule of needArguments) if (rule.effect !== 'deny' && rule.arguments?.(argumentsOf(action))) record(matches, rule);
    matches.granting.sort((a, b) => a.index - b.index);
  }
  return toDecision(matches, ctx.defaultEffect, listing);
}

function record(matches: Matches, rule: CompiledRule): void {
  const first = matches[rule.effect];
  if (first === undefined || rule.index < first.index) matches[rule.effect] = rule;
  if (rule.effect !== 'deny') matches.granting.push(rule);
}

function toDecision(matches: Matches, defaultEffect: DefaultEffect, listing: boolean): Decision {
  const winner = matches.deny ?? matches.approve ?? matches.allow;
  if (winner === undefined) {
    return {
      effect: defaultEffect,
      ruleId: DEFAULT_RULE_ID,
      reason: listing
        ? defaultEffect === 'deny'
          ? 'hidden: no rule could allow or approve a call; the default effect is deny'
          : 'visible: no rule denies every call; the default effect is allow'
        : `no rule matched; the default effect is ${defaultEffect}`,
    };
  }
  const decision: Decision = { effect: winner.effect, ruleId: winner.id, reason: reasonFor(winner, listing) };
  if (winner.effect === 'deny' || listing) return decision;
  if (winner.approval !== undefined) decision.approval = winner.approval;
  const limits: RateLimitRef[] = [];
  for (const rule of matches.granting) if (rule.rateLimit !== undefined) limits.push(rule.rateLimit);
  if (limits.length > 0) decision.rateLimits = limits;
  return decision;
}

export function reasonFor(rule: CompiledRule, listing: boolean): string {
  const about = rule.description === undefined ? '' : `: ${rule.description}`;
  if (listing) {
    return rule.effect === 'deny'
      ? `hidden: ${ruleLabel(rule)} denies every call${about}`
      : `visible: ${ruleLabel(rule)} ${rule.effect === 'allow' ? 'may allow calls' : 'sends calls for approval'}${about}`;
  }
  if (rule.effect === 'approve') return `needs approval by "${rule.approval?.approver ?? '?'}" per ${ruleLabel(rule)}${about}`;
  return `${rule.effect === 'allow' ? 'allowed' : 'denied'} by ${ruleLabel(rule)}${about}`;
}

/** `rule "id" (10-weather.yaml:12)`: the file's base name keeps reasons short and stable. */
export function ruleLabel(rule: CompiledRule): string {
  const base = rule.file.slice(Math.max(rule.file.lastIndexOf('/'), rule.file.lastIndexOf('\\')) + 1);
  return `rule "${rule.id}" (${base}${rule.line === undefined ? '' : `:${rule.line}`})`;
}
