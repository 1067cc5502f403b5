// Seals a user's tokens before the store sees them and opens them after: AES-256-GCM with the
// `userAuth.keys` (approvals/sealed-token.ts; the first key seals, every key opens, so keys
// rotate). The (principal, upstream) pair is bound as additional authenticated data, so a
// record copied to another user's or upstream's slot in a shared store does not open: the
// credential a call gets is chosen by the authenticated principal alone.
import { createSealer, type Sealer } from '../approvals/sealed-token.ts';
import type { JsonValue } from '../protocol/message.ts';
import type { TokenStore } from './token-store.ts';
import { isUserToken, type UserToken, type UserTokenListing } from './user-token.ts';

export interface TokenVault {
  read(principal: string, upstream: string): Promise<UserToken | undefined>;
  write(principal: string, upstream: string, token: UserToken): Promise<void>;
  remove(principal: string, upstream: string): Promise<boolean>;
  list(): Promise<UserTokenListing[]>;
  readonly store: TokenStore;
}

const context = (principal: string, upstream: string): string => `user-token\u0000${upstream}\u0000${principal}`;

export function createTokenVault(keys: readonly string[], store: TokenStore, sealer: Sealer = createSealer(keys)): TokenVault {
  return {
    store,
    async read(principal, upstream) {
      const sealed = await store.get(principal, upstream);
      if (sealed === undefined) return undefined;
      const opened = sealer.unseal(sealed, context(principal, upstream));
      // A record no key opens (keys rotated away, or tampered) is as good as none: consent again.
      return opened.ok && isUserToken(opened.value) ? opened.value : undefined;
    },
    async write(principal, upstream, token) {
      const listing: UserTokenListing = { principal, upstream, expiresAt: token.expiresAt, obtainedAt: token.obtainedAt, scope: token.scope, refreshable: token.refreshToken !== undefined };
      await store.put(principal, upstream, sealer.seal(token as unknown as JsonValue, context(principal, upstream)), listing);
    },
    remove: (principal, upstream) => store.delete(principal, upstream),
    list: () => store.list(),
  };
}
