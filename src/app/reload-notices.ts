// Who hears list_changed after a config reload: every notification stream (2026-07-28
// subscriptions/listen, 2025-11-25 session GET streams) whose principal's visible list of a
// kind it listens for differs before and after the swap — an upstream added, removed or
// replaced, a prefix or separator changed, a policy changed — and nobody else. Each list is
// what the caller may see on its own endpoint (the default one or its virtual server: that
// server's merged view, cut by the policy's visibility judged with the server's name), reduced
// to one digest; callers sharing an authorization context and endpoint share the work.
import { createHash } from 'node:crypto';
import type { Catalog } from '../catalog/catalog.ts';
import { KEY_FIELD } from '../catalog/merged-view.ts';
import type { Principal } from '../identity/principal.ts';
import type { Enforcer } from '../policy/enforcer.ts';
import type { ListKind } from '../protocol/list-kinds.ts';
import type { ChangeKind, ChangeListener } from '../transport/notifier.ts';

/** The lists behind each notification kind (resources covers templates too). */
const LISTS: Readonly<Record<ChangeKind, readonly ListKind[]>> = {
  tools: ['tools'],
  prompts: ['prompts'],
  resources: ['resources', 'resourceTemplates'],
};

/** Digest of each visible list, per listener, in notifier order. */
export type ListSnapshot = Map<ChangeListener, Map<ChangeKind, string>>;

/** `catalogOf`: the catalog of an endpoint in service (undefined: the default one); a listener
 * whose server has none (removed) has no snapshot. */
export async function snapshotLists(listeners: readonly ChangeListener[], catalogOf: (server: string | undefined) => Catalog | undefined, enforcer: Enforcer): Promise<ListSnapshot> {
  const byContext = new Map<string, Promise<string>>();
  const digest = (principal: Principal, kind: ChangeKind, catalog: Catalog, server: string | undefined): Promise<string> => {
    const key = `${server ?? ''}\u0000${principal.authContext}\u0000${kind}`;
    let d = byContext.get(key);
    if (d === undefined) {
      d = visibleDigest(principal, kind, catalog, enforcer, server);
      byContext.set(key, d);
    }
    return d;
  };
  const out: ListSnapshot = new Map();
  await Promise.all(
    listeners.map(async (l) => {
      const catalog = catalogOf(l.server);
      if (!l.principal || !catalog) return;
      const kinds = new Map<ChangeKind, string>();
      for (const kind of l.wants) kinds.set(kind, await digest(l.principal, kind, catalog, l.server));
      out.set(l, kinds);
    }),
  );
  return out;
}

/** Tells each listener still open of every kind whose digest changed; returns how many were told. */
export function deliverChanges(before: ListSnapshot, after: ListSnapshot, stillOpen: readonly ChangeListener[]): number {
  let told = 0;
  const open = new Set(stillOpen);
  for (const [l, kinds] of after) {
    const was = before.get(l);
    if (was === undefined || !open.has(l)) continue;
    const changed = [...kinds].filter(([kind, d]) => was.get(kind) !== d).map(([kind]) => kind);
    for (const kind of changed) l.deliver(kind);
    if (changed.length > 0) told++;
  }
  return told;
}

async function visibleDigest(principal: Principal, kind: ChangeKind, catalog: Catalog, enforcer: Enforcer, server: string | undefined): Promise<string> {
  const hash = createHash('sha256');
  for (const list of LISTS[kind]) {
    const view = await catalog.view(list, principal.authContext);
    hash.update(`${list}\u0000`);
    for (const item of view.items) {
      const key = item[KEY_FIELD[list]];
      const origin = typeof key === 'string' ? view.index.get(key) : undefined;
      if (origin === undefined || !enforcer.visible(principal, list, item, origin, server)) continue;
      hash.update(JSON.stringify(item)).update('\u0000');
    }
  }
  return hash.digest('hex');
}
