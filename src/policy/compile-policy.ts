// Policy files (parsed YAML) -> one CompiledPolicy, or every problem found. Pure: the
// loader (load-policy.ts) reads the disk, hot reload and the gateway hold the result.
// Each file is checked against POLICY_SCHEMA, then its rules are compiled (compile-rule.ts),
// then what spans files is checked: rule ids and pinned tools must be unique. The decision
// semantics are documented in decide-action.ts and docs/policy.md.

import { createHash } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ConfigIssue } from '../config/config-error.ts';
import { deepFreeze } from '../config/deep-freeze.ts';
import type { PositionLookup } from '../config/source-position.ts';
import type { Principal } from '../identity/principal.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Decision, Effect, PolicyAction, PolicyEngine } from './decision.ts';
import { ARGUMENTS_AJV_OPTIONS, compileRule, type CompiledRule } from './compile-rule.ts';
import { decideAction, type DecideContext, type DefaultEffect } from './decide-action.ts';
import { explainRules, type Explanation } from './explain-action.ts';
import { createSchemaCheck } from '../config/schema-issues.ts';
import { POLICY_SCHEMA, type RawPolicyFile } from './policy-schema.ts';
import { buildRuleIndex } from './rule-index.ts';
import type { PinVersion } from './tool-definition-hash.ts';
import { buildPrincipalKey } from './principal-key.ts';
import { issueAt, schemaIssuesAt } from './yaml-source.ts';

export type { DefaultEffect } from './decide-action.ts';

/** Problems are config issues: `file:line:column /json/pointer: message`. */
export type PolicyIssue = ConfigIssue;

export interface LoadedPolicyFile {
  /** As the operator named it; messages and rule labels use it. */
  file: string;
  /** The file's text: it makes the policy version. Default: JSON of `data`. */
  text?: string;
  /** The parsed YAML, not yet checked. */
  data: unknown;
  /** Positions for messages; without it, issues carry the JSON path only. */
  locate?: PositionLookup;
}

export interface CompileOptions {
  /** Effect when no rule matches. Default deny. (approve would need an approver; a rule says that.) */
  defaultEffect?: DefaultEffect;
}

export interface RuleSummary {
  id: string;
  file: string;
  line?: number;
  effect: Effect;
  description?: string;
}

export interface ToolPin {
  sha256: string;
  version: PinVersion;
}

export interface CompiledPolicy extends PolicyEngine {
  /** Hash of the files' names and texts and the default effect: cache per policy version. */
  readonly version: string;
  readonly defaultEffect: DefaultEffect;
  readonly files: readonly string[];
  /** In load order. */
  readonly rules: readonly RuleSummary[];
  /** Exposed tool name -> sha256 of its definition, and which fields it covers (tool-definition-hash.ts). */
  readonly pins: ReadonlyMap<string, ToolPin>;
  /** Names of the claims some rule's `principal` matches on, sorted: with the subject, groups
   * and scopes, all of a principal that a decision can depend on. */
  readonly claimNames: readonly string[];
  /** Which of the rules' principal conditions the principal meets: equal keys, equal decisions (list caches key on it). */
  principalKey(principal: Principal): string;
  decide(principal: Principal, action: PolicyAction): Decision;
  /** Whether the item belongs in the principal's lists: some call to it could be allowed or approved. */
  visible(principal: Principal, action: Omit<PolicyAction, 'operation'>): boolean;
  /** The decision plus every rule's verdict, condition by condition. */
  explain(principal: Principal, action: PolicyAction): Explanation;
}

const checkPolicySchema = createSchemaCheck(POLICY_SCHEMA);

