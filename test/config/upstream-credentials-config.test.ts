// An upstream's own credentials in the gateway config: `headers` values read from files and
// `auth` (OAuth client-credentials), normalized and checked at boot.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import type { HttpUpstreamConfig } from '../../src/config/types.ts';
import { errorLinesOf } from './parse-errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-creds-'));
const FILE = join(dir, 'gatehouse.yaml');
writeFileSync(join(dir, 'weather-token'), 'tok-from-file\n');
writeFileSync(join(dir, 'client-secret'), 'cs-from-file\n');
writeFileSync(join(dir, 'empty'), '\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfig(text, FILE, env);
const http = (text: string, env: NodeJS.ProcessEnv = {}): HttpUpstreamConfig => {
  const u = parse(text, env).upstreams[0];
  if (u?.kind !== 'http') throw new Error('expected an HTTP upstream');
  return u;
};

const errorLines = (text: string, env: NodeJS.ProcessEnv = {}): string[] => errorLinesOf(text, FILE, env).map((l) => l.replace(FILE, 'gatehouse.yaml'));

const AUTH = `
upstreams:
  - name: weather
    url: https://weather.example/mcp
    auth:
      type: client_credentials
      tokenUrl: https://auth.example/oauth/token
      clientId: gatehouse
      clientSecret: "\${CLIENT_SECRET}"
      scope: [weather:read, weather:write]
`;

describe('upstream headers read from files', () => {
  it('keeps static headers and turns { file, prefix } into a header file relative to the config', () => {
    const u = http(`
upstreams:
  - name: weather
    url: http://h/mcp
    headers:
      X-Static: plain
      Authorization: { file: weather-token, prefix: "Bearer " }
      X-Abs: { file: ${join(dir, 'client-secret')} }
`);
    expect(u.headers).toEqual({ 'X-Static': 'plain' });
    expect(u.headerFiles).toEqual([
      { header: 'Authorization', file: join(dir, 'weather-token'), prefix: 'Bearer ' },
      { header: 'X-Abs', file: join(dir, 'client-secret'), prefix: '' },
    ]);
    expect(u.auth).toBeUndefined();
  });

  it('fails the boot on a missing or empty file, naming upstream, header and file', () => {
    expect(errorLines('upstreams:\n  - name: weather\n    url: http://h/mcp\n    headers: { Authorization: { file: nope } }\n')).toEqual([
      `gatehouse.yaml:4:39 /upstreams/0/headers/Authorization/file: upstream "weather", header "Authorization": ${join(dir, 'nope')}: cannot read: no such file`,
    ]);
    expect(errorLines('upstreams:\n  - name: weather\n    url: http://h/mcp\n    headers: { X-Key: { file: empty } }\n')).toEqual([
      `gatehouse.yaml:4:31 /upstreams/0/headers/X-Key/file: upstream "weather", header "X-Key": ${join(dir, 'empty')}: the file is empty`,
    ]);
  });

  it('rejects wrong shapes, reserved names and line breaks in the prefix', () => {
    expect(errorLines('upstreams:\n  - name: a\n    url: http://h/mcp\n    headers: { A: 42, B: { prefix: x }, C: { file: weather-token, extra: 1 } }\n')).toEqual([
      'gatehouse.yaml:4:19 /upstreams/0/headers/A: expected string or object, got number',
      'gatehouse.yaml:4:26 /upstreams/0/headers/B: missing required key "file"',
      'gatehouse.yaml:4:67 /upstreams/0/headers/C/extra: unknown key "extra" (allowed: file, prefix)',
    ]);
    expect(errorLines('upstreams:\n  - name: a\n    url: http://h/mcp\n    headers: { Mcp-Method: { file: weather-token }, X-A: { file: weather-token, prefix: "a\\n" } }\n')).toEqual([
      'gatehouse.yaml:4:16 /upstreams/0/headers/Mcp-Method: header "Mcp-Method" is set by the gateway and cannot be configured',
      'gatehouse.yaml:4:89 /upstreams/0/headers/X-A/prefix: expected a prefix without line breaks or NUL',
    ]);
  });
});

describe('upstream auth: OAuth client credentials', () => {
  it('normalizes with defaults: basic client auth, resource = the upstream URL, scopes joined', () => {
    expect(http(AUTH, { CLIENT_SECRET: 'cs' }).auth).toEqual({
      type: 'client_credentials',
      tokenUrl: 'https://auth.example/oauth/token',
      clientId: 'gatehouse',
      clientSecret: { value: 'cs' },
      clientAuth: 'client_secret_basic',
      scope: 'weather:read weather:write',
      resource: { kind: 'upstream-url' },
      audience: undefined,
    });
  });

  it('takes a secret file, client_secret_post, a fixed or no resource, and an audience', () => {
    const base = 'upstreams:\n  - name: w\n    url: https://w.example/mcp\n    auth: { type: client_credentials, tokenUrl: "http://127.0.0.1:9/t", clientId: c, clientSecretFile: client-secret, clientAuth: client_secret_post, scope: "a b"';
    expect(http(`${base}, resource: "https://api.example/", audience: api }\n`).auth).toEqual({
      type: 'client_credentials',
      tokenUrl: 'http://127.0.0.1:9/t',
      clientId: 'c',
      clientSecret: { file: join(dir, 'client-secret') },
      clientAuth: 'client_secret_post',
      scope: 'a b',
      resource: { kind: 'uri', uri: 'https://api.example/' },
      audience: 'api',
    });
    expect(http(`${base}, resource: false }\n`).auth?.resource).toEqual({ kind: 'none' });
  });

  it('works on routed upstreams', () => {
    const u = http('upstreams:\n  - name: r\n    route: { by: Region, targets: { "eu-*": "https://eu.example/mcp" } }\n    auth: { type: client_credentials, tokenUrl: "https://a/t", clientId: c, clientSecret: s }\n');
    expect(u.route?.targets).toHaveLength(1);
    expect(u.auth?.clientId).toBe('c');
  });

  it('refuses an Authorization header next to auth, in either form', () => {
    const lines = errorLines(`${AUTH}    headers: { authorization: "Bearer x" }\n`, { CLIENT_SECRET: 'cs' });
    expect(lines).toEqual([
      'gatehouse.yaml:11:16 /upstreams/0/headers/authorization: upstream "weather" sets `auth`, which sends its own Authorization header; remove this one',
    ]);
    expect(errorLines(`${AUTH}    headers: { Authorization: { file: weather-token } }\n`, { CLIENT_SECRET: 'cs' })).toHaveLength(1);
  });

  it('needs exactly one secret source, and a non-empty secret', () => {
    const head = 'upstreams:\n  - name: w\n    url: https://w.example/mcp\n    auth: { type: client_credentials, tokenUrl: "https://a/t", clientId: c';
    expect(errorLines(`${head} }\n`)).toEqual([
      'gatehouse.yaml:4:11 /upstreams/0/auth: expected exactly one of `clientSecret` and `clientSecretFile`',
    ]);
    expect(errorLines(`${head}, clientSecret: s, clientSecretFile: client-secret }\n`)).toHaveLength(1);
    expect(errorLines(`${head}, clientSecret: "\${EMPTY}" }\n`, { EMPTY: '' })).toEqual([
      'gatehouse.yaml:4:91 /upstreams/0/auth/clientSecret: expected a non-empty client secret (check the environment variable)',
    ]);
    expect(errorLines(`${head}, clientSecretFile: empty }\n`)).toEqual([
      `gatehouse.yaml:4:95 /upstreams/0/auth/clientSecretFile: upstream "w", auth.clientSecretFile: ${join(dir, 'empty')}: the file is empty`,
    ]);
  });

  it('wants https for the token endpoint except on loopback, and a URL resource', () => {
    const head = 'upstreams:\n  - name: w\n    url: https://w.example/mcp\n    auth: { type: client_credentials, clientId: c, clientSecret: s';
    expect(errorLines(`${head}, tokenUrl: "http://auth.example/t", resource: "https://x/#f" }\n`)).toEqual([
      'gatehouse.yaml:4:79 /upstreams/0/auth/tokenUrl: expected https (plain http only to a loopback host): the client secret would travel in clear',
      'gatehouse.yaml:4:114 /upstreams/0/auth/resource: expected an absolute http(s) URL without a fragment (RFC 8707 section 2)',
    ]);
    expect(errorLines(`${head}, tokenUrl: "https://a/t", resource: true, scope: "a  b" }\n`.replace('client_credentials', 'password'))).toEqual([
      'gatehouse.yaml:4:19 /upstreams/0/auth/type: expected one of "client_credentials", "user", "token_exchange", got "password"',
      'gatehouse.yaml:4:84 /upstreams/0/auth/resource: expected an http:// or https:// URL, or false',
      'gatehouse.yaml:4:107 /upstreams/0/auth/scope: expected OAuth scopes: printable ASCII without quotes or backslashes, separated by single spaces, got "a  b"',
    ]);
  });

  it('is for HTTP upstreams only', () => {
    expect(errorLines('upstreams:\n  - { name: s, command: x, auth: { type: client_credentials, tokenUrl: "https://a/t", clientId: c, clientSecret: s } }\n')).toEqual([
      'gatehouse.yaml:2:28 /upstreams/0/auth: "auth" applies only to HTTP upstreams',
    ]);
  });

  it('never echoes the client secret in a message', () => {
    const lines = errorLines(`${AUTH}    headers: { authorization: "Bearer x" }\n    timeout: nope\n`, { CLIENT_SECRET: 'super-secret-value' });
    expect(lines.join('\n')).not.toContain('super-secret-value');
  });
});
