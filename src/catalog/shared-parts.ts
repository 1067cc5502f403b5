// The upstream lists that every endpoint's catalog draws from: one fetch, one cached copy and
// one list circuit per upstream list, whether the default endpoint or a virtual server asked
// (servers/server-view.ts). Each catalog keeps its own merged and filtered views; a view goes
// when a part it was built from leaves the cache, whichever catalog built it.
import type { GatewayConfig } from '../config/types.ts';
import { LIST_METHODS, type ListKind } from '../protocol/list-kinds.ts';
import type { Logger } from '../telemetry/logger.ts';
import { ListCircuit } from './list-circuit.ts';
import { PartCache } from './part-cache.ts';
import { isUnsupportedList, type PartWithinDeps } from './part-within.ts';
import type { CatalogCacheName } from './view-cache.ts';
import { WarnOnce } from './warn-once.ts';

export class SharedParts {
  readonly warnings: WarnOnce;
  readonly circuit: ListCircuit;
  readonly cache: PartCache;
  readonly within: PartWithinDeps;
  /** Told of every entry dropped to keep a per-caller cache within its byte budget (metrics). */
  evicted: (cache: CatalogCacheName) => void = () => undefined;
  private readonly retirers: ((generation: number) => void)[] = [];

  constructor(config: GatewayConfig, logger: Logger, now: () => number) {
    this.warnings = new WarnOnce(logger);
    this.circuit = new ListCircuit(config.listRetry, now);
    // Half of the per-caller budget (limits.catalogCacheBytes) is for private upstream lists.
    this.cache = new PartCache(logger, this.warnings, now, {
      maxPrivateBytes: Math.floor(config.limits.catalogCacheBytes / 2),
      onRetire: (part, wasEvicted) => {
        if (wasEvicted) this.evicted('lists');
        for (const retire of this.retirers) retire(part.generation);
      },
      onFetch: (upstream, kind, error) => {
        // An upstream without this list (-32601) answers all the same: it contributes nothing.
        if (error !== undefined && !isUnsupportedList(error)) return this.circuit.failed(upstream, kind);
        if (this.circuit.answered(upstream, kind)) logger.info('upstream answers lists again', { upstream, kind });
      },
    });
    this.within = { cache: this.cache, circuit: this.circuit, deadlineMs: config.listDeadlineMs, afterErrors: config.listRetry.afterErrors, logger };
  }

  /** A config reload: these upstreams' lists and open circuits go (new, gone or replaced
   * connections, or all when naming changed); the list deadline is the new one. */
  reconfigure(config: GatewayConfig, dropped: ReadonlySet<string>): void {
    this.within.deadlineMs = config.listDeadlineMs;
    for (const name of dropped) {
      this.circuit.forget(name);
      for (const kind of Object.keys(LIST_METHODS) as ListKind[]) this.cache.invalidate(name, kind);
    }
  }

  /** Called with the generation of every part that leaves the cache. */
  onRetire(retire: (generation: number) => void): void {
    this.retirers.push(retire);
  }
}
