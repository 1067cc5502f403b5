// Policy directories for the benchmark (format: docs/policy.md). Both grant the benchmark's
// principal (gateway-features.ts: groups bench, analysts) what it calls and carry no rate
// limits, so what is measured is the cost of deciding, never a 429.
// - small: ten hand-written rules in front of server-everything, like policies/00-baseline:
//   the echo call matches an allow and a deny whose argument schema (ajv) does not hold.
// - large: 1,000 generated rules over a fleet of `upNN` upstreams — groups x tool globs,
//   allow / deny / approve, argument schemas, claims — of which four concern the benchmark
//   principal: an allow of every fleet tool, an unconditional deny hiding `tool_49` of each
//   upstream (so a correct merged list is 20 tools short), a deny on echo arguments, and a
//   redundant allow for analysts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface BenchPolicy {
  dir: string;
  rules: number;
}

const SMALL = `# yaml-language-server: $schema=../schema/policy.schema.json
rules:
  - id: bench-readonly-tools
    description: The benchmark client may use the read-only demo tools
    effect: allow
    when:
      principal: [{ groups: [bench] }]
      upstream: everything
      tool: [everything__echo, everything__get-sum, everything__get-tiny-image, everything__get-annotated-message]
  - id: bench-prompts-and-resources
    effect: allow
    when:
      principal: [{ groups: [bench] }]
      upstream: everything
      prompt: "everything__*"
      resource: "demo://resource/*"
  - id: no-environment-dumps
    description: get-env prints the server's environment
    effect: deny
    when: { tool: everything__get-env }
  - id: no-shell-in-echo
    description: Refuse echo messages that look like shell commands
    effect: deny
    when:
      tool: everything__echo
      arguments: { properties: { message: { pattern: "^(rm|curl|sudo) " } }, required: [message] }
  - id: gzip-needs-approval
    effect: approve
    when: { tool: everything__gzip-file-as-resource }
    approval: { approver: console, timeout: 5m }
  - id: admins-everything
    effect: allow
    when: { principal: [{ groups: [admins] }], upstream: everything }
  - id: analysts-structured
    effect: allow
    when:
      principal: [{ groups: [analysts] }, { subject: "svc-report-*" }]
      tool: everything__get-structured-content
      arguments: { properties: { location: { enum: [New York, Chicago, Los Angeles] } } }
  - id: no-anonymous-sampling
    effect: deny
    when: { principal: [{ anonymous: true }], tool: "everything__trigger-*" }
  - id: contractors-no-long-runs
    effect: deny
    when: { principal: [{ groups: [contractors] }], tool: everything__trigger-long-running-operation }
  - id: gold-tier-sum
    effect: allow
    when: { principal: [{ claims: { tier: gold } }], tool: everything__get-sum }
`;

export function writeSmallPolicy(dir: string): BenchPolicy {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '00-bench.yaml'), SMALL);
  return { dir, rules: 10 };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** One of 996 rules that never concern the benchmark principal (other groups, claims, upstreams). */
function fillerRule(k: number, upstreams: number): Record<string, unknown> {
  const team = [{ groups: [`team-${k % 40}`] }];
  const up = `up${pad(k % upstreams)}`;
  const id = `filler-${String(k).padStart(4, '0')}`;
  switch (k % 6) {
    case 0:
      return { id, effect: 'allow', when: { principal: team, tool: `${up}__tool_${k % 50}` } };
    case 1:
      return { id, effect: 'allow', when: { principal: team, tool: [`${up}__tool_${k % 5}*`, `${up}__echo`] } };
    case 2:
      return { id, effect: 'deny', when: { principal: team, tool: `${up}__tool_${k % 50}` } };
    case 3:
      return {
        id,
        effect: 'approve',
        when: { principal: [...team, { subject: `svc-${k % 7}-*` }], tool: `${up}__tool_${k % 50}` },
        approval: { approver: 'console' },
      };
    case 4:
      return { id, effect: 'allow', when: { principal: team, upstream: up, arguments: { properties: { days: { maximum: k % 7 } } } } };
    default:
      return { id, effect: 'allow', when: { principal: [{ claims: { department: `dept-${k % 9}` } }], tool: `svc${k % 30}__*` } };
  }
}

/** 1,000 rules in ten files for `upstreams` fleet upstreams named up00, up01, ... */
export function writeLargePolicy(dir: string, upstreams: number): BenchPolicy & { hiddenTools: number } {
  mkdirSync(dir, { recursive: true });
  const matching = [
    { id: 'fleet-bench-allow', description: 'The benchmark client may use every fleet tool', effect: 'allow', when: { principal: [{ groups: ['bench'] }], tool: 'up*__*' } },
    { id: 'fleet-no-tool-49', description: 'Nobody uses tool_49', effect: 'deny', when: { tool: 'up*__tool_49' } },
    {
      id: 'fleet-echo-args',
      effect: 'deny',
      when: { tool: 'up*__echo', arguments: { properties: { message: { pattern: '^forbidden' } }, required: ['message'] } },
    },
    { id: 'fleet-analysts', effect: 'allow', when: { principal: [{ groups: ['analysts'] }], tool: ['up0*__tool_1*', 'up1*__tool_2*'] } },
  ];
  const rules: Record<string, unknown>[] = [...matching];
  for (let k = 0; rules.length < 1000; k++) rules.push(fillerRule(k, upstreams));
  for (let f = 0; f < 10; f++) {
    const header = '# yaml-language-server: $schema=../schema/policy.schema.json\n';
    writeFileSync(join(dir, `${pad(f * 10)}-generated.yaml`), header + stringify({ rules: rules.slice(f * 100, f * 100 + 100) }));
  }
  return { dir, rules: rules.length, hiddenTools: upstreams };
}
