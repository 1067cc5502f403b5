// The lists of an upstream that has just come up are fetched at once, as the anonymous
// principal, so that a client's first list after a start (or a restart of the upstream) is
// served from the shared cache instead of waiting on every upstream in turn. The catalog does
// this only when no identity is configured: then every caller is that principal, so this is
// exactly the fetch the first caller would make (a caller who asks meanwhile joins it), never
// one more. Upstreams that answer with the caller's own credential (auth type user, token
// exchange) are left to their first caller. A failed fetch is what it would have been for that
// caller: the list circuit hears of it (shared-parts.ts).
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import { LIST_METHODS, type ListKind } from '../protocol/list-kinds.ts';
import type { Logger } from '../telemetry/logger.ts';
import { credentialKind } from '../upstream/credential-kind.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { PartCache } from './part-cache.ts';
import { offersList } from './part-within.ts';

const KINDS = Object.keys(LIST_METHODS) as ListKind[];

/** Starts the fetch of every list the upstream offers; a fresh cached copy is kept as it is. */
export function warmLists(cache: PartCache, u: Upstream, logger: Logger): void {
  const kind = credentialKind(u.config);
  if (kind === 'user' || kind === 'exchange') return;
  for (const list of KINDS) {
    if (!offersList(u, list)) continue;
    cache.get(u, list, ANONYMOUS_PRINCIPAL.authContext).catch((e: unknown) => logger.error('list warm-up failed', { upstream: u.name, kind: list, error: (e as Error).message }));
  }
}
