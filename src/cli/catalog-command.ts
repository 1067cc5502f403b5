// `gatehouse catalog show --config FILE [--server S] [--as PRINCIPAL] [--json]`: what one
// caller sees on the gateway's default endpoint, or on virtual server S (its naming, selection
// and overlays, and policy judged with its name), after the merge, the overlays and the
// policy, each item with where it
// comes from: the upstream and its own name, the overlay that shaped it (file, line, path),
// and the rule that lets the caller see it. Items hidden by policy, quarantined by a pin and
// held back by their overlay are listed apart, with why. The upstreams are started from the
// config, as `gatehouse policy pin` does; every one must answer. Exit 0, or 2 (bad usage, bad
// config or policy, an unknown server, an upstream down).
import { parseArgs } from 'node:util';
import { ANONYMOUS_PRINCIPAL, type Principal } from '../identity/principal.ts';
import type { MergedView } from '../catalog/merged-view.ts';
import { KEY_FIELD } from '../catalog/merged-view.ts';
import { describeSource } from '../overlays/overlay-config.ts';
import type { CompiledPolicy } from '../policy/compile-policy.ts';
import type { ActionKind } from '../policy/decision.ts';
import { toolDefinitionHash } from '../policy/tool-definition-hash.ts';
import { LIST_METHODS, type ListKind } from '../protocol/list-kinds.ts';
import { loadPolicyForCli } from './policy-options.ts';
import { parsePrincipal } from './policy-explain.ts';
import { CLI_AUTH_CONTEXT, serverCatalog, withUpstreams } from './upstream-session.ts';

export const CATALOG_USAGE = `usage:
  gatehouse catalog show --config GATEWAY.yaml [--server NAME] [--as PRINCIPAL] [--json]`;

const ACTION_KIND: Readonly<Record<ListKind, ActionKind>> = { tools: 'tool', prompts: 'prompt', resources: 'resource', resourceTemplates: 'resourceTemplate' };

interface Entry {
  name: string;
  upstream: string;
  original: string;
  /** The name policy judges, when it is not `name` (a `prefix: none` server). */
  policyName?: string;
  overlay?: string;
  rule: string;
  state: 'visible' | 'hidden' | 'quarantined' | 'held';
  reason?: string;
}

export async function catalogCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const usage = (message: string): number => {
    process.stderr.write(`gatehouse catalog: ${message}\n${CATALOG_USAGE}\n`);
    return 2;
  };
  if (sub !== 'show') return usage(sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`);
  let values: { config?: string; as?: string; json?: boolean; server?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { config: { type: 'string', short: 'c' }, as: { type: 'string' }, json: { type: 'boolean' }, server: { type: 'string' } } }));
  } catch (e) {
    return usage((e as Error).message);
  }
  if (values.config === undefined) return usage('--config is required');
  const principal = values.as === undefined ? ANONYMOUS_PRINCIPAL : parsePrincipal(values.as);
  if (typeof principal === 'string') return usage(`--as: ${principal}`);
  return withUpstreams('catalog show', values.config, async ({ config, catalog }) => {
    const policy = config.policy ? loadPolicyForCli(config.policy.dir, config.policy.defaultEffect) : undefined;
    if (typeof policy === 'number') return policy;
    const name = values.server;
    const server = name === undefined ? undefined : config.servers.find((s) => s.name === name);
    if (name !== undefined && server === undefined) {
      process.stderr.write(`gatehouse catalog show: no server is named "${name}" (${config.servers.length ? `servers: ${config.servers.map((s) => s.name).join(', ')}` : 'the config has no servers'})\n`);
      return 2;
    }
    const c = server ? serverCatalog(catalog(config.overlays), config, server) : catalog(config.overlays);
    const out: Record<string, Entry[]> = {};
    for (const kind of Object.keys(LIST_METHODS) as ListKind[]) out[kind] = entries(await c.view(kind, CLI_AUTH_CONTEXT), principal, policy, name);
    process.stdout.write(values.json ? `${JSON.stringify(out, null, 2)}\n` : format(out, values.as ?? 'anonymous', name));
    return 0;
  });
}

function entries(view: MergedView, principal: Principal, policy: CompiledPolicy | undefined, server: string | undefined): Entry[] {
  const field = KEY_FIELD[view.kind];
  const list: Entry[] = view.items.map((item) => {
    const name = item[field] as string;
    const origin = view.index.get(name)!;
    const applied = view.overlays?.get(name);
    // On a server, the name policy judges may be another (servers/server-view.ts).
    const judged = origin.policyName ?? name;
    const base = { name, upstream: origin.upstream, original: origin.original, ...(judged === name ? {} : { policyName: judged }), ...(applied ? { overlay: describeSource(applied.overlay.source) } : {}) };
    if (!policy) return { ...base, rule: 'no-policy', state: 'visible' };
    const action = { kind: ACTION_KIND[view.kind], upstream: origin.upstream, name: judged, upstreamName: origin.original, ...(server === undefined ? {} : { server }) };
    const pin = view.kind === 'tools' ? policy.pins.get(judged) : undefined;
    if (pin && toolDefinitionHash(item, pin.version) !== pin.sha256) return { ...base, rule: 'quarantine', state: 'quarantined', reason: 'its definition no longer matches its pin' };
    const decision = policy.decide(principal, { ...action, operation: 'list' });
    return { ...base, rule: decision.ruleId, state: policy.visible(principal, action) ? 'visible' : 'hidden', reason: decision.reason };
  });
  for (const h of view.held ?? []) {
    list.push({ name: h.overlay.name ?? h.overlay.target, upstream: h.upstream ?? h.overlay.upstream ?? '', original: h.original ?? h.overlay.target, overlay: describeSource(h.overlay.source), rule: 'overlay', state: 'held', reason: `${h.state}: ${h.reason}` });
  }
  return list;
}

function format(out: Record<string, Entry[]>, who: string, server: string | undefined): string {
  const lines: string[] = [];
  const where = server === undefined ? '' : ` on server ${server}`;
  const named = (e: Entry): string => `${e.name}${e.policyName ? ` (policy name ${e.policyName})` : ''}  <- ${e.upstream} ${JSON.stringify(e.original)}${e.overlay ? `  overlay ${e.overlay}` : ''}  rule ${e.rule}`;
  for (const [kind, list] of Object.entries(out)) {
    const shown = list.filter((e) => e.state === 'visible');
    const apart = list.filter((e) => e.state !== 'visible');
    lines.push(`${kind}: ${shown.length} visible to ${who}${where}${apart.length ? `, ${apart.length} not` : ''}`);
    for (const e of shown) lines.push(`  ${named(e)}`);
    for (const e of apart) lines.push(`  (${e.state}) ${named(e)}: ${e.reason ?? ''}`);
  }
  return lines.join('\n') + '\n';
}
