import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as crypto from 'node:crypto';
import { createAuthenticator, type AuthFailure } from '../../src/identity/authenticate.ts';
import { hashKey } from '../../src/identity/hash-key.ts';
import type { Principal } from '../../src/identity/principal.ts';
import type { Result } from '../../src/protocol/result.ts';
import { bearer, identityConfig, ISSUER, METADATA_URL, NOW_MS, RESOURCE, signingKey, signToken, startJwksServer } from './jwt-fixtures.ts';

// Counts the constant-time comparisons the authenticator makes, without changing them.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const CI_KEY = 'k7Qm2v9XcR4tY8wZpL3nB6sD1fG5hJ0a';
const OPS_KEY = 'Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1Pa9Sd0Fg';
const KEYS = [
  { id: 'ci-bot', sha256: hashKey(CI_KEY), subject: 'ci-bot', groups: ['automation'], claims: { team: 'platform' } },
  { id: 'ops', sha256: `sha256:${hashKey(OPS_KEY).toUpperCase()}`, scopes: ['mcp:tools'] },
  { id: 'filler-1', sha256: hashKey('filler-key-number-one-000000') },
  { id: 'filler-2', sha256: hashKey('filler-key-number-two-000000') },
];

function failure(result: Result<Principal, AuthFailure>): AuthFailure {
  if (result.ok) throw new Error(`expected a failure, got principal ${result.value.subject}`);
  return result.error;
}

const keysOnly = (extra: Record<string, unknown> = {}) => identityConfig({ resource: RESOURCE, apiKeys: KEYS, ...extra });

const CI_PRINCIPAL: Principal = {
  subject: 'ci-bot',
  groups: ['automation'],
  scopes: [],
  claims: { team: 'platform' },
  method: 'api_key',
  authContext: 'key:ci-bot',
};

describe('authenticate: API keys', () => {
  // A braced body: a function returned from beforeEach is run as its teardown.
  beforeEach(() => {
    vi.mocked(crypto.timingSafeEqual).mockClear();
  });

  it('accepts a key as Authorization: Bearer and maps the configured principal', async () => {
    const authenticate = createAuthenticator(keysOnly());
    expect(await authenticate(bearer(CI_KEY))).toEqual({ ok: true, value: CI_PRINCIPAL });
  });

  it('accepts a key as X-API-Key, and a key configured as upper-case "sha256:<hex>"', async () => {
    const authenticate = createAuthenticator(keysOnly());
    expect(await authenticate(new Headers({ 'x-api-key': CI_KEY }))).toEqual({ ok: true, value: CI_PRINCIPAL });
    expect(await authenticate(new Headers({ 'X-API-Key': OPS_KEY }))).toEqual({
      ok: true,
      value: { subject: 'ops', groups: [], scopes: ['mcp:tools'], claims: {}, method: 'api_key', authContext: 'key:ops' },
    });
  });

  it('compares against every configured key whether the key matches first, last or not at all', async () => {
    const authenticate = createAuthenticator(keysOnly());
    const spy = vi.mocked(crypto.timingSafeEqual);
    for (const key of [CI_KEY, 'filler-key-number-two-000000', 'not-a-configured-key-at-all-00']) {
      spy.mockClear();
      await authenticate(bearer(key));
      expect(spy).toHaveBeenCalledTimes(KEYS.length);
    }
  });

  it('refuses an unknown key with 401 invalid_token and a challenge without resource_metadata (no OAuth configured)', async () => {
    const authenticate = createAuthenticator(keysOnly());
    const result = failure(await authenticate(bearer('wrong-key-wrong-key-wrong-key-00')));
    expect(result).toEqual({
      status: 401,
      error: 'invalid_token',
      description: 'the credentials are not valid',
      wwwAuthenticate: 'Bearer error="invalid_token", error_description="the credentials are not valid"',
    });
    expect(failure(await authenticate(new Headers({ 'x-api-key': CI_KEY.slice(0, -1) }))).status).toBe(401);
  });

  it('checks a JWT-shaped X-API-Key value as a key, never as a token', async () => {
    const jwtShapedKey = 'aaaa.bbbb.cccc';
    const config = identityConfig({
      resource: RESOURCE,
      apiKeys: [{ id: 'dotted', sha256: hashKey(jwtShapedKey) }],
      jwt: { issuer: ISSUER, jwksUrl: 'http://127.0.0.1:9/jwks.json' },
    });
    const authenticate = createAuthenticator(config);
    const result = await authenticate(new Headers({ 'x-api-key': jwtShapedKey }));
    expect(result.ok && result.value.authContext).toBe('key:dotted');
  });

  it('takes a non-JWT bearer as an API key when JWTs are configured too', async () => {
    const rsa = await signingKey('rsa-k');
    const jwks = await startJwksServer([rsa.publicJwk]);
    const config = identityConfig({ resource: RESOURCE, apiKeys: KEYS, jwt: { issuer: ISSUER, jwksUrl: jwks.url } });
    const authenticate = createAuthenticator(config, { now: () => NOW_MS });
    expect(await authenticate(bearer(CI_KEY))).toEqual({ ok: true, value: CI_PRINCIPAL });
    const viaJwt = await authenticate(bearer(await signToken(rsa)));
    expect(viaJwt.ok && viaJwt.value.method).toBe('jwt');
    expect(jwks.fetches()).toBe(1);
    await jwks.close();
  });
});