export function compilePolicy(files: readonly LoadedPolicyFile[], opts: CompileOptions = {}): Result<CompiledPolicy, PolicyIssue[]> {
  const defaultEffect = opts.defaultEffect ?? 'deny';
  const issues: PolicyIssue[] = [];
  // One Ajv per policy: a replaced policy takes its compiled argument schemas with it.
  const ajv = new Ajv2020({ ...ARGUMENTS_AJV_OPTIONS, validateSchema: false });
  addFormats.default(ajv);

  const rules: CompiledRule[] = [];
  const pins = new Map<string, ToolPin>();
  const firstId = new Map<string, CompiledRule>();
  const firstPin = new Map<string, string>();
  for (const f of files) {
    const found = checkPolicySchema(f.data);
    issues.push(...createLocatedIssues(f, found));
    // Rules and pins the schema accepted are still compiled and compared, so that one run
    // reports duplicates and bad argument schemas alongside the shape errors.
    const data = (isRecord(f.data) ? f.data : {}) as RawPolicyFile;
    const rulesOk = Array.isArray(data.rules) ? data.rules : [];
    const pinsOk = Array.isArray(data.pins) ? data.pins : [];
    const badRules = itemsWithIssues(found, '/rules/');
    const badPins = itemsWithIssues(found, '/pins/');
    for (const [position, raw] of rulesOk.entries()) {
      if (badRules.has(position)) continue;
      const compiled = compileRule(raw, rules.length, { file: f.file, position, ...(f.locate ? { locate: f.locate } : {}) }, ajv);
      if (!compiled.ok) {
        issues.push(...compiled.error);
        continue;
      }
      const earlier = firstId.get(raw.id);
      if (earlier !== undefined) {
        issues.push(issueAt(f.file, f.locate, `/rules/${position}/id`, `duplicate rule id "${raw.id}": already defined at ${where(earlier.file, earlier.line)}`));
        continue;
      }
      firstId.set(raw.id, compiled.value);
      rules.push(compiled.value);
    }
    for (const [position, pin] of pinsOk.entries()) {
      if (badPins.has(position)) continue;
      const earlier = firstPin.get(pin.tool);
      if (earlier !== undefined) {
        issues.push(issueAt(f.file, f.locate, `/pins/${position}/tool`, `duplicate pin for tool "${pin.tool}": already pinned at ${earlier}`));
        continue;
      }
      firstPin.set(pin.tool, where(f.file, f.locate?.(`/pins/${position}`)?.line));
      pins.set(pin.tool, { sha256: pin.sha256, version: pin.version ?? 1 });
    }
  }
  if (issues.length > 0) return err(issues);

  const ctx: DecideContext = { rules, index: buildRuleIndex(rules), defaultEffect };
  const summaries = rules.map(({ id, file, line, effect, description }) =>
    Object.assign({ id, file, effect }, line === undefined ? {} : { line }, description === undefined ? {} : { description }),
  );
  const policy: CompiledPolicy = {
    version: policyVersion(files, defaultEffect),
    defaultEffect,
    files: files.map((f) => f.file),
    rules: deepFreeze(summaries),
    pins,
    claimNames: Object.freeze([...new Set(rules.flatMap((r) => r.principal?.flatMap((m) => m.claims?.map((c) => c.name) ?? []) ?? []))].sort()),
    principalKey: buildPrincipalKey(rules),
    decide: (principal, action) => decideAction(ctx, principal, action),
    visible: (principal, action) => decideAction(ctx, principal, { ...action, operation: 'list' }).effect !== 'deny',
    explain: (principal, action) => explainRules(rules, principal, action, decideAction(ctx, principal, action)),
  };
  return ok(Object.freeze(policy));
}

function createLocatedIssues(f: LoadedPolicyFile, found: ReturnType<typeof checkPolicySchema>): PolicyIssue[] {
  if (found.length === 0) return [];
  return f.locate === undefined ? found.map((i) => ({ file: f.file, path: i.path, message: i.message })) : schemaIssuesAt(f.file, f.locate, found);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Indexes of the items under `prefix` (e.g. "/rules/") that some schema issue points into. */
function itemsWithIssues(found: readonly { path: string }[], prefix: string): Set<number> {
  const bad = new Set<number>();
  for (const { path } of found) if (path.startsWith(prefix)) bad.add(Number.parseInt(path.slice(prefix.length), 10));
  return bad;
}

function where(file: string, line: number | undefined): string {
  return line === undefined ? file : `${file}:${line}`;
}

// Base names, so the same files give the same version wherever the directory is mounted.
function policyVersion(files: readonly LoadedPolicyFile[], defaultEffect: DefaultEffect): string {
  const hash = createHash('sha256').update(`default=${defaultEffect}\n`);
  for (const f of files) {
    const base = f.file.slice(Math.max(f.file.lastIndexOf('/'), f.file.lastIndexOf('\\')) + 1);
    const text = f.text ?? JSON.stringify(f.data);
    hash.update(`${base.length}:${base}${text.length}:${text}`);
  }
  return hash.digest('hex').slice(0, 16);
}
