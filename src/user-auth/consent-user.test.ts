import { describe, expect, it } from 'vitest';
import type { Authenticate, AuthFailure } from '../identity/authenticate.ts';
import type { Principal } from '../identity/principal.ts';
import { err, ok } from '../protocol/result.ts';
import { checkConsentUser } from './consent-user.ts';
import { normalizeUserAuthConfig } from './user-auth-config.ts';

const principal = (id: string, method: Principal['method'] = 'api_key'): Principal => ({ subject: id, groups: [], scopes: [], claims: {}, method, authContext: `key:${id}` });
const ticket = { principal: 'key:alice', subject: 'alice', upstream: 'github', expiresAt: Number.MAX_SAFE_INTEGER };
const as = (p: Principal): Authenticate => async () => ok(p);
const failing = (f: Partial<AuthFailure>): Authenticate => async () => err({ status: 401, wwwAuthenticate: 'Bearer', error: 'invalid_token', description: 'the credentials are not valid', ...f });
const headers = new Headers();

describe('checkConsentUser', () => {
  it("accepts the ticket's own principal", async () => {
    expect(await checkConsentUser(as(principal('alice')), headers, ticket)).toEqual(ok(principal('alice')));
  });

  it('refuses another principal, naming both subjects and who signed in', async () => {
    const r = await checkConsentUser(as(principal('bob')), headers, ticket);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ status: 403, error: 'other_user', signedIn: principal('bob') });
    expect(r.error.message).toContain('made for the gateway user "alice", but you signed in as "bob"');
  });

  it('refuses the same subject under another authorization context (another key, another issuer)', async () => {
    const r = await checkConsentUser(as({ ...principal('alice'), authContext: 'jwt:https://other.example:alice' }), headers, ticket);
    expect(r.ok ? undefined : r.error.error).toBe('other_user');
  });

  it('asks an anonymous or credential-less request to sign in', async () => {
    const anon = await checkConsentUser(as({ ...principal('anonymous', 'anonymous'), authContext: 'anonymous' }), headers, { ...ticket, principal: 'anonymous' });
    expect(anon.ok ? undefined : anon.error).toMatchObject({ status: 401, error: 'not_signed_in' });
    const missing = await checkConsentUser(failing({ error: 'missing_credentials', description: 'credentials are required' }), headers, ticket);
    expect(missing.ok ? undefined : missing.error).toMatchObject({ status: 401, error: 'not_signed_in' });
  });

  it("passes on the authenticator's status and safe description for a bad or unverifiable credential", async () => {
    const bad = await checkConsentUser(failing({}), headers, ticket);
    expect(bad.ok ? undefined : bad.error).toEqual({ status: 401, error: 'sign_in_failed', message: 'the credentials are not valid' });
    const down = await checkConsentUser(failing({ status: 503, error: 'temporarily_unavailable', description: 'the signing keys cannot be fetched' }), headers, ticket);
    expect(down.ok ? undefined : down.error).toEqual({ status: 503, error: 'sign_in_failed', message: 'the signing keys cannot be fetched' });
  });
});

describe('userAuth.verifyConsentUser', () => {
  const raw = { publicUrl: 'https://gw.example', keys: ['a'.repeat(64)] };
  it('is on unless turned off', () => {
    expect(normalizeUserAuthConfig(raw, []).verifyConsentUser).toBe(true);
    expect(normalizeUserAuthConfig({ ...raw, verifyConsentUser: false }, []).verifyConsentUser).toBe(false);
  });
});
