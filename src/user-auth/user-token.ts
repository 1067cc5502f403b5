// What the vault keeps for one (principal, upstream): the user's tokens from the upstream's
// authorization server, and what is needed to refresh them without discovering again. The
// record is sealed as a whole (AES-GCM, sealed-token.ts) before it is stored; only the
// listing fields beside it (who, which upstream, until when, which scopes) are in clear.

export interface UserToken {
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch ms; the lifetime is assumed when the server gave none. */
  expiresAt: number;
  obtainedAt: number;
  scope: string | undefined;
  /** The client the tokens were issued to, and where to refresh them. */
  clientId: string;
  issuer: string;
  tokenEndpoint: string;
  resource: string;
}

/** The clear fields stored beside the sealed record, for `gatehouse user-tokens list`. */
export interface UserTokenListing {
  principal: string;
  upstream: string;
  expiresAt: number;
  obtainedAt: number;
  scope: string | undefined;
  refreshable: boolean;
}

export function isUserToken(v: unknown): v is UserToken {
  if (v === null || typeof v !== 'object') return false;
  const t = v as Record<string, unknown>;
  return typeof t.accessToken === 'string' && typeof t.expiresAt === 'number' && typeof t.clientId === 'string' && typeof t.tokenEndpoint === 'string';
}
