// One schema-valid rule -> a CompiledRule: globs compiled, the `arguments` schema compiled by
// ajv, durations and rates turned into numbers. Runs once per policy load; decide() only
// calls what this builds. Problems that only show now (an `arguments` schema ajv refuses,
// a timeout too long for a timer) come back as issues pointing into the file.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { linearRegExp } from '../validation/linear-regexp.ts';
import type { ConfigIssue } from '../config/config-error.ts';
import { durationMs, durationTooLong } from '../config/duration.ts';
import type { PositionLookup } from '../config/source-position.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Effect, RateLimitRef } from './decision.ts';
import { compileGlobSet, type GlobSet } from './glob.ts';
import type { ClaimValue, RawPrincipalMatch, RawRateLimit, RawRule } from './policy-schema.ts';
import { issueAt } from './yaml-source.ts';

/** Options for every Ajv that compiles `arguments` schemas (policy JSON Schemas are 2020-12, as MCP's inputSchema). */
export const ARGUMENTS_AJV_OPTIONS = { strict: true, strictTypes: false, strictTuples: false, strictRequired: false, allowUnionTypes: true, code: { regExp: linearRegExp } } as const;

// Checking a schema against the 2020-12 meta-schema first compiles the meta-schema, ~200 ms per
// Ajv instance. This instance pays that once per process (lazily); the per-policy Ajv that
// compile-policy.ts creates on every (re)load skips the check (validateSchema: false).
const metaSchema = new Ajv2020(ARGUMENTS_AJV_OPTIONS);

export interface ClaimMatcher {
  name: string;
  /** String values, as globs. */
  strings?: GlobSet;
  /** Number and boolean values, compared with ===. */
  others: readonly (number | boolean)[];
  written: readonly ClaimValue[];
}

export interface PrincipalMatcher {
  subject?: GlobSet;
  groups?: GlobSet;
  scopes?: GlobSet;
  claims?: readonly ClaimMatcher[];
  anonymous?: boolean;
}

export interface ParamMatcher {
  /** Lower-cased name after `Mcp-Param-`: header names are case-insensitive (RFC 9110 5.1). */
  key: string;
  /** As written in the rule, for explanations. */
  name: string;
  globs: GlobSet;
}

export interface NameConditions {
  tool?: GlobSet;
  prompt?: GlobSet;
  /** Matches resources (by URI) and resource templates (by URI template). */
  resource?: GlobSet;
}

export interface CompiledRule {
  /** Position in load order (file-name order, then order in the file). */
  index: number;
  id: string;
  file: string;
  line?: number;
  effect: Effect;
  description?: string;
  /** Undefined: the rule applies to every kind of item. */
  names?: NameConditions;
  upstream?: GlobSet;
  /** Virtual server names: undefined matches every endpoint, the default one included. */
  server?: GlobSet;
  principal?: readonly PrincipalMatcher[];
  params?: readonly ParamMatcher[];
  arguments?: ValidateFunction;
  /** Has conditions only a call can satisfy (`params`, `arguments`): unknown when listing. */
  needsCallData: boolean;
  approval?: { approver: string; fallback?: string; timeoutMs?: number };
  rateLimit?: RateLimitRef;
}

export interface RuleSource {
  file: string;
  /** Index of the rule in its file's `rules`. */
  position: number;
  locate?: PositionLookup;
}

export function compileRule(raw: RawRule, index: number, source: RuleSource, ajv: Ajv2020): Result<CompiledRule, ConfigIssue[]> {
  const at = `/rules/${source.position}`;
  const issues: ConfigIssue[] = [];
  const when = raw.when ?? {};
  const rule: CompiledRule = { index, id: raw.id, file: source.file, effect: raw.effect, needsCallData: false };
  const line = source.locate?.(at)?.line;
  if (line !== undefined) rule.line = line;
  if (raw.description !== undefined) rule.description = raw.description;

  if (when.tool !== undefined || when.prompt !== undefined || when.resource !== undefined) {
    const names: NameConditions = {};
    if (when.tool !== undefined) names.tool = compileGlobSet(when.tool);
    if (when.prompt !== undefined) names.prompt = compileGlobSet(when.prompt);
    if (when.resource !== undefined) names.resource = compileGlobSet(when.resource);
    rule.names = names;
  }
  if (when.upstream !== undefined) rule.upstream = compileGlobSet(when.upstream);
  if (when.server !== undefined) rule.server = compileGlobSet(when.server);
  if (when.principal !== undefined) rule.principal = when.principal.map(compilePrincipalMatch);
  if (when.params !== undefined) {
    rule.params = Object.entries(when.params).map(([name, globs]) => ({ key: name.toLowerCase(), name, globs: compileGlobSet(globs) }));
    rule.needsCallData = true;
  }
  if (when.arguments !== undefined) {
    const problem = argumentsSchemaProblem(when.arguments, ajv);
    if (typeof problem === 'string') issues.push(issueAt(source.file, source.locate, `${at}/when/arguments`, `invalid arguments schema: ${problem}`));
    else {
      rule.arguments = problem;
      rule.needsCallData = true;
    }
  }
  if (raw.approval !== undefined) {
    rule.approval = { approver: raw.approval.approver, ...(raw.approval.fallback !== undefined ? { fallback: raw.approval.fallback } : {}) };
    if (raw.approval.timeout !== undefined) {
      const ms = durationMs(raw.approval.timeout);
      if (ms === undefined) issues.push(issueAt(source.file, source.locate, `${at}/approval/timeout`, durationTooLong(raw.approval.timeout)));
      else rule.approval.timeoutMs = ms;
    }
  }
  if (raw.rateLimit !== undefined) rule.rateLimit = rateLimitOf(raw.id, raw.rateLimit);
  return issues.length > 0 ? err(issues) : ok(rule);
}

function argumentsSchemaProblem(schema: object, ajv: Ajv2020): ValidateFunction | string {
  if (!metaSchema.validateSchema(schema)) return metaSchema.errorsText(metaSchema.errors, { dataVar: 'arguments' });
  try {
    return ajv.compile(schema);
  } catch (e) {
    // Strict mode: unknown keywords ("maximun"), unknown formats, unresolvable $refs.
    return (e as Error).message;
  }
}

function compilePrincipalMatch(raw: RawPrincipalMatch): PrincipalMatcher {
  const m: PrincipalMatcher = {};
  if (raw.subject !== undefined) m.subject = compileGlobSet(raw.subject);
  if (raw.groups !== undefined) m.groups = compileGlobSet(raw.groups);
  if (raw.scopes !== undefined) m.scopes = compileGlobSet(raw.scopes);
  if (raw.anonymous !== undefined) m.anonymous = raw.anonymous;
  if (raw.claims !== undefined) {
    m.claims = Object.entries(raw.claims).map(([name, value]) => {
      const written: ClaimValue[] = Array.isArray(value) ? [...(value as ClaimValue[])] : [value as ClaimValue];
      const strings = written.filter((v): v is string => typeof v === 'string');
      const claim: ClaimMatcher = { name, others: written.filter((v) => typeof v !== 'string'), written };
      if (strings.length > 0) claim.strings = compileGlobSet(strings);
      return claim;
    });
  }
  return m;
}

// One bucket per rule: its id names the bucket, so two rules never share counters.
function rateLimitOf(id: string, raw: RawRateLimit): RateLimitRef {
  const refillPerSecond = raw.perSecond ?? (raw.perMinute !== undefined ? raw.perMinute / 60 : (raw.perHour ?? 0) / 3600);
  return { id, capacity: raw.capacity, refillPerSecond, per: raw.per ?? 'principal' };
}
