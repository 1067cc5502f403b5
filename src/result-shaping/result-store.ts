// Full copies of shaped results, kept in memory for a bounded time and bounded bytes, each
// bound to the principal (authorization context) whose call produced it. A lookup by anyone
// else finds nothing, exactly as for an id that never existed. Least recently used entries
// go first when the byte budget is reached; an entry past its ttl is never returned.
//
// Left to others: ids in URIs (kept-result-uri.ts), paging (read-kept-result.ts). The store
// is per process: behind a load balancer, a read that lands on another replica finds nothing.
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface KeptPart {
  mimeType: string;
  /** Text parts are UTF-8 and paged by byte; blob parts hold the decoded bytes. */
  encoding: 'text' | 'blob';
  data: Buffer;
}

interface Entry extends KeptPart {
  owner: string;
}

export interface ResultStoreLimits {
  ttlMs: number;
  maxBytes: number;
  maxEntryBytes: number;
}

export interface ResultStore {
  /** The id of the kept copy; undefined when the part is over maxEntryBytes. */
  put(owner: string, part: KeptPart): string | undefined;
  get(owner: string, id: string): KeptPart | undefined;
  stats(): { entries: number; bytes: number };
}

/** Bookkeeping per entry beyond its data: the id, the owner and the map's own nodes. */
const ENTRY_OVERHEAD_BYTES = 256;

export function createResultStore(limits: ResultStoreLimits, now: () => number = Date.now): ResultStore {
  const entries = new LRUCache<string, Entry>({
    maxSize: Math.max(1, limits.maxBytes),
    sizeCalculation: (e) => e.data.length + e.owner.length + ENTRY_OVERHEAD_BYTES,
    ttl: Math.max(1, limits.ttlMs),
    // The gateway's clock, so expiry is testable; resolution 0: every check reads it.
    perf: { now },
    ttlResolution: 0,
    updateAgeOnGet: false,
  });
  return {
    put(owner, part) {
      if (part.data.length > limits.maxEntryBytes || part.data.length + owner.length + ENTRY_OVERHEAD_BYTES > limits.maxBytes) return undefined;
      const id = randomBytes(16).toString('base64url');
      entries.set(id, { ...part, owner });
      return id;
    },
    get(owner, id) {
      const e = entries.get(id);
      if (!e || e.owner !== owner) return undefined;
      return { mimeType: e.mimeType, encoding: e.encoding, data: e.data };
    },
    stats: () => ({ entries: entries.size, bytes: entries.calculatedSize }),
  };
}
