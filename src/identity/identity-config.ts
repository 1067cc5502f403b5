// The `identity:` part of the gateway config: schema-checked, ${ENV}-interpolated input in,
// a frozen, fully defaulted IdentityConfig out (docs/architecture.md house style 4). Files it names (API
// keys, JWKS) are read here, once, at boot. Checks a schema cannot say live here and in
// jwt-config.ts: which key source the pinned algorithms need, secret length, duplicate keys.
// Mounting the schema under `identity:` and prefixing issue paths with `/identity` is left to
// config/.

import path from 'node:path';
import { readFileSync } from 'node:fs';
import { deepFreeze } from '../config/deep-freeze.ts';
import { toPointer } from '../config/config-error.ts';
import { createSchemaCheck } from '../config/schema-issues.ts';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { parseKeyHash } from './hash-key.ts';
import { isHttpUrl } from './http-url.ts';
import { IDENTITY_CONFIG_SCHEMA, type RawApiKey, type RawIdentityConfig } from './identity-config-schema.ts';
import { readKeyListFile, type ReadFile } from './identity-files.ts';
import { normalizeJwt, type JwtConfig } from './jwt-config.ts';

export { IDENTITY_CONFIG_SCHEMA, API_KEY_SCHEMA, JWS_ALGORITHMS } from './identity-config-schema.ts';
export type { JwsAlgorithm, RawApiKey, RawIdentityConfig, RawJwtConfig } from './identity-config-schema.ts';
export type { JwksSource, JwtConfig } from './jwt-config.ts';
export type { ReadFile } from './identity-files.ts';

export interface IdentityConfig {
  /** Canonical URI of the MCP endpoint (RFC 9728 `resource`), exactly as configured. */
  resource: string;
  anonymous: { enabled: boolean; subject: string; groups: readonly string[] };
  /** `apiKeys`, then the keys of `apiKeysFile`. */
  apiKeys: readonly ApiKeyConfig[];
  /** Unset: bearer JWTs are not accepted. */
  jwt: JwtConfig | undefined;
  /** RFC 9728 `authorization_servers`; empty when `jwt` is unset. */
  authorizationServers: readonly string[];
  scopesSupported: readonly string[];
  requiredScopes: readonly string[];
}

export interface IdentityIssue {
  /** JSON pointer (RFC 6901) relative to the `identity` value, e.g. `/jwt/algorithms/0`. */
  path: string;
  message: string;
}

export interface ApiKeyConfig {
  id: string;
  /** Lower-case hex SHA-256 of the key. */
  sha256: string;
  subject: string;
  groups: readonly string[];
  scopes: readonly string[];
  claims: Readonly<JsonObject>;
}

// Checked here too, not only as part of the gateway document, so the normalizer is total
// over any input and a standalone caller (a test, a CLI) gets the same messages.
const checkIdentitySchema = createSchemaCheck(IDENTITY_CONFIG_SCHEMA);

// Refresh tokens are between client and authorization server; MCP 2026-07-28, basic/authorization 2: a resource
// SHOULD NOT ask for or advertise offline_access.
const OFFLINE_ACCESS = 'offline_access';

/**
 * `raw` is the `identity:` value (any input: it is schema-checked here too). `baseDir` is the
 * config file's directory, which `apiKeysFile` and `jwksFile` are relative to. Issue paths are
 * JSON pointers relative to the `identity` value.
 */
