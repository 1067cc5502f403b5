// Proof Key for Code Exchange (RFC 7636) with the S256 method only (MCP 2025-11-25,
// basic/authorization: clients must use S256 when they can). The verifier is 32 random bytes
// as base64url: 43 characters, within section 4.1's 43..128 of unreserved characters.
import { createHash, randomBytes } from 'node:crypto';

export interface PkcePair {
  verifier: string;
  challenge: string;
}

export function createPkce(): PkcePair {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

/** Section 4.2: BASE64URL(SHA256(ASCII(code_verifier))). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
