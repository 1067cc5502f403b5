// Policy tests: YAML cases (who, which call or list, expected decision) that users keep next to
// their policies (`*.test.yaml`) and run in CI with `gatehouse policy test`. Parsing checks
// each file against POLICY_TEST_SCHEMA and turns cases into the same Principal and
// PolicyAction records the gateway builds; running is pure. Printing is the CLI's job.

import type { ConfigIssue } from '../config/config-error.ts';
import type { PositionLookup } from '../config/source-position.ts';
import type { Principal } from '../identity/principal.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { CompiledPolicy } from './compile-policy.ts';
import type { ActionKind, PolicyAction } from './decision.ts';
import { createSchemaCheck } from '../config/schema-issues.ts';
import { POLICY_TEST_SCHEMA, type RawTestCase, type RawTestFile, type RawTestPrincipal, type RawTestTarget } from './policy-test-schema.ts';
import { issueAt, parseYamlSource, schemaIssuesAt, type YamlSource } from './yaml-source.ts';

/** The demo's separator; a test names `upstream` when its gateway uses another. */
export const DEFAULT_SEPARATOR = '__';

export type Expectation = RawTestCase['expect'];

export interface PolicyTestCase {
  name: string;
  file: string;
  line?: number;
  principal: Principal;
  action: PolicyAction;
  expect: Expectation;
  expectRule?: string;
}

export interface PolicyTestResult {
  test: PolicyTestCase;
  passed: boolean;
  /** What happened, in the expectation's terms (visible/hidden for lists). */
  actual: Expectation;
  ruleId: string;
  reason: string;
}

const checkTestSchema = createSchemaCheck(POLICY_TEST_SCHEMA);
const TARGET_KINDS: readonly (keyof RawTestTarget & ActionKind)[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

export function parsePolicyTests(source: YamlSource): Result<PolicyTestCase[], ConfigIssue[]> {
  const parsed = parseYamlSource(source);
  if (!parsed.ok) return parsed;
  const { data, locate } = parsed.value;
  const schemaIssues = checkTestSchema(data);
  if (schemaIssues.length > 0) return err(schemaIssuesAt(source.file, locate, schemaIssues));
  const issues: ConfigIssue[] = [];
  const cases: PolicyTestCase[] = [];
  for (const [i, raw] of (data as RawTestFile).tests.entries()) {
    const at = (path: string, message: string): ConfigIssue => issueAt(source.file, locate, `/tests/${i}${path}`, message);
    const operation = raw.call !== undefined ? 'call' : 'list';
    const target = (raw.call ?? raw.list) as RawTestTarget;
    const listing = operation === 'list';
    if (listing !== (raw.expect === 'visible' || raw.expect === 'hidden')) {
      issues.push(at('/expect', listing ? 'a `list` test expects visible or hidden' : 'a `call` test expects allow, deny or approve'));
      continue;
    }
    const principal = principalFrom(raw.as);
    if (!principal.ok) {
      issues.push(at('/as', principal.error));
      continue;
    }
    const action = actionFrom(target, operation);
    if (!action.ok) {
      issues.push(at(`/${operation}`, action.error));
      continue;
    }
    cases.push(testCase(raw, source.file, locate, i, principal.value, action.value));
  }
  return issues.length > 0 ? err(issues) : ok(cases);
}

function testCase(raw: RawTestCase, file: string, locate: PositionLookup, i: number, principal: Principal, action: PolicyAction): PolicyTestCase {
  const test: PolicyTestCase = { name: raw.name, file, principal, action, expect: raw.expect };
  const line = locate(`/tests/${i}`)?.line;
  if (line !== undefined) test.line = line;
  if (raw.expectRule !== undefined) test.expectRule = raw.expectRule;
  return test;
}

/** `server`: the virtual server of every case that names none of its own. */
export function runPolicyTests(policy: CompiledPolicy, tests: readonly PolicyTestCase[], server?: string): PolicyTestResult[] {
  return tests.map((test) => {
    const decision = policy.decide(test.principal, server === undefined || test.action.server !== undefined ? test.action : { ...test.action, server });
    const actual: Expectation = test.action.operation === 'list' ? (decision.effect === 'deny' ? 'hidden' : 'visible') : decision.effect;
    const passed = actual === test.expect && (test.expectRule === undefined || test.expectRule === decision.ruleId);
    return { test, passed, actual, ruleId: decision.ruleId, reason: decision.reason };
  });
}

/** A subject string, or { subject, groups, scopes, claims, anonymous }, as a Principal. */
export function principalFrom(raw: RawTestPrincipal): Result<Principal, string> {
  if (typeof raw === 'string') return ok({ subject: raw, groups: [], scopes: [], claims: {}, method: 'api_key', authContext: raw });
  if (raw.anonymous !== true && raw.subject === undefined) return err('a principal needs `subject` (or `anonymous: true`)');
  const subject = raw.subject ?? 'anonymous';
  // Rules only tell anonymous from authenticated; claims suggest a JWT, else an API key.
  const method = raw.anonymous === true ? 'anonymous' : raw.claims !== undefined ? 'jwt' : 'api_key';
  return ok({
    subject,
    groups: raw.groups ?? [],
    scopes: raw.scopes ?? [],
    claims: (raw.claims ?? {}) as JsonObject,
    method,
    authContext: subject,
  });
}

/** A test target as the gateway's PolicyAction; upstream defaults to the name's prefix. */
export function actionFrom(target: RawTestTarget, operation: 'call' | 'list', separator = DEFAULT_SEPARATOR): Result<PolicyAction, string> {
  const kind = TARGET_KINDS.find((k) => target[k] !== undefined);
  const name = kind === undefined ? undefined : target[kind];
  if (kind === undefined || name === undefined) return err('expected one of tool, prompt, resource, resourceTemplate');
  const cut = kind === 'tool' || kind === 'prompt' ? name.indexOf(separator) : -1;
  const upstream = target.upstream ?? (cut > 0 ? name.slice(0, cut) : undefined);
  if (upstream === undefined) return err(`\`upstream\` is needed: "${name}" has no "${separator}" prefix to take it from`);
  const prefix = upstream + separator;
  const action: PolicyAction = {
    kind,
    operation,
    upstream,
    name,
    upstreamName: (kind === 'tool' || kind === 'prompt') && name.startsWith(prefix) ? name.slice(prefix.length) : name,
  };
  if (target.server !== undefined) action.server = target.server;
  if (target.arguments !== undefined) action.arguments = target.arguments as JsonObject;
  if (target.params !== undefined) {
    action.params = Object.fromEntries(Object.entries(target.params).map(([k, v]) => [`Mcp-Param-${k}`, v]));
  }
  return ok(action);
}
