// API keys are stored as SHA-256 digests, never in clear, so a leaked config or secrets file
// does not leak working credentials. A plain hash (not a slow KDF) is right here because the
// keys are random with at least 128 bits of entropy (docs/identity.md says how to make one):
// there is nothing to brute-force, unlike passwords. Matching does the same work whatever the
// key, so response timing tells an attacker neither whether nor which configured key matched.
import { hash, timingSafeEqual } from 'node:crypto';

export const KEY_HASH_PREFIX = 'sha256:';

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/** SHA-256 of the key's UTF-8 bytes. */
export function keyDigest(key: string): Buffer {
  // One-shot: no Hash object per request (it showed in the hot path's profile).
  return hash('sha256', key, 'buffer');
}

/** Lower-case hex SHA-256 of the key's UTF-8 bytes, as the config stores it. */
export function hashKey(key: string): string {
  return keyDigest(key).toString('hex');
}

/** The 32 digest bytes of a configured hash, `<hex>` or `sha256:<hex>`; undefined if it is neither. */
export function parseKeyHash(text: string): Buffer | undefined {
  const hex = (text.startsWith(KEY_HASH_PREFIX) ? text.slice(KEY_HASH_PREFIX.length) : text).toLowerCase();
  return HEX_DIGEST.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/**
 * Index of the configured digest equal to `presented`, or -1. Every digest is compared, in
 * full and in constant time, even after a match: the loop's duration depends only on how
 * many keys are configured. `equal` is injectable so a test can count the comparisons.
 */
export function matchKeyHash(
  presented: Buffer,
  configured: readonly Buffer[],
  equal: (a: Buffer, b: Buffer) => boolean = timingSafeEqual,
): number {
  let found = -1;
  for (let i = 0; i < configured.length; i++) {
    // Both sides are 32-byte digests (parseKeyHash), so timingSafeEqual never throws on length.
    const same = equal(presented, configured[i] as Buffer);
    // No branch on `same` that skips work: the index is kept with a conditional expression.
    found = same && found === -1 ? i : found;
  }
  return found;
}
