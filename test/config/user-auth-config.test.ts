// Config of per-user upstream authorization: the defaults, and a clear message for each
// config that could not work or would be unsafe (every message names where, never a secret).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { ConfigError } from '../../src/config/config-error.ts';

const FILE = '/etc/gatehouse/gatehouse.yaml';
const KEY = 'a'.repeat(64);
const IDENTITY = `identity:
  resource: https://gw.example.com/mcp
  apiKeys: [{ id: a, sha256: "${'b'.repeat(64)}" }]
`;

const messages = (text: string): string[] => {
  try {
    parseConfig(text, FILE, { SECRET: '' });
  } catch (e) {
    if (e instanceof ConfigError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  return [];
};

describe('userAuth config', () => {
  it('takes verifyConsentUser: false, and refuses a value that is not a boolean', () => {
    const yaml = (v: string) => `${IDENTITY}userAuth: { publicUrl: "https://gw.example.com", keys: ["${KEY}"], verifyConsentUser: ${v} }\nupstreams:\n  - name: gh\n    url: https://mcp.example.com/mcp\n    auth: { type: user }\n`;
    expect(parseConfig(yaml('false'), FILE, {}).userAuth?.verifyConsentUser).toBe(false);
    expect(messages(yaml('"no"'))).toEqual([expect.stringMatching(/^\/userAuth\/verifyConsentUser: /)]);
  });

  it('defaults the store, the consent timeout and what callers without consent see', () => {
    const c = parseConfig(`${IDENTITY}userAuth: { publicUrl: "https://gw.example.com/", keys: ["${KEY}"] }
upstreams:
  - name: gh
    url: https://mcp.example.com/mcp
    auth: { type: user, clientId: gatehouse, clientSecret: s3cret, scope: "repo read:user" }
`, FILE, {});
    expect(c.userAuth).toEqual({ publicUrl: 'https://gw.example.com', keys: [KEY], store: { kind: 'memory' }, consentTimeoutMs: 600_000, withoutConsent: 'show', verifyConsentUser: true });
    const u = c.upstreams[0];
    expect(u?.kind === 'http' && u.userAuth).toEqual({ type: 'user', client: { id: 'gatehouse', secret: 's3cret', auth: 'client_secret_basic' }, scope: 'repo read:user', resource: undefined });
  });

  it.each([
    ['a user upstream without the userAuth section', `${IDENTITY}upstreams: [{ name: gh, url: "https://m.example/mcp", auth: { type: user } }]`, 'needs the top-level `userAuth` section'],
    ['a user upstream without identity', `userAuth: { publicUrl: "https://gw.example.com", keys: ["${KEY}"] }\nupstreams: [{ name: gh, url: "https://m.example/mcp", auth: { type: user } }]`, 'every caller is anonymous and all would share one token'],
    ['a key that is not 32 bytes of hex', `${IDENTITY}userAuth: { publicUrl: "https://gw.example.com", keys: ["abc"] }\nupstreams: []`, '/userAuth/keys/0: expected a 32-byte key'],
    ['a publicUrl over plain http elsewhere than loopback', `${IDENTITY}userAuth: { publicUrl: "http://gw.example.com", keys: ["${KEY}"] }\nupstreams: []`, 'authorization codes would travel in clear'],
    ['a consent timeout over an hour', `${IDENTITY}userAuth: { publicUrl: "https://gw.example.com", keys: ["${KEY}"], consentTimeout: 2h }\nupstreams: []`, 'at most 1h'],
    ['a Redis store without a URL', `${IDENTITY}userAuth: { publicUrl: "https://gw.example.com", keys: ["${KEY}"], store: { kind: redis } }\nupstreams: []`, 'expected a redis:// URL'],
    ['an empty client secret', `${IDENTITY}userAuth: { publicUrl: "https://gw.example.com", keys: ["${KEY}"] }\nupstreams: [{ name: gh, url: "https://m.example/mcp", auth: { type: user, clientId: c, clientSecret: "\${SECRET}" } }]`, 'expected a non-empty client secret'],
    ['an Authorization header beside auth type user', `${IDENTITY}userAuth: { publicUrl: "https://gw.example.com", keys: ["${KEY}"] }\nupstreams: [{ name: gh, url: "https://m.example/mcp", headers: { Authorization: x }, auth: { type: user } }]`, 'sends its own Authorization header'],
    ['token exchange without identity.jwt', `${IDENTITY}upstreams: [{ name: x, url: "https://m.example/mcp", auth: { type: token_exchange, tokenUrl: "https://as.example/token", clientId: g } }]`, 'needs `identity.jwt`'],
    ['token exchange to a plain-http token endpoint', `${IDENTITY}upstreams: [{ name: x, url: "https://m.example/mcp", auth: { type: token_exchange, tokenUrl: "http://as.example/token", clientId: g } }]`, "the caller's token would travel in clear"],
    ['an unknown key under auth type user', `${IDENTITY}userAuth: { publicUrl: "https://gw.example.com", keys: ["${KEY}"] }\nupstreams: [{ name: gh, url: "https://m.example/mcp", auth: { type: user, tokenUrl: "https://x" } }]`, '/upstreams/0/auth'],
  ])('refuses %s', (_what, text, expected) => {
    const found = messages(text);
    expect(found.some((m) => m.includes(expected)), found.join('\n')).toBe(true);
    expect(found.join('\n')).not.toContain('s3cret');
  });
});

describe('clientSecretFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-ua-secret-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const SECTION = `${IDENTITY}userAuth: { publicUrl: "https://gw.example.com", keys: ["${KEY}"] }\n`;
  const user = (auth: string): string => `${SECTION}upstreams: [{ name: gh, url: "https://m.example/mcp", auth: { type: user, clientId: c, ${auth} } }]`;
  const exchange = (auth: string): string =>
    `${IDENTITY}upstreams: [{ name: x, url: "https://m.example/mcp", auth: { type: token_exchange, tokenUrl: "https://as.example/token", clientId: g, ${auth} } }]`;

  it('keeps the absolute file name, resolved against the config file, and no secret in the config', () => {
    writeFileSync(join(dir, 'gh-secret'), 's3cret\n');
    const c = parseConfig(user('clientSecretFile: gh-secret'), join(dir, 'gatehouse.yaml'), {});
    const u = c.upstreams[0];
    expect(u?.kind === 'http' && u.userAuth?.client).toEqual({ id: 'c', secret: undefined, secretFile: join(dir, 'gh-secret'), auth: 'client_secret_basic' });
    expect(JSON.stringify(c)).not.toContain('s3cret');
  });

  it.each([
    ['a missing file', () => user('clientSecretFile: /nonexistent/gh-secret'), '/upstreams/0/auth/clientSecretFile: upstream "gh", auth.clientSecretFile: /nonexistent/gh-secret: cannot read: no such file'],
    ['an empty file', () => (writeFileSync(join(dir, 'empty'), '\n'), user(`clientSecretFile: "${join(dir, 'empty')}"`)), 'the file is empty'],
    ['a directory', () => user(`clientSecretFile: "${dir}"`), 'is a directory, not a file'],
    ['both a secret and a file', () => user(`clientSecret: s3cret, clientSecretFile: "${join(dir, 'gh-secret')}"`), 'set one of `clientSecret` and `clientSecretFile`, not both'],
    ['a file without a clientId', () => `${SECTION}upstreams: [{ name: gh, url: "https://m.example/mcp", auth: { type: user, clientSecretFile: x } }]`, 'a client secret file needs its `clientId`'],
    ['a missing file for token exchange', () => exchange('clientSecretFile: /nonexistent/x-secret'), 'auth.clientSecretFile: /nonexistent/x-secret: cannot read: no such file'],
  ])('refuses %s, naming the file', (_what, text, expected) => {
    const found = messages(text());
    expect(found.some((m) => m.includes(expected)), found.join('\n')).toBe(true);
    expect(found.join('\n')).not.toContain('s3cret\n');
  });
});
