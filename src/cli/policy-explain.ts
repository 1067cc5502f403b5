// `gatehouse policy explain`: the decision for one principal and one call (or, with --list,
// one item's visibility), the rule that decided, and every rule's verdict with the reason.
import { parseArgs } from 'node:util';
import type { Principal } from '../identity/principal.ts';
import type { PolicyAction } from '../policy/decision.ts';
import type { Explanation, RuleExplanation } from '../policy/explain-action.ts';
import { createSchemaCheck } from '../config/schema-issues.ts';
import { PRINCIPAL_SCHEMA, type RawTestPrincipal, type RawTestTarget } from '../policy/policy-test-schema.ts';
import { actionFrom, principalFrom } from '../policy/policy-tests.ts';
import { DEFAULT_POLICY_DIR, loadPolicyForCli, parseDefaultEffect, usageError } from './policy-options.ts';

const checkPrincipal = createSchemaCheck(PRINCIPAL_SCHEMA);

const OPTIONS = {
  dir: { type: 'string', short: 'd' },
  'default-effect': { type: 'string' },
  as: { type: 'string' },
  call: { type: 'string' },
  prompt: { type: 'string' },
  resource: { type: 'string' },
  upstream: { type: 'string' },
  server: { type: 'string' },
  args: { type: 'string' },
  params: { type: 'string' },
  list: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export function policyExplainCommand(argv: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS }));
  } catch (e) {
    return usageError('explain', (e as Error).message);
  }
  if (values.as === undefined) return usageError('explain', '--as is required');
  const principal = parsePrincipal(values.as);
  if (typeof principal === 'string') return usageError('explain', `--as: ${principal}`);
  const action = parseAction(values);
  if (typeof action === 'string') return usageError('explain', action);
  const defaultEffect = parseDefaultEffect('explain', values['default-effect']);
  if (typeof defaultEffect === 'number') return defaultEffect;
  const policy = loadPolicyForCli(values.dir ?? DEFAULT_POLICY_DIR, defaultEffect);
  if (typeof policy === 'number') return policy;

  const explanation = policy.explain(principal, action);
  process.stdout.write(values.json ? `${JSON.stringify(explanation, null, 2)}\n` : formatExplanation(explanation, action));
  return 0;
}

export function parsePrincipal(text: string): Principal | string {
  let raw: unknown = text;
  if (text.trimStart().startsWith('{')) {
    try {
      raw = JSON.parse(text);
    } catch (e) {
      return `invalid JSON: ${(e as Error).message}`;
    }
  }
  const issues = checkPrincipal(raw);
  if (issues.length > 0) return issues.map((i) => `${i.path === '' ? '' : `${i.path}: `}${i.message}`).join('; ');
  const principal = principalFrom(raw as RawTestPrincipal);
  return principal.ok ? principal.value : principal.error;
}

function parseAction(values: { call?: string; prompt?: string; resource?: string; upstream?: string; server?: string; args?: string; params?: string; list?: boolean }): PolicyAction | string {
  const named = [values.call, values.prompt, values.resource].filter((v) => v !== undefined);
  if (named.length !== 1) return 'give exactly one of --call TOOL, --prompt NAME, --resource URI';
  const target: RawTestTarget = {};
  if (values.call !== undefined) target.tool = values.call;
  if (values.prompt !== undefined) target.prompt = values.prompt;
  if (values.resource !== undefined) target.resource = values.resource;
  if (values.upstream !== undefined) target.upstream = values.upstream;
  if (values.server !== undefined) target.server = values.server;
  if (values.args !== undefined) {
    let args: unknown;
    try {
      args = JSON.parse(values.args);
    } catch (e) {
      return `--args: invalid JSON: ${(e as Error).message}`;
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return '--args must be a JSON object';
    target.arguments = args as Record<string, unknown>;
  }
  if (values.params !== undefined) {
    const params: Record<string, string> = {};
    for (const pair of values.params.split(',').filter((p) => p.trim() !== '')) {
      const eq = pair.indexOf('=');
      if (eq <= 0) return `--params: expected Name=value, got "${pair}"`;
      params[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
    }
    target.params = params;
  }
  const action = actionFrom(target, values.list ? 'list' : 'call');
  return action.ok ? action.value : `${action.error} (use --upstream)`;
}

const MARK: Readonly<Record<RuleExplanation['outcome'], string>> = { matched: 'match', failed: 'no', unknown: 'maybe' };

export function formatExplanation(e: Explanation, action: PolicyAction): string {
  const { decision } = e;
  const lines = [
    `${action.operation === 'list' ? 'listing' : 'calling'} ${action.kind} ${JSON.stringify(action.name)} on upstream ${JSON.stringify(action.upstream)}${action.server === undefined ? '' : ` through server ${JSON.stringify(action.server)}`}`,
    `decision: ${action.operation === 'list' ? (decision.effect === 'deny' ? 'hidden' : `visible (${decision.effect})`) : decision.effect}`,
    `rule:     ${decision.ruleId}`,
    `reason:   ${decision.reason}`,
  ];
  if (decision.approval !== undefined) {
    lines.push(`approval: ${decision.approval.approver}${decision.approval.timeoutMs === undefined ? '' : `, timeout ${decision.approval.timeoutMs} ms`}`);
  }
  for (const limit of decision.rateLimits ?? []) {
    lines.push(`limit:    ${limit.id}: ${limit.capacity} tokens, refill ${limit.refillPerSecond}/s, per ${limit.per}`);
  }
  lines.push('', `rules (${e.rules.length}, in load order):`);
  const width = Math.max(0, ...e.rules.map((r) => r.ruleId.length));
  for (const r of e.rules) {
    const counted = r.outcome === 'unknown' ? (r.counted ? ' (counts: may match a call)' : ' (does not hide: needs a call)') : '';
    const where = `${r.file}${r.line === undefined ? '' : `:${r.line}`}`;
    lines.push(`  ${MARK[r.outcome].padEnd(5)}  ${r.ruleId.padEnd(width)}  ${r.effect.padEnd(7)}  ${where}${counted}`);
    if (r.conditions.length === 0) lines.push(`         (no conditions: applies to everything)`);
    for (const c of r.conditions) lines.push(`         ${c.outcome === 'matched' ? '+' : c.outcome === 'failed' ? '-' : '?'} ${c.condition}: ${c.detail}`);
  }
  return lines.join('\n') + '\n';
}