export function normalizeIdentityConfig(
  raw: unknown,
  baseDir: string,
  readFile: ReadFile = (file) => readFileSync(file, 'utf8'),
): Result<IdentityConfig, IdentityIssue[]> {
  const schemaIssues = checkIdentitySchema(raw);
  if (schemaIssues.length > 0) return err(schemaIssues.map(({ path: at, message }) => ({ path: at, message })));
  const r = raw as RawIdentityConfig;
  const issues: IdentityIssue[] = [];
  const issue = (at: (string | number)[], message: string): void => void issues.push({ path: toPointer(at), message });

  if (!isHttpUrl(r.resource) || new URL(r.resource).hash !== '') {
    issue(['resource'], 'expected an absolute http(s) URL without a fragment (RFC 9728 section 1.2)');
  }
  const apiKeys = normalizeApiKeys(r, baseDir, readFile, issue);
  const jwt = r.jwt === undefined ? undefined : normalizeJwt(r.jwt, r.resource, baseDir, readFile, issues);
  const anonymous = {
    enabled: r.anonymous?.enabled ?? false,
    subject: r.anonymous?.subject ?? 'anonymous',
    groups: r.anonymous?.groups ?? [],
  };
  const scopesSupported = r.scopesSupported ?? [];
  const requiredScopes = r.requiredScopes ?? [];
  for (const [key, list] of [['scopesSupported', scopesSupported], ['requiredScopes', requiredScopes]] as const) {
    const i = list.indexOf(OFFLINE_ACCESS);
    if (i >= 0) issue([key, i], '"offline_access" is a matter for the authorization server, not for a resource');
  }
  if (r.authorizationServers !== undefined && r.jwt === undefined) {
    issue(['authorizationServers'], 'needs `jwt`: without it the gateway accepts no token these servers issue');
  }
  if (r.jwt !== undefined && r.authorizationServers === undefined && !isHttpUrl(r.jwt.issuer)) {
    issue(['jwt', 'issuer'], 'is not a URL, so it cannot be the default `authorizationServers` (RFC 8414 issuer); set `authorizationServers`');
  }
  (r.authorizationServers ?? []).forEach((url, i) => {
    if (!isHttpUrl(url)) issue(['authorizationServers', i], 'expected an absolute http(s) URL');
  });
  if (anonymous.enabled && requiredScopes.length > 0) {
    issue(['requiredScopes'], 'anonymous callers have no scopes, so `anonymous.enabled` and `requiredScopes` contradict each other');
  }
  // A gateway that can admit nobody is a mistake, not a lockdown: say so at boot.
  if (!anonymous.enabled && apiKeys.length === 0 && r.apiKeysFile === undefined && r.jwt === undefined) {
    issue([], 'no way to authenticate: configure `apiKeys`, `apiKeysFile` or `jwt`, or set `anonymous.enabled`');
  }
  if (issues.length > 0) return err(issues);
  return ok(
    deepFreeze({
      resource: r.resource,
      anonymous,
      apiKeys,
      jwt,
      authorizationServers: r.authorizationServers ?? (jwt === undefined ? [] : [jwt.issuer]),
      scopesSupported,
      requiredScopes,
    }),
  );
}

type Report = (at: (string | number)[], message: string) => void;

function normalizeApiKeys(r: RawIdentityConfig, baseDir: string, readFile: ReadFile, issue: Report): ApiKeyConfig[] {
  // `at` is where an issue points; for keys from the file that is `apiKeysFile` itself, and
  // `where` names the file and the item in the message.
  const entries: { at: (string | number)[]; where: string; key: RawApiKey }[] = (r.apiKeys ?? []).map((key, i) => ({
    at: ['apiKeys', i],
    where: '',
    key,
  }));
  if (r.apiKeysFile !== undefined) {
    const file = path.resolve(baseDir, r.apiKeysFile);
    const list = readKeyListFile(file, readFile);
    if (list.ok) list.value.forEach((key, i) => entries.push({ at: ['apiKeysFile'], where: `${file} /${i}: `, key }));
    else list.error.forEach((message) => issue(['apiKeysFile'], message));
  }
  const idOwner = new Set<string>();
  const hashOwner = new Map<string, string>();
  return entries.map(({ at, where, key }) => {
    const field = (name: string): (string | number)[] => (at[0] === 'apiKeys' ? [...at, name] : at);
    const digest = parseKeyHash(key.sha256);
    // Never echo the value: it may be a key pasted in clear.
    if (digest === undefined) issue(field('sha256'), `${where}expected 64 hex digits, or "sha256:<hex>"`);
    const sha256 = digest?.toString('hex') ?? '';
    if (idOwner.has(key.id)) issue(field('id'), `${where}duplicate key id "${key.id}"`);
    idOwner.add(key.id);
    const sameKey = hashOwner.get(sha256);
    if (digest !== undefined && sameKey !== undefined) issue(field('sha256'), `${where}the same key as "${sameKey}"`);
    if (digest !== undefined) hashOwner.set(sha256, key.id);
    return {
      id: key.id,
      sha256,
      subject: key.subject ?? key.id,
      groups: key.groups ?? [],
      scopes: key.scopes ?? [],
      claims: (key.claims ?? {}) as JsonObject,
    };
  });
}
