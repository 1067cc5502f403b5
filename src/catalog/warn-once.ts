// Warnings about a lasting condition of the catalog (a renamed name, a tool left out of a
// list), logged when the condition appears instead of on every merge or fetch. An upstream
// that sends ttlMs 0 (the 2.x SDK default) is fetched and merged again on every request; one
// identical warning per request would bury everything else in the log. A condition that
// goes away and comes back is logged again, so every change is still reported.
import { LRUCache } from 'lru-cache';
import type { LogFields, Logger } from '../telemetry/logger.ts';

/** Scopes remembered. The catalog scopes renames per caller (authorization context), so an
 * unbounded map would grow with every caller ever seen; a forgotten scope only costs its
 * warnings being logged once more. */
export const MAX_WARN_SCOPES = 5_000;

export class WarnOnce {
  private readonly current = new LRUCache<string, Set<string>>({ max: MAX_WARN_SCOPES });

  constructor(private readonly logger: Logger) {}

  /** `entries` is every condition true for `scope` now; only those new since last time are logged. */
  report(scope: string, msg: string, entries: readonly LogFields[]): void {
    const before = this.current.get(scope);
    const now = new Set<string>();
    for (const fields of entries) {
      const key = JSON.stringify(fields);
      now.add(key);
      if (!before?.has(key)) this.logger.warn(msg, fields);
    }
    if (now.size > 0) this.current.set(scope, now);
    else this.current.delete(scope);
  }
}
