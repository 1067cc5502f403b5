// What a principal looks like to one policy: which of its rules' `principal` conditions the
// principal meets. A decision reads the principal only through those conditions
// (rule-match.ts principalEntryMatches), so two principals with the same key get the same
// decision for every action: their lists are the same, and the catalog filters once for
// both (filtered-views.ts) instead of once per subject, token or API key.
import { createHash } from 'node:crypto';
import type { Principal } from '../identity/principal.ts';
import type { ClaimMatcher, CompiledRule, PrincipalMatcher } from './compile-rule.ts';
import { principalEntryMatches } from './rule-match.ts';

/** Keys longer than this (policies with very many distinct conditions) are hashed. */
const MAX_PLAIN_KEY = 64;

export type PrincipalKey = (principal: Principal) => string;

export function buildPrincipalKey(rules: readonly CompiledRule[]): PrincipalKey {
  // Rules often repeat a condition ("groups: [admins]"): each distinct one is checked once.
  const distinct = new Map<string, readonly PrincipalMatcher[]>();
  for (const rule of rules) if (rule.principal !== undefined) distinct.set(describe(rule.principal), rule.principal);
  const conditions = [...distinct.values()];
  if (conditions.length === 0) return () => '';
  return (principal) => {
    let bits = '';
    for (const c of conditions) bits += c.some((m) => principalEntryMatches(m, principal)) ? '1' : '0';
    return bits.length <= MAX_PLAIN_KEY ? bits : createHash('sha256').update(bits).digest('base64url');
  };
}

/** A text equal for equal conditions: the globs and values as written. */
function describe(matchers: readonly PrincipalMatcher[]): string {
  return JSON.stringify(
    matchers.map((m) => [m.anonymous ?? null, m.subject?.globs.map((g) => g.pattern) ?? null, m.groups?.globs.map((g) => g.pattern) ?? null, m.scopes?.globs.map((g) => g.pattern) ?? null, m.claims?.map(claimText) ?? null]),
  );
}

function claimText(c: ClaimMatcher): [string, readonly unknown[]] {
  return [c.name, c.written];
}
