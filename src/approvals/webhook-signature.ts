// Signatures of webhook approval requests and callbacks, both ways with the one shared secret:
//
//   Gatehouse-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
//
// The timestamp is inside the MAC, so a captured message cannot be re-dated; a receiver
// refuses one whose t is more than TOLERANCE_SECONDS from its clock, and remembers the
// signatures it accepted for twice that long (replay markers, consumeOnce in the store).
// Several v1 entries may be sent (a sender mid-rotation); one valid entry suffices. The
// same scheme as Stripe's and Svix's webhooks, so receivers have examples to follow.
// Pure apart from the HMAC: the clock is passed in.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { err, ok, type Result } from '../protocol/result.ts';

export const SIGNATURE_HEADER = 'Gatehouse-Signature';
export const SIGNATURE_SCHEME = 'v1';
/** How far a signed timestamp may be from the receiver's clock, either way. */
export const TOLERANCE_SECONDS = 300;
/** Replay markers outlive every timestamp that could still pass the tolerance check. */
export const REPLAY_WINDOW_MS = 2 * TOLERANCE_SECONDS * 1000;

export type SignatureError = 'missing' | 'malformed' | 'stale' | 'mismatch';

export function signatureHex(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody, 'utf8').digest('hex');
}

/** The header value for a body sent now (`nowSeconds`: unix seconds). */
export function signBody(secret: string, rawBody: string, nowSeconds: number): string {
  const t = Math.floor(nowSeconds);
  return `t=${t},${SIGNATURE_SCHEME}=${signatureHex(secret, t, rawBody)}`;
}

/**
 * Checks a header value against the raw body as received (before any JSON parsing: a
 * re-serialized body would not match). On success returns the matching signature, which
 * the caller uses as the replay marker.
 */
export function verifySignature(
  secret: string,
  header: string | null | undefined,
  rawBody: string,
  nowSeconds: number,
): Result<{ timestamp: number; signature: string }, SignatureError> {
  if (header === null || header === undefined || header.trim() === '') return err('missing');
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) return err('malformed');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^[0-9]{1,12}$/.test(value) || timestamp !== undefined) return err('malformed');
      timestamp = Number(value);
    } else if (key === SIGNATURE_SCHEME) {
      if (!/^[0-9a-f]{64}$/.test(value)) return err('malformed');
      candidates.push(value);
    }
    // Other schemes are ignored, so a newer sender can add one without breaking this receiver.
  }
  if (timestamp === undefined || candidates.length === 0) return err('malformed');
  if (Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS) return err('stale');
  const expected = Buffer.from(signatureHex(secret, timestamp, rawBody), 'hex');
  // Every candidate is compared in constant time; none short-circuits on a near miss.
  let match: string | undefined;
  for (const candidate of candidates) {
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) match = candidate;
  }
  return match === undefined ? err('mismatch') : ok({ timestamp, signature: match });
}
