import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { createAuthenticator, type AuthFailure } from '../../src/identity/authenticate.ts';
import type { Principal } from '../../src/identity/principal.ts';
import type { Result } from '../../src/protocol/result.ts';
import {
  base64url,
  bearer,
  identityConfig,
  ISSUER,
  METADATA_URL,
  NOW_MS,
  NOW_S,
  RESOURCE,
  signingKey,
  signToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from './jwt-fixtures.ts';

let rsa: SigningKey;
let ec: SigningKey;
let stranger: SigningKey;
let jwks: JwksServer;

beforeAll(async () => {
  rsa = await signingKey('rsa-1', 'RS256');
  ec = await signingKey('ec-1', 'ES256');
  stranger = await signingKey('stranger', 'RS256');
  jwks = await startJwksServer([rsa.publicJwk, ec.publicJwk]);
});
afterAll(() => jwks.close());

function remoteConfig(extra: Record<string, unknown> = {}, jwt: Record<string, unknown> = {}) {
  return identityConfig({
    resource: RESOURCE,
    scopesSupported: ['mcp:tools'],
    jwt: { issuer: ISSUER, jwksUrl: jwks.url, algorithms: ['RS256', 'ES256'], ...jwt },
    ...extra,
  });
}

const now = () => NOW_MS;

function failure(result: Result<Principal, AuthFailure>): AuthFailure {
  if (result.ok) throw new Error(`expected a failure, got principal ${result.value.subject}`);
  return result.error;
}

function invalidToken(description: string): AuthFailure {
  return {
    status: 401,
    error: 'invalid_token',
    description,
    wwwAuthenticate: `Bearer error="invalid_token", error_description="${description}", resource_metadata="${METADATA_URL}", scope="mcp:tools"`,
  };
}

describe('authenticate: valid JWTs (remote JWKS)', () => {
  it('maps a valid RS256 token to a principal with groups from a dotted path, scopes and raw claims', async () => {
    const authenticate = createAuthenticator(remoteConfig({}, { claims: { groups: 'realm_access.roles' } }), { now });
    const token = await signToken(rsa, { scope: 'mcp:tools files:read', realm_access: { roles: ['dev', 'ops', 7] }, team: 'platform' });
    const result = await authenticate(bearer(token));
    expect(result).toEqual({
      ok: true,
      value: {
        subject: 'alice',
        groups: ['dev', 'ops'],
        scopes: ['mcp:tools', 'files:read'],
        claims: {
          iss: ISSUER,
          aud: RESOURCE,
          sub: 'alice',
          iat: NOW_S,
          exp: NOW_S + 300,
          scope: 'mcp:tools files:read',
          realm_access: { roles: ['dev', 'ops', 7] },
          team: 'platform',
        },
        method: 'jwt',
        authContext: `jwt:${ISSUER}:alice`,
      },
    });
    expect(Object.isFrozen(result.ok && result.value)).toBe(true);
  });

  it('accepts an ES256 token, an `scp` array for scopes and a single-string groups claim', async () => {
    const authenticate = createAuthenticator(remoteConfig(), { now });
    const token = await signToken(ec, { sub: 'svc-7', scp: ['mcp:tools', 'mcp:read'], groups: 'admins' });
    const result = await authenticate(bearer(token));
    expect(result.ok && [result.value.subject, result.value.groups, result.value.scopes]).toEqual([
      'svc-7',
      ['admins'],
      ['mcp:tools', 'mcp:read'],
    ]);
  });

  it('reads a namespaced claim whose name contains dots as written, and a custom subject claim', async () => {
    const config = remoteConfig({}, { claims: { subject: 'email', groups: 'https://example.com/roles' } });
    const authenticate = createAuthenticator(config, { now });
    const token = await signToken(rsa, { email: 'bob@example.com', 'https://example.com/roles': ['auditor'] });
    const result = await authenticate(bearer(token));
    expect(result.ok && [result.value.subject, result.value.groups, result.value.authContext]).toEqual([
      'bob@example.com',
      ['auditor'],
      `jwt:${ISSUER}:bob@example.com`,
    ]);
  });

  it('accepts a token whose aud array includes the gateway, and one expired within the clock tolerance', async () => {
    const authenticate = createAuthenticator(remoteConfig(), { now });
    const many = await signToken(rsa, { aud: ['https://other.example.com', RESOURCE] });
    const justExpired = await signToken(rsa, { exp: NOW_S - 20 });
    expect((await authenticate(bearer(many))).ok).toBe(true);
    expect((await authenticate(bearer(justExpired))).ok).toBe(true);
  });

  it('fetches the JWKS once and serves later tokens from the cache', async () => {
    const server = await startJwksServer([rsa.publicJwk]);
    const authenticate = createAuthenticator(remoteConfig({}, { jwksUrl: server.url }), { now });
    for (const sub of ['a', 'b', 'c']) expect((await authenticate(bearer(await signToken(rsa, { sub })))).ok).toBe(true);
    expect(server.fetches()).toBe(1);
    await server.close();
  });

  it('uses the injected fetchJwks for the key set', async () => {
    const fetched: string[] = [];
    const authenticate = createAuthenticator(remoteConfig(), {
      now,
      fetchJwks: (url, init) => {
        fetched.push(url);
        return fetch(url, init);
      },
    });
    expect((await authenticate(bearer(await signToken(rsa)))).ok).toBe(true);
    expect(fetched).toEqual([jwks.url]);
  });
});

describe('authenticate: rejected JWTs answer 401 invalid_token', () => {
  const cases: [string, () => Promise<string>, string][] = [
    ['a wrong issuer', () => signToken(rsa, { iss: 'https://evil.example.com' }), 'the token was not issued by the expected issuer'],
    ['a token for another resource (RFC 8707)', () => signToken(rsa, { aud: 'https://other.example.com/mcp' }), 'the token is not meant for this resource'],
    ['no audience at all', () => signToken(rsa, { aud: null }), 'the token is not meant for this resource'],
    ['an expired token (past the 30s tolerance)', () => signToken(rsa, { exp: NOW_S - 31 }), 'the token has expired'],
    ['a token not valid yet', () => signToken(rsa, { nbf: NOW_S + 60 }), 'the token is not valid yet'],
    ['a token without exp', () => signToken(rsa, { exp: null }), 'the token has no valid expiry'],
    ['a token without the subject claim', () => signToken(rsa, { sub: null }), "the token has no 'sub' claim to identify its subject"],
    ['an unknown kid', () => signToken(stranger), "no known key matches the token's key id"],
    ['a known kid but another key', () => signToken(stranger, {}, { kid: 'rsa-1' }), "the token's signature is invalid"],
    [
      'a tampered payload',
      async () => {
        const [h, , s] = (await signToken(rsa)).split('.');
        return `${h}.${base64url({ iss: ISSUER, aud: RESOURCE, sub: 'root', exp: NOW_S + 300 })}.${s}`;
      },
      "the token's signature is invalid",
    ],
    [
      'alg none',
      async () => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ iss: ISSUER, aud: RESOURCE, sub: 'alice', exp: NOW_S + 300 })}.`,
      "the token's signing algorithm is not accepted",
    ],
    [
      'HS256 signed with the public key as the secret (key confusion)',
      () =>
        new SignJWT({ iss: ISSUER, aud: RESOURCE, sub: 'alice', exp: NOW_S + 300 })
          .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
          .sign(new TextEncoder().encode(rsa.publicPem)),
      "the token's signing algorithm is not accepted",
    ],
    ['an algorithm not pinned (ES256 when only RS256 is)', () => signToken(ec), "the token's signing algorithm is not accepted"],
  ];

  for (const [name, makeToken, description] of cases) {
    it(`refuses ${name}`, async () => {
      const onlyRs = name.startsWith('an algorithm not pinned');
      const authenticate = createAuthenticator(remoteConfig({}, onlyRs ? { algorithms: ['RS256'] } : {}), { now });
      const token = await makeToken();
      const result = failure(await authenticate(bearer(token)));
      expect(result).toEqual(invalidToken(description));
      // Never echoed: no part of the token appears in what goes back to the client.
      for (const part of token.split('.').filter((p) => p.length > 8)) expect(JSON.stringify(result)).not.toContain(part);
    });
  }

  it('does not refetch the JWKS for an unknown kid within the cooldown', async () => {
    const server = await startJwksServer([rsa.publicJwk]);
    const authenticate = createAuthenticator(remoteConfig({}, { jwksUrl: server.url }), { now });
    expect((await authenticate(bearer(await signToken(rsa)))).ok).toBe(true);
    for (let i = 0; i < 5; i++) failure(await authenticate(bearer(await signToken(stranger))));
    expect(server.fetches()).toBe(1);
    await server.close();
  });

  it('refuses the key-confusion token even when HS256 is pinned with a secret', async () => {
    const authenticate = createAuthenticator(
      remoteConfig({}, { algorithms: ['RS256', 'HS256'], secret: 's'.repeat(32) }),
      { now },
    );
    const token = await new SignJWT({ iss: ISSUER, aud: RESOURCE, sub: 'alice', exp: NOW_S + 300 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(rsa.publicPem));
    expect(failure(await authenticate(bearer(token)))).toEqual(invalidToken("the token's signature is invalid"));
    const genuine = await new SignJWT({ iss: ISSUER, aud: RESOURCE, sub: 'hs-user', exp: NOW_S + 300 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('s'.repeat(32)));
    const ok = await authenticate(bearer(genuine));
    expect(ok.ok && ok.value.subject).toBe('hs-user');
  });

  it('checks the typ header when configured (RFC 9068 at+jwt)', async () => {
    const authenticate = createAuthenticator(remoteConfig({}, { typ: 'at+jwt' }), { now });
    expect((await authenticate(bearer(await signToken(rsa, {}, { typ: 'at+jwt' })))).ok).toBe(true);
    expect(failure(await authenticate(bearer(await signToken(rsa, {}, { typ: 'JWT' }))))).toEqual(
      invalidToken('the token is not of the expected type'),
    );
  });

  it('checks a configured audience instead of the resource', async () => {
    const authenticate = createAuthenticator(remoteConfig({}, { audience: ['api://gatehouse'] }), { now });
    expect((await authenticate(bearer(await signToken(rsa, { aud: 'api://gatehouse' })))).ok).toBe(true);
    expect(failure(await authenticate(bearer(await signToken(rsa))))).toEqual(invalidToken('the token is not meant for this resource'));
  });
});

describe('authenticate: JWKS trouble and local JWKS files', () => {
  it('answers 503 without a challenge when the JWKS endpoint fails, and recovers', async () => {
    const server = await startJwksServer([rsa.publicJwk]);
    server.failWith(500);
    const authenticate = createAuthenticator(remoteConfig({}, { jwksUrl: server.url }), { now });
    expect(failure(await authenticate(bearer(await signToken(rsa))))).toEqual({
      status: 503,
      error: 'temporarily_unavailable',
      description: "the authorization server's keys are unavailable",
      wwwAuthenticate: '',
    });
    server.failWith(undefined);
    expect((await authenticate(bearer(await signToken(rsa)))).ok).toBe(true);
    await server.close();
  });

  it('verifies against a jwksFile and refuses keys not in it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-jwks-'));
    writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [rsa.publicJwk] }));
    const config = identityConfig({ resource: RESOURCE, jwt: { issuer: ISSUER, jwksFile: './jwks.json' } }, dir);
    expect(config.jwt?.keys).toEqual({ kind: 'file', file: path.join(dir, 'jwks.json'), jwks: { keys: [rsa.publicJwk] } });
    const authenticate = createAuthenticator(config, { now });
    const result = await authenticate(bearer(await signToken(rsa, { scope: 'a b' })));
    expect(result.ok && [result.value.subject, result.value.scopes]).toEqual(['alice', ['a', 'b']]);
    // No scopesSupported configured: the challenge carries no scope.
    expect(failure(await authenticate(bearer(await signToken(stranger))))).toEqual({
      status: 401,
      error: 'invalid_token',
      description: "no known key matches the token's key id",
      wwwAuthenticate: `Bearer error="invalid_token", error_description="no known key matches the token's key id", resource_metadata="${METADATA_URL}"`,
    });
  });
});
