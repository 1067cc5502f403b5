// One upstream's part of a list fan-out, within the list deadline: a slow or dead upstream
// never holds the others (MCP 2026-07-28, server/tools, g.4). An upstream that missed the
// deadline, or failed listRetry.afterErrors times in a row, is not asked again until it
// answers (list-circuit.ts): callers get the list without it, or with its last good copy, at
// once, while one retry at a time runs in the background with a growing delay.
import type { GatewayError } from '../protocol/errors.ts';
import { LIST_METHODS, type ListKind } from '../protocol/list-kinds.ts';
import { isJsonObject } from '../protocol/message.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { ListCircuit } from './list-circuit.ts';
import type { MissingPart } from './merged-view.ts';
import type { Part, PartCache } from './part-cache.ts';

export interface PartWithinDeps {
  cache: PartCache;
  circuit: ListCircuit;
  deadlineMs: number;
  /** listRetry.afterErrors, for the words that say why a list is left out. */
  afterErrors: number;
  logger: Logger;
  /** Told of every per-upstream lookup: answered from the cache or not (metrics). */
  onLookup?: (kind: ListKind, hit: boolean) => void;
}

const NOT_ANSWERING = (ms: number): string => `no answer within ${ms} ms; left out until it answers`;
const FAILING = (n: number): string => `failed ${n} times in a row; left out until it answers`;

/** An upstream that does not implement a list (-32601) answers all the same: it has none. */
/** Whether an upstream offers a list: before its first successful probe we do not know, so
 * ask; the request will tell. */
export function offersList(u: Upstream, kind: ListKind): boolean {
  const ident = u.identity();
  return !ident || isJsonObject(ident.capabilities[LIST_METHODS[kind].capability]);
}

export function isUnsupportedList(e: GatewayError): boolean {
  return e.kind === 'upstream_error' && e.error.code === -32601;
}

export async function partWithin(d: PartWithinDeps, u: Upstream, kind: ListKind, authContext: string, missing: MissingPart[]): Promise<Part | undefined> {
  const fresh = d.cache.fresh(u.name, kind, authContext);
  d.onLookup?.(kind, fresh !== undefined);
  if (fresh) return fresh;
  const open = d.circuit.state(u.name, kind);
  if (open) {
    if (d.circuit.claimRetry(u.name, kind)) {
      // The outcome reaches the circuit through the part cache's onFetch (catalog.ts).
      d.cache.get(u, kind, authContext).catch((e: unknown) => d.logger.error('list retry failed', { upstream: u.name, kind, error: (e as Error).message }));
    }
    // The same words on every request while it lasts: the merged view is shared, not rebuilt
    // per request (its key includes what is missing). When and how often: /readyz.
    missing.push({ upstream: u.name, reason: open.cause === 'deadline' ? NOT_ANSWERING(d.deadlineMs) : FAILING(d.afterErrors) });
    return d.cache.lastGood(u.name, kind, authContext);
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((r) => {
    timer = setTimeout(() => r('deadline'), d.deadlineMs);
  });
  const res = await Promise.race([d.cache.get(u, kind, authContext), deadline]);
  clearTimeout(timer);
  if (res === 'deadline') {
    const stale = d.cache.lastGood(u.name, kind, authContext);
    d.circuit.missed(u.name, kind);
    missing.push({ upstream: u.name, reason: NOT_ANSWERING(d.deadlineMs) });
    d.logger.warn('upstream too slow for list, answering without it', { upstream: u.name, kind, servedStale: !!stale });
    return stale;
  }
  if (!res.ok) {
    if (isUnsupportedList(res.error)) return undefined;
    missing.push({ upstream: u.name, reason: describeError(res.error) });
    d.logger.warn('upstream list failed, answering without it', { upstream: u.name, kind, error: describeError(res.error) });
    return undefined;
  }
  return res.value;
}

export function describeError(e: GatewayError): string {
  switch (e.kind) {
    case 'upstream_unavailable':
      return e.reason;
    case 'upstream_timeout':
      return `timed out after ${e.timeoutMs} ms`;
    case 'upstream_error':
      return `${e.error.code} ${e.error.message}`;
    default:
      return e.kind;
  }
}
