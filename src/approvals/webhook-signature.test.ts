import { describe, expect, it } from 'vitest';
import { createMemoryApprovalStore } from './approval-store.ts';
import { REPLAY_WINDOW_MS, signBody, signatureHex, TOLERANCE_SECONDS, verifySignature } from './webhook-signature.ts';

const SECRET = 'x'.repeat(40);
const BODY = '{"id":"abc","decision":"approve","by":"carol"}';
const NOW = 1_760_000_000;

describe('webhook signatures', () => {
  it('accepts a body signed with the shared secret', () => {
    const header = signBody(SECRET, BODY, NOW);
    expect(header).toMatch(/^t=1760000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(SECRET, header, BODY, NOW + 10)).toMatchObject({ ok: true, value: { timestamp: NOW } });
  });

  it('refuses another secret, a changed body, and a re-dated signature', () => {
    const header = signBody(SECRET, BODY, NOW);
    expect(verifySignature('y'.repeat(40), header, BODY, NOW)).toEqual({ ok: false, error: 'mismatch' });
    expect(verifySignature(SECRET, header, BODY.replace('approve', 'deny'), NOW)).toEqual({ ok: false, error: 'mismatch' });
    const redated = header.replace(`t=${NOW}`, `t=${NOW + 60}`);
    expect(verifySignature(SECRET, redated, BODY, NOW + 60)).toEqual({ ok: false, error: 'mismatch' });
  });

  it('refuses a timestamp more than five minutes away, either way', () => {
    expect(verifySignature(SECRET, signBody(SECRET, BODY, NOW - TOLERANCE_SECONDS - 1), BODY, NOW)).toEqual({ ok: false, error: 'stale' });
    expect(verifySignature(SECRET, signBody(SECRET, BODY, NOW + TOLERANCE_SECONDS + 1), BODY, NOW)).toEqual({ ok: false, error: 'stale' });
    expect(verifySignature(SECRET, signBody(SECRET, BODY, NOW - TOLERANCE_SECONDS), BODY, NOW).ok).toBe(true);
  });

  it('refuses missing and malformed headers', () => {
    expect(verifySignature(SECRET, null, BODY, NOW)).toEqual({ ok: false, error: 'missing' });
    for (const bad of ['v1=abc', `t=${NOW}`, `t=soon,v1=${'0'.repeat(64)}`, `t=${NOW},v1=XYZ`, 'garbage', `t=${NOW},t=${NOW},v1=${'0'.repeat(64)}`]) {
      expect(verifySignature(SECRET, bad, BODY, NOW)).toEqual({ ok: false, error: 'malformed' });
    }
  });

  it('accepts when one of several v1 signatures matches, and ignores unknown schemes', () => {
    const good = signatureHex(SECRET, NOW, BODY);
    const header = `t=${NOW},v0=whatever,v1=${'0'.repeat(64)},v1=${good}`;
    expect(verifySignature(SECRET, header, BODY, NOW)).toMatchObject({ ok: true, value: { signature: good } });
  });

  it('a replayed signature is caught by its single-use marker', async () => {
    const store = createMemoryApprovalStore({ now: () => NOW * 1000 });
    const verified = verifySignature(SECRET, signBody(SECRET, BODY, NOW), BODY, NOW);
    if (!verified.ok) throw new Error('unexpected');
    const marker = `webhook-callback:${verified.value.signature}`;
    expect(await store.consumeOnce(marker, REPLAY_WINDOW_MS)).toBe(true);
    // The same message again, still inside the tolerance: the signature verifies, the marker refuses.
    expect(verifySignature(SECRET, signBody(SECRET, BODY, NOW), BODY, NOW + 30).ok).toBe(true);
    expect(await store.consumeOnce(marker, REPLAY_WINDOW_MS)).toBe(false);
  });
});
