// The condition checks of one compiled rule, shared by decide() and explain(). Each takes
// data and returns a boolean; the order of use (cheap first, ajv last) is the caller's.

import type { JsonObject, JsonValue } from '../protocol/message.ts';
import type { Principal } from '../identity/principal.ts';
import type { ActionKind, PolicyAction } from './decision.ts';
import type { GlobSet } from './glob.ts';
import type { ClaimMatcher, CompiledRule, ParamMatcher, PrincipalMatcher } from './compile-rule.ts';

const PARAM_PREFIX = 'mcp-param-';
const EMPTY_ARGUMENTS: JsonObject = Object.freeze({}) as JsonObject;

/**
 * The name globs a rule has for `kind`: undefined when the rule names no items at all (it
 * applies to every kind), null when it names items of other kinds only (it never applies).
 */
export function nameGlobs(rule: CompiledRule, kind: ActionKind): GlobSet | undefined | null {
  if (rule.names === undefined) return undefined;
  const globs = kind === 'tool' ? rule.names.tool : kind === 'prompt' ? rule.names.prompt : rule.names.resource;
  return globs ?? null;
}

export function namesMatch(rule: CompiledRule, action: PolicyAction): boolean {
  const globs = nameGlobs(rule, action.kind);
  return globs === undefined || (globs !== null && globs.matches(action.name));
}

/** Everything but params and arguments: what can be judged without a call. */
export function cheapConditionsMatch(rule: CompiledRule, principal: Principal, action: PolicyAction): boolean {
  return (
    namesMatch(rule, action) &&
    (rule.upstream === undefined || rule.upstream.matches(action.upstream)) &&
    (rule.server === undefined || (action.server !== undefined && rule.server.matches(action.server))) &&
    (rule.principal === undefined || rule.principal.some((m) => principalEntryMatches(m, principal)))
  );
}

export function principalEntryMatches(m: PrincipalMatcher, p: Principal): boolean {
  if (m.anonymous !== undefined && m.anonymous !== (p.method === 'anonymous')) return false;
  if (m.subject !== undefined && !m.subject.matches(p.subject)) return false;
  if (m.groups !== undefined && !anyMatches(m.groups, p.groups)) return false;
  if (m.scopes !== undefined && !anyMatches(m.scopes, p.scopes)) return false;
  if (m.claims !== undefined) for (const c of m.claims) if (!claimMatches(c, p.claims[c.name])) return false;
  return true;
}

export function anyMatches(globs: GlobSet, values: readonly string[]): boolean {
  for (const v of values) if (globs.matches(v)) return true;
  return false;
}

/** A claim matches when it equals (or, for strings, glob-matches) any written value; an array claim when any element does. */
export function claimMatches(c: ClaimMatcher, claim: JsonValue | undefined): boolean {
  if (Array.isArray(claim)) return claim.some((element) => scalarClaimMatches(c, element));
  return scalarClaimMatches(c, claim);
}

function scalarClaimMatches(c: ClaimMatcher, value: JsonValue | undefined): boolean {
  if (typeof value === 'string') return c.strings !== undefined && c.strings.matches(value);
  if (typeof value === 'number' || typeof value === 'boolean') return c.others.includes(value);
  return false;
}

/** Decoded Mcp-Param-* values by lower-cased name without the prefix, as strings for globs. */
export function paramLookup(params: PolicyAction['params']): ReadonlyMap<string, string> {
  const lookup = new Map<string, string>();
  if (params === undefined) return lookup;
  for (const [header, value] of Object.entries(params)) {
    const lower = header.toLowerCase();
    lookup.set(lower.startsWith(PARAM_PREFIX) ? lower.slice(PARAM_PREFIX.length) : lower, String(value));
  }
  return lookup;
}

export function paramMatches(m: ParamMatcher, lookup: ReadonlyMap<string, string>): boolean {
  const value = lookup.get(m.key);
  return value !== undefined && m.globs.matches(value);
}

export function argumentsOf(action: PolicyAction): JsonObject {
  return action.arguments ?? EMPTY_ARGUMENTS;
}

/** ajv's first complaint about the arguments, or undefined when they satisfy the schema. */
export function argumentsProblem(rule: CompiledRule, action: PolicyAction): string | undefined {
  const validate = rule.arguments;
  if (validate === undefined || validate(argumentsOf(action))) return undefined;
  const first = validate.errors?.[0];
  return first === undefined ? 'invalid' : `${first.instancePath === '' ? 'arguments' : `arguments${first.instancePath}`} ${first.message ?? 'invalid'}`;
}
