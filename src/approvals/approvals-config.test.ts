import { describe, expect, it } from 'vitest';
import { normalizeApprovalsConfig, parseKey } from './approvals-config.ts';

const HEX_KEY = 'a'.repeat(64);
const B64_KEY = Buffer.alloc(32, 7).toString('base64');
const SECRET = 's'.repeat(32);

describe('normalizeApprovalsConfig', () => {
  it('defaults everything but the keys and freezes the result', () => {
    const r = normalizeApprovalsConfig({ keys: [HEX_KEY] }, '/etc/gatehouse');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({
      keys: [HEX_KEY],
      timeoutMs: 300_000,
      maxPending: 1000,
      maxPendingPerPrincipal: 20,
      store: { kind: 'memory' },
      publicUrl: undefined,
      webhook: undefined,
      console: undefined,
    });
    expect(Object.isFrozen(r.value.keys)).toBe(true);
  });

  it('accepts hex, base64 and base64url keys, skips empty entries, keeps the sealing key first', () => {
    const b64url = Buffer.alloc(32, 0xfb).toString('base64url');
    const r = normalizeApprovalsConfig({ keys: [B64_KEY, '', b64url, HEX_KEY.toUpperCase()] }, '.');
    expect(r.ok && r.value.keys).toEqual([Buffer.alloc(32, 7).toString('hex'), Buffer.alloc(32, 0xfb).toString('hex'), HEX_KEY]);
  });

  it('refuses short, malformed and duplicate keys without showing them', () => {
    const r = normalizeApprovalsConfig({ keys: ['abcd', 'not a key at all', HEX_KEY, HEX_KEY] }, '.');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.map((i) => i.path)).toEqual(['/keys/0', '/keys/1', '/keys/3']);
    expect(JSON.stringify(r.error)).not.toContain('abcd');
    expect(JSON.stringify(r.error)).not.toContain('not a key');
  });

  it('says when every key is empty (an unset variable)', () => {
    const r = normalizeApprovalsConfig({ keys: [''] }, '.');
    expect(!r.ok && r.error[0]?.message).toMatch(/at least one non-empty key/);
  });

  it('normalizes the full shape', () => {
    const r = normalizeApprovalsConfig(
      {
        keys: [HEX_KEY],
        timeout: '30s',
        maxPending: 5,
        maxPendingPerPrincipal: 2,
        store: 'redis',
        redisUrl: 'redis://127.0.0.1:6379/2',
        publicUrl: 'https://gw.example.com/',
        webhook: { url: 'https://approve.example.com/hook', secret: SECRET, timeout: '2s', retries: 1, redact: true },
        console: { approvers: { groups: ['sre'] } },
      },
      '.',
    );
    expect(r.ok && r.value).toMatchObject({
      timeoutMs: 30_000,
      maxPending: 5,
      maxPendingPerPrincipal: 2,
      store: { kind: 'redis', redisUrl: 'redis://127.0.0.1:6379/2', prefix: 'gatehouse:approvals:' },
      publicUrl: 'https://gw.example.com',
      webhook: { url: 'https://approve.example.com/hook', secret: SECRET, timeoutMs: 2000, retries: 1, redact: true },
      console: { approvers: { subjects: [], groups: ['sre'] }, allowSelfApproval: false },
    });
  });

  it('refuses a plain-http webhook off this machine, a short secret, and a webhook without publicUrl', () => {
    const r = normalizeApprovalsConfig({ keys: [HEX_KEY], webhook: { url: 'http://approve.example.com', secret: 'short-secret' } }, '.');
    expect(!r.ok && r.error.map((i) => i.path).sort()).toEqual(['/publicUrl', '/webhook/secret', '/webhook/url']);
    expect(JSON.stringify(r)).not.toContain('short-secret');
    const local = normalizeApprovalsConfig({ keys: [HEX_KEY], publicUrl: 'http://127.0.0.1:8080', webhook: { url: 'http://127.0.0.1:9000/hook', secret: SECRET } }, '.');
    expect(local.ok).toBe(true);
  });

  it('refuses redis without a URL, a URL without redis, and unknown keys', () => {
    expect(normalizeApprovalsConfig({ keys: [HEX_KEY], store: 'redis' }, '.')).toMatchObject({ ok: false, error: [{ path: '/redisUrl' }] });
    expect(normalizeApprovalsConfig({ keys: [HEX_KEY], redisUrl: 'redis://x' }, '.')).toMatchObject({ ok: false, error: [{ path: '/redisUrl' }] });
    const unknown = normalizeApprovalsConfig({ keys: [HEX_KEY], approvers: [] }, '.');
    expect(!unknown.ok && unknown.error[0]?.message).toMatch(/unknown key "approvers"/);
  });

  it('refuses a console nobody can use', () => {
    const r = normalizeApprovalsConfig({ keys: [HEX_KEY], console: { approvers: { subjects: [] } } }, '.');
    expect(r).toMatchObject({ ok: false, error: [{ path: '/console/approvers' }] });
  });

  it('parseKey refuses base64 of the wrong length', () => {
    expect(parseKey(Buffer.alloc(31).toString('base64'))).toBeUndefined();
    expect(parseKey(Buffer.alloc(33).toString('base64'))).toBeUndefined();
  });
});
