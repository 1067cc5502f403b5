// Which of a principal's lists a policy swap changes: compared item by item on the current
// merged views, so only clients whose visible lists changed are sent list_changed.
import type { Catalog } from '../catalog/catalog.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import type { Principal } from '../identity/principal.ts';
import type { CompiledPolicy } from './compile-policy.ts';
import type { ActionKind } from './decision.ts';

export type ChangedList = 'tools' | 'prompts' | 'resources';

const KINDS: readonly { list: ListKind; change: ChangedList; action: ActionKind; field: string }[] = [
  { list: 'tools', change: 'tools', action: 'tool', field: 'name' },
  { list: 'prompts', change: 'prompts', action: 'prompt', field: 'name' },
  { list: 'resources', change: 'resources', action: 'resource', field: 'uri' },
  { list: 'resourceTemplates', change: 'resources', action: 'resourceTemplate', field: 'uriTemplate' },
];

/** `server`: the virtual server whose lists `catalog` serves; undefined: the default endpoint. */
export async function changedLists(catalog: Catalog, principal: Principal, before: CompiledPolicy, after: CompiledPolicy, server?: string): Promise<Set<ChangedList>> {
  const changed = new Set<ChangedList>();
  const pinsDiffer =
    before.pins.size !== after.pins.size || [...after.pins].some(([k, v]) => before.pins.get(k)?.sha256 !== v.sha256 || before.pins.get(k)?.version !== v.version);
  if (pinsDiffer) changed.add('tools');
  for (const k of KINDS) {
    if (changed.has(k.change)) continue;
    const view = await catalog.view(k.list, principal.authContext);
    for (const item of view.items) {
      const key = item[k.field] as string;
      const origin = view.index.get(key);
      if (!origin) continue;
      const action = { kind: k.action, upstream: origin.upstream, name: origin.policyName ?? key, upstreamName: origin.original, ...(server === undefined ? {} : { server }) };
      if (before.visible(principal, action) !== after.visible(principal, action)) {
        changed.add(k.change);
        break;
      }
    }
  }
  return changed;
}
