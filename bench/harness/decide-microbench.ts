// The policy engine alone, in this process: the same 1,000-rule directory the gateway arm
// loads is compiled with parsePolicyFiles (src/policy), then decide() is timed in batches
// for (a) the exact call the load generator makes and (b) a mix of calls across the fleet
// (allowed tools, the denied tool_49, echo whose argument schema is checked). Every
// decision's effect is checked against what the policy must answer, like every reply of a
// load run: a wrong decision fails the scenario.
import type { Principal } from '../../src/identity/principal.ts';
import type { PolicyAction } from '../../src/policy/decision.ts';
import { parsePolicyFiles, readPolicySources } from '../../src/policy/load-policy.ts';
import { BENCH_PRINCIPAL } from './gateway-features.ts';
import { echoMessage } from './mcp-wire.ts';
import { median } from './statistics.ts';

export interface DecideBench {
  rules: number;
  compileMs: number;
  /** Median µs per decision over batches, for the load generator's call and for a mix. */
  hotCallUs: number;
  mixedUs: number;
  decisions: number;
  failed?: string;
}

const BATCHES = 15;
const PER_BATCH = 4000;

const PRINCIPAL: Principal = {
  subject: BENCH_PRINCIPAL.subject,
  groups: [...BENCH_PRINCIPAL.groups],
  scopes: [],
  claims: {},
  method: 'api_key',
  authContext: 'key:bench',
};

interface Case {
  action: PolicyAction;
  expect: 'allow' | 'deny';
}

function call(upstream: string, tool: string, args: Record<string, string>): PolicyAction {
  return { kind: 'tool', operation: 'call', upstream, name: `${upstream}__${tool}`, upstreamName: tool, arguments: args };
}

function mixedCases(upstreams: number): Case[] {
  const cases: Case[] = [];
  for (let i = 0; i < 1000; i++) {
    const up = `up${String(i % upstreams).padStart(2, '0')}`;
    const n = (i * 7) % 52;
    if (n === 50) cases.push({ action: call(up, 'echo', { message: echoMessage(i) }), expect: 'allow' });
    else if (n === 51) cases.push({ action: call(up, 'echo', { message: `forbidden-${i}` }), expect: 'deny' });
    else cases.push({ action: call(up, `tool_${n}`, {}), expect: n === 49 ? 'deny' : 'allow' });
  }
  return cases;
}

/** Median µs per decision; the first batch warms the JIT and is not counted. */
function time(cases: readonly Case[], policy: { decide(p: Principal, a: PolicyAction): { effect: string } }): { us: number; wrong?: string; count: number } {
  const perBatch: number[] = [];
  let count = 0;
  for (let b = 0; b <= BATCHES; b++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < PER_BATCH; i++) {
      const c = cases[i % cases.length]!;
      const d = policy.decide(PRINCIPAL, c.action);
      if (d.effect !== c.expect) return { us: Number.NaN, count, wrong: `${c.action.name}: ${d.effect}, expected ${c.expect}` };
    }
    const ns = Number(process.hrtime.bigint() - started);
    if (b > 0) perBatch.push(ns / PER_BATCH / 1000);
    count += PER_BATCH;
  }
  return { us: median(perBatch), count };
}

export function benchDecide(dir: string, upstreams: number, hotUpstream: string): DecideBench {
  const started = performance.now();
  const policy = parsePolicyFiles(readPolicySources(dir), { defaultEffect: 'deny' });
  const compileMs = performance.now() - started;
  const hot = time([{ action: call(hotUpstream, 'echo', { message: echoMessage(1) }), expect: 'allow' }], policy);
  const mixed = time(mixedCases(upstreams), policy);
  const wrong = hot.wrong ?? mixed.wrong;
  return {
    rules: policy.rules.length,
    compileMs,
    hotCallUs: hot.us,
    mixedUs: mixed.us,
    decisions: hot.count + mixed.count,
    ...(wrong ? { failed: `wrong decision: ${wrong}` } : {}),
  };
}
