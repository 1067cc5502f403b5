// Digests of argument and result bodies, and the hash primitive of the chain: SHA-256 over
// canonical JSON (RFC 8785), written `sha256:<64 lower-case hex>`. Canonical form makes the
// digest independent of key order, so the same arguments always give the same digest.
//
// A digest proves what was sent to someone who has the body; it does not hide a body that
// can be guessed (a PIN, a short password): anyone can hash candidates and compare. Records
// that must not confirm guesses use `redacted` or `none` instead (docs/audit.md).
import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

export const DIGEST_PREFIX = 'sha256:';

/** `sha256:` + hex SHA-256 of the UTF-8 text. One-shot crypto.hash (Node >= 20.12): no Hash
 * object per call, which is over half the cost for a line of a few hundred bytes. */
export function sha256Text(text: string): string {
  return DIGEST_PREFIX + hash('sha256', text, 'hex');
}

/** `sha256:` + hex SHA-256 of the value's canonical JSON. */
export function digestJson(value: unknown): string {
  return sha256Text(canonicalJson(value));
}
