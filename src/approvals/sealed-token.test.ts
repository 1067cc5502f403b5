import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealer, SEALED_TOKEN_PREFIX } from './sealed-token.ts';

const key = (): string => randomBytes(32).toString('hex');

describe('sealed tokens', () => {
  it('round-trips a JSON payload and hides it', () => {
    const sealer = createSealer([key()]);
    const payload = { sub: 'alice', args: { path: '/etc/passwd' }, exp: 123 };
    const token = sealer.seal(payload);
    expect(token.startsWith(SEALED_TOKEN_PREFIX)).toBe(true);
    expect(token).not.toContain('alice');
    expect(Buffer.from(token.slice(4), 'base64url').toString('latin1')).not.toContain('alice');
    expect(sealer.unseal(token)).toEqual({ ok: true, value: payload });
  });

  it('opens a token sealed with the old key after a new key is put first (rotation)', () => {
    const oldKey = key();
    const newKey = key();
    const before = createSealer([oldKey]).seal({ n: 1 });
    const rotated = createSealer([newKey, oldKey]);
    expect(rotated.unseal(before)).toEqual({ ok: true, value: { n: 1 } });
    // New tokens are sealed with the new key: they no longer open where only the old key is known.
    const after = rotated.seal({ n: 2 });
    expect(createSealer([oldKey]).unseal(after)).toEqual({ ok: false, error: 'invalid' });
    expect(createSealer([newKey]).unseal(after)).toEqual({ ok: true, value: { n: 2 } });
  });

  it('refuses a token once its key is dropped', () => {
    const oldKey = key();
    const token = createSealer([oldKey]).seal({ n: 1 });
    expect(createSealer([key()]).unseal(token)).toEqual({ ok: false, error: 'invalid' });
  });

  it('refuses a token with any byte changed', () => {
    const sealer = createSealer([key()]);
    const token = sealer.seal({ approve: false });
    const raw = Buffer.from(token.slice(SEALED_TOKEN_PREFIX.length), 'base64url');
    for (const index of [0, 12, raw.length - 17, raw.length - 1]) {
      const changed = Buffer.from(raw);
      changed[index] = (changed[index] ?? 0) ^ 0x01;
      expect(sealer.unseal(SEALED_TOKEN_PREFIX + changed.toString('base64url'))).toEqual({ ok: false, error: 'invalid' });
    }
  });

  it('refuses a token sealed for another context', () => {
    const sealer = createSealer([key()]);
    const token = sealer.seal({ x: 1 }, 'mrtr-approval');
    expect(sealer.unseal(token, 'mrtr-approval').ok).toBe(true);
    expect(sealer.unseal(token, 'session')).toEqual({ ok: false, error: 'invalid' });
    expect(sealer.unseal(token)).toEqual({ ok: false, error: 'invalid' });
  });

  it('calls garbage malformed', () => {
    const sealer = createSealer([key()]);
    for (const junk of ['', 'gh1.', 'gh1.!!!', 'gh2.AAAA', 'gh1.AAAA', 'x'.repeat(70_000)]) {
      expect(sealer.unseal(junk)).toEqual({ ok: false, error: 'malformed' });
    }
  });

  it('uses a fresh IV for every token', () => {
    const sealer = createSealer([key()]);
    expect(sealer.seal({ same: true })).not.toEqual(sealer.seal({ same: true }));
  });
});
