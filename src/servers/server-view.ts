// One virtual server's view of the merged catalog (pure): the same upstream parts as the
// default endpoint, named the server's way (its upstreams' prefixes, or none), and cut down
// to the server's selection. An item outside the selection is not in the view's index, so a
// call naming it is exactly an unknown one (MCP 2026-07-28, server/tools: -32602 "Unknown tool").
//
// The shape runs on every merge of the server's parts, never per request. It is the place
// where more per-server shaping of definitions joins the selection; policy, pins and
// quarantine run after it, on the shaped items, as on the default endpoint.
import type { ItemOrigin, MergedList } from '../catalog/merge.ts';
import { KEY_FIELD, type ViewShape } from '../catalog/merged-view.ts';
import { prefixName, shortenName } from '../catalog/naming.ts';
import { compileGlobSet, type GlobSet } from '../policy/glob.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import type { OverlaysConfig } from '../overlays/overlay-config.ts';
import type { ItemSelection, ServerConfig } from './servers-config.ts';

export interface NamingRules {
  separator: string;
  maxNameLength: number;
  /** Each upstream's prefix on the default endpoint. */
  prefixOf(upstream: string): string;
}

/** What a catalog needs to serve one server's view of the shared parts. */
export interface ServerScope {
  name: string;
  /** The server's own overlays, applied after `shape` (with the gateway-wide ones for the rest). */
  overlays: OverlaysConfig;
  /** The prefix of each upstream on this server: '' for every one with `prefix: none`. */
  prefixOf(upstream: string): string;
  shape: ViewShape;
}

interface CompiledSelection {
  include: GlobSet;
  exclude: GlobSet | undefined;
}

function compileSelection(s: ItemSelection): CompiledSelection {
  return { include: compileGlobSet(s.include), exclude: s.exclude.length > 0 ? compileGlobSet(s.exclude) : undefined };
}

/** Offered when the exposed or the upstream's own name is included and neither is excluded. */
function selects(s: CompiledSelection, exposed: string, original: string): boolean {
  if (!s.include.matches(exposed) && !s.include.matches(original)) return false;
  return s.exclude === undefined || (!s.exclude.matches(exposed) && !s.exclude.matches(original));
}

/** The name an item has on the default endpoint, before collision suffixes: what policy
 * rules and pins are written against. */
export function gatewayName(rules: NamingRules, upstream: string, original: string): string {
  return shortenName(prefixName(rules.prefixOf(upstream), rules.separator, original), rules.maxNameLength);
}

export function serverScope(server: ServerConfig, rules: NamingRules): ServerScope {
  const selection: Record<ListKind, CompiledSelection> = {
    tools: compileSelection(server.select.tools),
    prompts: compileSelection(server.select.prompts),
    resources: compileSelection(server.select.resources),
    resourceTemplates: compileSelection(server.select.resourceTemplates),
  };
  const ownNames = server.prefix === 'none';
  const shape: ViewShape = (kind, merged) => {
    const field = KEY_FIELD[kind];
    const named = kind === 'tools' || kind === 'prompts';
    const index = new Map<string, ItemOrigin>();
    const items = merged.items.filter((item) => {
      const key = item[field] as string;
      const origin = merged.index.get(key);
      if (origin === undefined || !selects(selection[kind], key, origin.original)) return false;
      if (index.has(key)) return true;
      const policyName = ownNames && named ? gatewayName(rules, origin.upstream, origin.original) : key;
      index.set(key, policyName === key ? origin : { ...origin, policyName });
      return true;
    });
    const kept: MergedList = { ...merged, items, index, renames: merged.renames.filter((r) => index.has(r.exposed)) };
    return kept;
  };
  return { name: server.name, overlays: server.overlays, prefixOf: ownNames ? () => '' : rules.prefixOf, shape };
}
