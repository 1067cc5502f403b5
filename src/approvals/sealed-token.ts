// Sealed tokens: a JSON payload encrypted and authenticated with AES-256-GCM (NIST SP
// 800-38D), for state the gateway hands to a client and must get back unchanged and unread
// (the MRTR `requestState` of an approval). The first key seals; every key is tried to open,
// so a new key can be put in front without breaking tokens sealed before (rotation).
//
// Format: `gh1.` + base64url(iv 12 bytes | ciphertext | tag 16 bytes). Each configured key
// is stretched with HKDF-SHA256 (RFC 5869) under a label of its own, so the same key material
// used elsewhere never yields this cipher key. A `context` string is bound as additional
// authenticated data: a token sealed for one purpose does not open for another.
//
// Expiry, single use and what the payload must match are the caller's: put them in the
// payload and check them after unseal (consumeOnce in the approval store for single use).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { JsonValue } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';

export const SEALED_TOKEN_PREFIX = 'gh1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_INFO = 'gatehouse approvals sealed-token v1';
const AAD_LABEL = 'gatehouse-sealed-token-v1\u0000';
/** Far beyond any state the gateway seals; refuses to spend work on garbage. */
const MAX_TOKEN_CHARS = 64 * 1024;

export type UnsealError = 'malformed' | 'invalid';

export interface Sealer {
  seal(payload: JsonValue, context?: string): string;
  /** `malformed`: not a token at all; `invalid`: no key opens it, or it was changed. */
  unseal(token: string, context?: string): Result<JsonValue, UnsealError>;
}

/** `keys`: 32-byte keys as hex (ApprovalsConfig.keys), the sealing key first. */
export function createSealer(keys: readonly string[]): Sealer {
  if (keys.length === 0) throw new Error('createSealer: no keys');
  const cipherKeys = keys.map((hex) => {
    const material = Buffer.from(hex, 'hex');
    if (material.length !== 32) throw new Error('createSealer: keys must be 32 bytes');
    return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), HKDF_INFO, 32));
  });
  const sealingKey = cipherKeys[0] as Buffer;
  const aad = (context: string): Buffer => Buffer.from(AAD_LABEL + context, 'utf8');

  return {
    seal(payload, context = '') {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealingKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(context));
      const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
      return SEALED_TOKEN_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    unseal(token, context = '') {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !token.startsWith(SEALED_TOKEN_PREFIX)) return err('malformed');
      const text = token.slice(SEALED_TOKEN_PREFIX.length);
      if (!/^[A-Za-z0-9_-]+$/.test(text)) return err('malformed');
      const raw = Buffer.from(text, 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES + 1) return err('malformed');
      const iv = raw.subarray(0, IV_BYTES);
      const body = raw.subarray(IV_BYTES, raw.length - TAG_BYTES);
      const tag = raw.subarray(raw.length - TAG_BYTES);
      for (const key of cipherKeys) {
        const plain = tryOpen(key, iv, body, tag, aad(context));
        if (plain === undefined) continue;
        try {
          return ok(JSON.parse(plain) as JsonValue);
        } catch {
          // Authentic but not JSON: only a bug in seal could produce it.
          return err('invalid');
        }
      }
      return err('invalid');
    },
  };
}

function tryOpen(key: Buffer, iv: Buffer, body: Buffer, tag: Buffer, aad: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    // GCM's tag check failed: wrong key or changed token.
    return undefined;
  }
}
