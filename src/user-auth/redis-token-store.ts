// The token store in Redis, shared by every replica, so a user who consented through one
// replica is served by all, and a refresh made by one is seen by the others.
//
// Layout (prefix P, default "gatehouse:user-tokens:"):
//   P t:<upstream>:<sha256(principal)>   hash { sealed, listing: JSON }
//   P index                              set of the t: keys (for listing)
//   P once:<key>                         single-use markers of consent state (SET NX PX)
//   P client:<sha256(issuer)>            a dynamically registered client (RFC 7591), JSON
// The principal is hashed in key names so that no identifier shapes a key; the listing holds it.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { TokenStore } from './token-store.ts';
import type { UserTokenListing } from './user-token.ts';

const hash = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

export function createRedisTokenStore(redis: Redis, prefix: string): TokenStore {
  const recordKey = (principal: string, upstream: string): string => `${prefix}t:${upstream}:${hash(principal)}`;
  const indexKey = `${prefix}index`;
  return {
    async get(principal, upstream) {
      return (await redis.hget(recordKey(principal, upstream), 'sealed')) ?? undefined;
    },
    async put(principal, upstream, sealed, listing) {
      const k = recordKey(principal, upstream);
      await redis.multi().hset(k, { sealed, listing: JSON.stringify(listing) }).sadd(indexKey, k).exec();
    },
    async delete(principal, upstream) {
      const k = recordKey(principal, upstream);
      const [[, removed] = [null, 0]] = (await redis.multi().del(k).srem(indexKey, k).exec()) ?? [];
      return removed === 1;
    },
    async list() {
      const keys = await redis.smembers(indexKey);
      const out: UserTokenListing[] = [];
      for (const k of keys) {
        const listing = await redis.hget(k, 'listing');
        if (listing !== null) out.push(JSON.parse(listing) as UserTokenListing);
      }
      return out;
    },
    async consumeOnce(key, ttlMs) {
      return (await redis.set(`${prefix}once:${key}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
    },
    async getClient(issuer) {
      return (await redis.get(`${prefix}client:${hash(issuer)}`)) ?? undefined;
    },
    async putClient(issuer, registration) {
      await redis.set(`${prefix}client:${hash(issuer)}`, registration);
    },
    async close() {
      redis.disconnect();
    },
  };
}