describe('authenticate: missing and malformed credentials', () => {
  const oauth = () =>
    identityConfig({
      resource: RESOURCE,
      apiKeys: KEYS,
      jwt: { issuer: ISSUER, jwksUrl: 'https://auth.example.com/jwks.json' },
      scopesSupported: ['mcp:tools', 'mcp:read'],
    });

  it('answers 401 with resource_metadata and scope, and no error code, when nothing is presented', async () => {
    const authenticate = createAuthenticator(oauth());
    expect(failure(await authenticate(new Headers()))).toEqual({
      status: 401,
      error: 'missing_credentials',
      description: 'credentials are required',
      wwwAuthenticate: `Bearer resource_metadata="${METADATA_URL}", scope="mcp:tools mcp:read"`,
    });
  });

  it('treats another Authorization scheme as no credentials: 401 without an error code, never anonymous', async () => {
    const authenticate = createAuthenticator(identityConfig({ resource: RESOURCE, apiKeys: KEYS, anonymous: { enabled: true } }));
    expect(failure(await authenticate(new Headers({ authorization: `Basic ${btoa('u:p')}` })))).toEqual({
      status: 401,
      error: 'missing_credentials',
      description: 'the Authorization scheme must be Bearer',
      wwwAuthenticate: 'Bearer',
    });
  });

  const malformed: [string, Record<string, string>, string][] = [
    ['an empty bearer token', { authorization: 'Bearer' }, 'expected Authorization: Bearer followed by one token'],
    ['two tokens', { authorization: `Bearer ${CI_KEY} ${OPS_KEY}` }, 'expected Authorization: Bearer followed by one token'],
    ['both Authorization and X-API-Key', { authorization: `Bearer ${CI_KEY}`, 'x-api-key': CI_KEY }, 'send credentials in Authorization or X-API-Key, not both'],
    ['an X-API-Key with a space', { 'x-api-key': 'two words' }, 'the X-API-Key header is empty or holds characters a key cannot have'],
  ];
  for (const [name, headers, description] of malformed) {
    it(`answers 400 invalid_request for ${name}`, async () => {
      const authenticate = createAuthenticator(oauth());
      const result = failure(await authenticate(new Headers(headers)));
      expect(result).toEqual({
        status: 400,
        error: 'invalid_request',
        description,
        wwwAuthenticate: `Bearer error="invalid_request", error_description="${description}", resource_metadata="${METADATA_URL}", scope="mcp:tools mcp:read"`,
      });
      expect(JSON.stringify(result)).not.toContain(CI_KEY);
    });
  }

  it('accepts a lower-case bearer scheme (RFC 9110 section 11.1)', async () => {
    const authenticate = createAuthenticator(keysOnly());
    expect(await authenticate(new Headers({ authorization: `bearer ${CI_KEY}` }))).toEqual({ ok: true, value: CI_PRINCIPAL });
  });
});

describe('authenticate: anonymous', () => {
  it('gives callers without credentials the configured anonymous principal when enabled', async () => {
    const config = identityConfig({ resource: RESOURCE, anonymous: { enabled: true, subject: 'guest', groups: ['public'] } });
    const result = await createAuthenticator(config)(new Headers());
    expect(result).toEqual({
      ok: true,
      value: { subject: 'guest', groups: ['public'], scopes: [], claims: {}, method: 'anonymous', authContext: 'anonymous' },
    });
    expect(Object.isFrozen(result.ok && result.value)).toBe(true);
  });

  it('still refuses bad credentials when anonymous access is enabled', async () => {
    const config = identityConfig({ resource: RESOURCE, apiKeys: KEYS, anonymous: { enabled: true } });
    expect(failure(await createAuthenticator(config)(bearer('not-a-key-not-a-key-not-a-key'))).status).toBe(401);
  });

  it('refuses callers without credentials when anonymous is left at its default', async () => {
    expect(failure(await createAuthenticator(keysOnly())(new Headers())).status).toBe(401);
  });
});

describe('authenticate: required scopes', () => {
  let rsa: Awaited<ReturnType<typeof signingKey>>;
  beforeAll(async () => {
    rsa = await signingKey('rsa-s');
  });

  it('answers 403 insufficient_scope listing every required scope, for tokens and for keys', async () => {
    const jwks = await startJwksServer([rsa.publicJwk]);
    const config = identityConfig({
      resource: RESOURCE,
      apiKeys: KEYS,
      jwt: { issuer: ISSUER, jwksUrl: jwks.url },
      scopesSupported: ['mcp:tools', 'mcp:admin', 'mcp:read'],
      requiredScopes: ['mcp:tools', 'mcp:admin'],
    });
    const authenticate = createAuthenticator(config, { now: () => NOW_MS });
    const expected: AuthFailure = {
      status: 403,
      error: 'insufficient_scope',
      description: 'this resource needs the scopes: mcp:tools mcp:admin',
      wwwAuthenticate: `Bearer error="insufficient_scope", error_description="this resource needs the scopes: mcp:tools mcp:admin", resource_metadata="${METADATA_URL}", scope="mcp:tools mcp:admin"`,
    };
    expect(failure(await authenticate(bearer(await signToken(rsa, { scope: 'mcp:tools' }))))).toEqual(expected);
    expect(failure(await authenticate(new Headers({ 'x-api-key': OPS_KEY })))).toEqual(expected);
    const granted = await authenticate(bearer(await signToken(rsa, { scope: 'mcp:admin mcp:read mcp:tools' })));
    expect(granted.ok && granted.value.scopes).toEqual(['mcp:admin', 'mcp:read', 'mcp:tools']);
    // The 401 challenge names the required scopes too, as what this operation needs.
    expect(failure(await authenticate(new Headers())).wwwAuthenticate).toBe(
      `Bearer resource_metadata="${METADATA_URL}", scope="mcp:tools mcp:admin"`,
    );
    await jwks.close();
  });
});
