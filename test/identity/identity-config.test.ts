import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { CONFIG_SCHEMA } from '../../src/config/config-schema.ts';
import { hashKey } from '../../src/identity/hash-key.ts';
import {
  IDENTITY_CONFIG_SCHEMA,
  normalizeIdentityConfig,
  type IdentityConfig,
  type IdentityIssue,
} from '../../src/identity/identity-config.ts';

const RESOURCE = 'https://gw.example.com/mcp';
const ISSUER = 'https://auth.example.com';
const HASH = hashKey('k7Qm2v9XcR4tY8wZpL3nB6sD1fG5hJ0a');
const OTHER_HASH = hashKey('Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1Pa9Sd0Fg');

let dir: string;
let publicJwk: JWK;
let privateJwk: JWK;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-identity-'));
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  publicJwk = { ...(await exportJWK(publicKey)), kid: 'es-1' };
  privateJwk = { ...(await exportJWK(privateKey)), kid: 'es-1' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  writeFileSync(path.join(dir, name), content);
  return `./${name}`;
}

function valid(raw: unknown): IdentityConfig {
  const result = normalizeIdentityConfig(raw, dir);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

function issues(raw: unknown): IdentityIssue[] {
  const result = normalizeIdentityConfig(raw, dir);
  if (result.ok) throw new Error('expected issues');
  return result.error;
}

describe('normalizeIdentityConfig: valid configs', () => {
  it('fills every default for an API-key-only config and freezes the result', () => {
    const config = valid({ resource: RESOURCE, apiKeys: [{ id: 'ci-bot', sha256: HASH }] });
    expect(config).toEqual({
      resource: RESOURCE,
      anonymous: { enabled: false, subject: 'anonymous', groups: [] },
      apiKeys: [{ id: 'ci-bot', sha256: HASH, subject: 'ci-bot', groups: [], scopes: [], claims: {} }],
      jwt: undefined,
      authorizationServers: [],
      scopesSupported: [],
      requiredScopes: [],
    });
    expect(Object.isFrozen(config) && Object.isFrozen(config.apiKeys[0]) && Object.isFrozen(config.anonymous.groups)).toBe(true);
  });

  it('normalizes the full shape: keys inline and from a YAML file, JWT with defaults derived from resource and issuer', () => {
    const keysFile = file('keys.yaml', `- id: ops\n  sha256: "sha256:${OTHER_HASH.toUpperCase()}"\n  groups: [operators]\n`);
    const config = valid({
      anonymous: { enabled: false },
      resource: RESOURCE,
      apiKeys: [{ id: 'ci-bot', sha256: HASH, subject: 'ci', groups: ['automation'], scopes: ['mcp:tools'], claims: { team: 'platform' } }],
      apiKeysFile: keysFile,
      jwt: {
        issuer: ISSUER,
        jwksUrl: `${ISSUER}/.well-known/jwks.json`,
        algorithms: ['RS256', 'ES256'],
        clockTolerance: '45s',
        claims: { groups: 'realm_access.roles', scopes: 'scp' },
      },
      scopesSupported: ['mcp:tools'],
      requiredScopes: ['mcp:tools'],
    });
    expect(config.apiKeys).toEqual([
      { id: 'ci-bot', sha256: HASH, subject: 'ci', groups: ['automation'], scopes: ['mcp:tools'], claims: { team: 'platform' } },
      { id: 'ops', sha256: OTHER_HASH, subject: 'ops', groups: ['operators'], scopes: [], claims: {} },
    ]);
    expect(config.jwt).toEqual({
      issuer: ISSUER,
      audiences: [RESOURCE],
      algorithms: ['RS256', 'ES256'],
      keys: { kind: 'url', url: `${ISSUER}/.well-known/jwks.json` },
      secret: undefined,
      clockToleranceSeconds: 45,
      typ: undefined,
      claims: { subject: 'sub', groups: 'realm_access.roles', scopes: ['scp'] },
    });
    expect(config.authorizationServers).toEqual([ISSUER]);
  });

  it('defaults algorithms to RS256 and scopes to `scope` then `scp`; takes an audience list and HS256 with a long secret', () => {
    expect(valid({ resource: RESOURCE, jwt: { issuer: ISSUER, jwksUrl: 'http://127.0.0.1:9000/jwks' } }).jwt).toMatchObject({
      algorithms: ['RS256'],
      clockToleranceSeconds: 30,
      claims: { subject: 'sub', groups: 'groups', scopes: ['scope', 'scp'] },
    });
    const hs = valid({ resource: RESOURCE, jwt: { issuer: ISSUER, algorithms: ['HS256'], secret: 'x'.repeat(32), audience: ['a', 'b'] } });
    expect(hs.jwt).toMatchObject({ algorithms: ['HS256'], keys: undefined, secret: 'x'.repeat(32), audiences: ['a', 'b'] });
  });

  it('reads a JWKS file relative to baseDir', () => {
    const config = valid({ resource: RESOURCE, jwt: { issuer: ISSUER, jwksFile: file('jwks.json', JSON.stringify({ keys: [publicJwk] })), algorithms: ['ES256'] } });
    expect(config.jwt?.keys).toEqual({ kind: 'file', file: path.join(dir, 'jwks.json'), jwks: { keys: [publicJwk] } });
  });

  it('accepts anonymous-only identity', () => {
    expect(valid({ resource: RESOURCE, anonymous: { enabled: true, groups: ['public'] } }).anonymous).toEqual({
      enabled: true,
      subject: 'anonymous',
      groups: ['public'],
    });
  });
});

describe('normalizeIdentityConfig: errors name the path and what was expected', () => {
  const cases: [string, unknown, IdentityIssue[]][] = [
    [
      'unknown keys at every level',
      { resource: RESOURCE, token: 1, jwt: { issuer: ISSUER, jwksUrl: 'https://a/j', claim: {} }, anonymous: { enable: true } },
      [
        { path: '/token', message: 'unknown key "token" (allowed: resource, anonymous, apiKeys, apiKeysFile, jwt, authorizationServers, scopesSupported, requiredScopes)' },
        { path: '/anonymous/enable', message: 'unknown key "enable" (allowed: enabled, subject, groups)' },
        { path: '/jwt/claim', message: 'unknown key "claim" (allowed: issuer, audience, jwksUrl, jwksFile, secret, algorithms, clockTolerance, typ, claims)' },
      ],
    ],
    ['a missing resource', { apiKeys: [] }, [{ path: '', message: 'missing required key "resource"' }]],
    ['an empty key list and nothing else', { resource: RESOURCE, apiKeys: [] }, [{ path: '', message: 'no way to authenticate: configure `apiKeys`, `apiKeysFile` or `jwt`, or set `anonymous.enabled`' }]],
    [
      'alg none',
      { resource: RESOURCE, jwt: { issuer: ISSUER, jwksUrl: 'https://a/j', algorithms: ['none'] } },
      [{ path: '/jwt/algorithms/0', message: 'expected one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519, HS256, HS384, HS512 ("none" is never accepted), got "none"' }],
    ],
    [
      'an HS algorithm without a secret',
      { resource: RESOURCE, jwt: { issuer: ISSUER, jwksUrl: 'https://a/j', algorithms: ['RS256', 'HS256'] } },
      [{ path: '/jwt/secret', message: 'HS256 need `secret`, a shared key of at least 32 bytes' }],
    ],
    [
      'a secret shorter than the hash',
      { resource: RESOURCE, jwt: { issuer: ISSUER, algorithms: ['HS512'], secret: 'x'.repeat(40) } },
      [{ path: '/jwt/secret', message: 'too short for HS512: at least 64 bytes (RFC 7518 section 3.2)' }],
    ],
    [
      'a secret with no HS algorithm',
      { resource: RESOURCE, jwt: { issuer: ISSUER, jwksUrl: 'https://a/j', secret: 'x'.repeat(32) } },
      [{ path: '/jwt/secret', message: 'only used with HS256, HS384 or HS512, and `algorithms` lists none' }],
    ],
    [
      'neither jwksUrl nor jwksFile',
      { resource: RESOURCE, jwt: { issuer: ISSUER, algorithms: ['RS256', 'ES256'] } },
      [{ path: '/jwt', message: "RS256, ES256 need the issuer's public keys: set `jwksUrl` or `jwksFile`" }],
    ],
    [
      'both jwksUrl and jwksFile',
      { resource: RESOURCE, jwt: { issuer: ISSUER, jwksUrl: 'https://a/j', jwksFile: './j.json' } },
      [{ path: '/jwt', message: 'set one of `jwksUrl` and `jwksFile`, not both' }],
    ],
    [
      'a JWKS over plain http to another host',
      { resource: RESOURCE, jwt: { issuer: ISSUER, jwksUrl: 'http://auth.example.com/jwks' } },
      [{ path: '/jwt/jwksUrl', message: 'expected https (plain http only to a loopback host): keys fetched in clear could be swapped in transit' }],
    ],
    [
      'a clock tolerance over 5m',
      { resource: RESOURCE, jwt: { issuer: ISSUER, jwksUrl: 'https://a/j', clockTolerance: '10m' } },
      [{ path: '/jwt/clockTolerance', message: 'at most 5m: a larger tolerance extends every token past its expiry' }],
    ],
    [
      'an issuer that is not a URL with no authorizationServers to advertise instead',
      { resource: RESOURCE, jwt: { issuer: 'my-issuer', jwksUrl: 'https://a/j' } },
      [{ path: '/jwt/issuer', message: 'is not a URL, so it cannot be the default `authorizationServers` (RFC 8414 issuer); set `authorizationServers`' }],
    ],
    [
      'a resource with a fragment',
      { resource: `${RESOURCE}#x`, anonymous: { enabled: true } },
      [{ path: '/resource', message: 'expected an absolute http(s) URL without a fragment (RFC 9728 section 1.2)' }],
    ],
    [
      'offline_access, and authorizationServers without jwt',
      { resource: RESOURCE, apiKeys: [{ id: 'a', sha256: HASH }], scopesSupported: ['mcp', 'offline_access'], authorizationServers: [ISSUER] },
      [
        { path: '/scopesSupported/1', message: '"offline_access" is a matter for the authorization server, not for a resource' },
        { path: '/authorizationServers', message: 'needs `jwt`: without it the gateway accepts no token these servers issue' },
      ],
    ],
    [
      'anonymous access together with required scopes',
      { resource: RESOURCE, anonymous: { enabled: true }, requiredScopes: ['mcp:tools'] },
      [{ path: '/requiredScopes', message: 'anonymous callers have no scopes, so `anonymous.enabled` and `requiredScopes` contradict each other' }],
    ],
    [
      'no way to authenticate',
      { resource: RESOURCE },
      [{ path: '', message: 'no way to authenticate: configure `apiKeys`, `apiKeysFile` or `jwt`, or set `anonymous.enabled`' }],
    ],
    [
      'duplicate key ids and duplicate keys',
      { resource: RESOURCE, apiKeys: [{ id: 'a', sha256: HASH }, { id: 'a', sha256: OTHER_HASH }, { id: 'b', sha256: `sha256:${HASH}` }] },
      [
        { path: '/apiKeys/1/id', message: 'duplicate key id "a"' },
        { path: '/apiKeys/2/sha256', message: 'the same key as "a"' },
      ],
    ],
    [
      'a scope with a quote (would break the WWW-Authenticate header)',
      { resource: RESOURCE, anonymous: { enabled: true }, scopesSupported: ['a"b'] },
      [{ path: '/scopesSupported/0', message: 'expected an OAuth scope: printable ASCII without spaces, quotes or backslashes, got "a\\"b"' }],
    ],
  ];
  for (const [name, raw, expected] of cases) {
    it(`reports ${name}`, () => expect(issues(raw)).toEqual(expected));
  }

  it('never echoes a key pasted in clear where its hash belongs', () => {
    const found = issues({ resource: RESOURCE, apiKeys: [{ id: 'oops', sha256: 'my-real-secret-key' }] });
    expect(found).toEqual([
      { path: '/apiKeys/0/sha256', message: 'expected 64 hex digits (optionally prefixed "sha256:") as printed by `gatehouse key hash`, not the key itself' },
    ]);
    expect(JSON.stringify(found)).not.toContain('my-real-secret-key');
  });

  it('reports a missing keys file, and bad entries in one with the file and item', () => {
    expect(issues({ resource: RESOURCE, apiKeysFile: './nope.yaml' })).toEqual([
      { path: '/apiKeysFile', message: `${path.join(dir, 'nope.yaml')}: cannot read: no such file` },
    ]);
    const bad = file('bad-keys.yaml', `- id: x\n  sha256: clear-text-key\n- id: y\n  sha256: ${HASH}\n  extra: 1\n`);
    const found = issues({ resource: RESOURCE, apiKeysFile: bad });
    expect(found).toEqual([
      { path: '/apiKeysFile', message: `${path.join(dir, 'bad-keys.yaml')} /0/sha256: expected 64 hex digits (optionally prefixed "sha256:") as printed by \`gatehouse key hash\`, not the key itself` },
      { path: '/apiKeysFile', message: `${path.join(dir, 'bad-keys.yaml')} /1/extra: unknown key "extra" (allowed: id, sha256, subject, groups, scopes, claims)` },
    ]);
    expect(JSON.stringify(found)).not.toContain('clear-text-key');
  });

  it('reads a JSON keys file, and reports one that is not YAML or JSON without quoting it', () => {
    const json = file('keys.json', JSON.stringify([{ id: 'j', sha256: HASH }]));
    expect(valid({ resource: RESOURCE, apiKeysFile: json }).apiKeys.map((k) => k.id)).toEqual(['j']);
    const broken = file('broken.yaml', '- id: x\n  sha256: "unterminated-secret\n');
    const found = issues({ resource: RESOURCE, apiKeysFile: broken });
    expect(found).toEqual([{ path: '/apiKeysFile', message: `${path.join(dir, 'broken.yaml')}: not valid YAML or JSON` }]);
  });

  it('refuses a JWKS file with private or symmetric keys, or that is not a JWKS', () => {
    const jwksPath = path.join(dir, 'bad-jwks.json');
    const withPrivate = file('bad-jwks.json', JSON.stringify({ keys: [privateJwk, { kty: 'oct', k: 'c2VjcmV0' }] }));
    expect(issues({ resource: RESOURCE, jwt: { issuer: ISSUER, jwksFile: withPrivate } })).toEqual([
      { path: '/jwt/jwksFile', message: `${jwksPath} /keys/0: holds private key material ("d"); publish only the public key` },
      { path: '/jwt/jwksFile', message: `${jwksPath} /keys/1: symmetric keys (kty "oct") are not read from a JWKS; set jwt.secret for HS*` },
    ]);
    const notJwks = file('not-jwks.json', '[1, 2]');
    expect(issues({ resource: RESOURCE, jwt: { issuer: ISSUER, jwksFile: notJwks } })).toEqual([
      { path: '/jwt/jwksFile', message: `${path.join(dir, 'not-jwks.json')}: expected a JWKS, {"keys": [...]}` },
    ]);
  });
});

describe('IDENTITY_CONFIG_SCHEMA', () => {
  it("compiles inside the gateway schema under `identity` with the gateway's strict ajv options", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    ajv.addKeyword('errorMessage');
    const combined = { ...CONFIG_SCHEMA, properties: { ...CONFIG_SCHEMA.properties, identity: IDENTITY_CONFIG_SCHEMA } };
    const validate = ajv.compile(combined);
    expect(validate({ upstreams: [], identity: { resource: '${GATEHOUSE_RESOURCE}', apiKeys: [{ id: 'a', sha256: '${KEY_HASH}' }] } })).toBe(true);
    expect(validate({ upstreams: [], identity: { resource: RESOURCE, bogus: true } })).toBe(false);
  });

  it('has additionalProperties false and a description on every object and property', () => {
    const missing: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema['type'] === 'object' && schema['properties'] !== undefined && schema['additionalProperties'] !== false) missing.push(`${at}: additionalProperties`);
      if (('type' in schema || 'enum' in schema) && typeof schema['description'] !== 'string') missing.push(`${at}: description`);
      for (const [key, child] of Object.entries((schema['properties'] as object | undefined) ?? {})) walk(child, `${at}/${key}`);
      if (schema['items'] !== undefined) walk(schema['items'], `${at}/items`);
    };
    walk(IDENTITY_CONFIG_SCHEMA, '');
    expect(missing).toEqual([]);
  });
});
