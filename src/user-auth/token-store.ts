// Where sealed user tokens live: the interface, and the in-memory store (one replica; lost
// on restart). redis-token-store.ts shares them between replicas. A store only keeps what it
// is given: records arrive sealed (token-vault.ts seals and opens them), and the listing beside
// each holds no secret. Also holds the single-use markers of consent state and the clients
// registered dynamically (RFC 7591), which every replica must share to refresh a token.
import type { UserTokenListing } from './user-token.ts';

export interface TokenStore {
  get(principal: string, upstream: string): Promise<string | undefined>;
  put(principal: string, upstream: string, sealed: string, listing: UserTokenListing): Promise<void>;
  /** True when there was a record. */
  delete(principal: string, upstream: string): Promise<boolean>;
  list(): Promise<UserTokenListing[]>;
  /** True the first time `key` is seen within `ttlMs`. */
  consumeOnce(key: string, ttlMs: number): Promise<boolean>;
  getClient(issuer: string): Promise<string | undefined>;
  putClient(issuer: string, registration: string): Promise<void>;
  close(): Promise<void>;
}

/** Most distinct (principal, upstream) records one process keeps in memory. */
export const MAX_MEMORY_RECORDS = 100_000;

export function createMemoryTokenStore(now: () => number = Date.now): TokenStore {
  const records = new Map<string, { sealed: string; listing: UserTokenListing }>();
  const once = new Map<string, number>();
  const clients = new Map<string, string>();
  const key = (principal: string, upstream: string): string => `${upstream}\u0000${principal}`;
  return {
    async get(principal, upstream) {
      return records.get(key(principal, upstream))?.sealed;
    },
    async put(principal, upstream, sealed, listing) {
      const k = key(principal, upstream);
      if (!records.has(k) && records.size >= MAX_MEMORY_RECORDS) throw new Error(`the in-memory token store is full (${MAX_MEMORY_RECORDS} records): use the Redis store`);
      records.set(k, { sealed, listing });
    },
    async delete(principal, upstream) {
      return records.delete(key(principal, upstream));
    },
    async list() {
      return [...records.values()].map((r) => r.listing);
    },
    async consumeOnce(k, ttlMs) {
      const t = now();
      for (const [m, until] of once) if (until <= t) once.delete(m);
      if ((once.get(k) ?? 0) > t) return false;
      once.set(k, t + ttlMs);
      return true;
    },
    async getClient(issuer) {
      return clients.get(issuer);
    },
    async putClient(issuer, registration) {
      clients.set(issuer, registration);
    },
    async close() {},
  };
}
