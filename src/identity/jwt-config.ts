// The `identity.jwt` part of the config, normalized: which algorithms are pinned and where
// their keys come from. The rules keep the classic JWT mistakes out at boot (RFC 8725):
// asymmetric algorithms take keys only from the issuer's JWKS, HMAC ones only from `secret`,
// so a token can never pick its own key type; `none` is not even in the schema.

import path from 'node:path';
import type { JSONWebKeySet } from 'jose';
import { durationMs } from '../config/duration.ts';
import { toPointer } from '../config/config-error.ts';
import { isHttpUrl, isSecureOrLoopback } from './http-url.ts';
import type { JwsAlgorithm, RawJwtConfig } from './identity-config-schema.ts';
import { readJwksFile, type ReadFile } from './identity-files.ts';
import type { IdentityIssue } from './identity-config.ts';

export interface JwtConfig {
  issuer: string;
  /** The token's `aud` must contain one of these (RFC 8707). */
  audiences: readonly string[];
  algorithms: readonly JwsAlgorithm[];
  /** Where asymmetric keys come from; unset when only HS* algorithms are pinned. */
  keys: JwksSource | undefined;
  /** HMAC secret; set exactly when an HS* algorithm is pinned. */
  secret: string | undefined;
  clockToleranceSeconds: number;
  /** Required JWT header `typ`, or undefined for any. */
  typ: string | undefined;
  claims: {
    subject: string;
    groups: string;
    /** Claims tried in order; the first one present is used. */
    scopes: readonly string[];
  };
}

export type JwksSource = { kind: 'url'; url: string } | { kind: 'file'; file: string; jwks: JSONWebKeySet };

/** Past this, "tolerance" would quietly extend every token's lifetime. */
export const MAX_CLOCK_TOLERANCE_MS = 5 * 60_000;

export const DEFAULT_ALGORITHMS: readonly JwsAlgorithm[] = ['RS256'];

// RFC 7518 section 3.2: an HMAC key at least as long as the hash output.
const HMAC_KEY_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 };

export function isHmac(alg: string): boolean {
  return alg.startsWith('HS');
}

/** `resource` is the default audience; `baseDir` anchors `jwksFile`. Issues go to `issues`. */
export function normalizeJwt(
  j: RawJwtConfig,
  resource: string,
  baseDir: string,
  readFile: ReadFile,
  issues: IdentityIssue[],
): JwtConfig | undefined {
  const before = issues.length;
  const issue = (at: string[], message: string): void => void issues.push({ path: toPointer(['jwt', ...at]), message });
  const algorithms = j.algorithms ?? DEFAULT_ALGORITHMS;
  const hmac = algorithms.filter(isHmac);
  const asymmetric = algorithms.filter((a) => !isHmac(a));
  // Empty counts as unset, so `${JWT_SECRET:-}` can make it optional.
  const secret = j.secret === undefined || j.secret === '' ? undefined : j.secret;
  if (hmac.length > 0) {
    const needed = Math.max(...hmac.map((a) => HMAC_KEY_BYTES[a] ?? 0));
    // Never echo the secret, not even its length.
    if (secret === undefined) issue(['secret'], `${hmac.join(', ')} need \`secret\`, a shared key of at least ${needed} bytes`);
    else if (Buffer.byteLength(secret, 'utf8') < needed) {
      issue(['secret'], `too short for ${hmac.join(', ')}: at least ${needed} bytes (RFC 7518 section 3.2)`);
    }
  } else if (secret !== undefined) {
    issue(['secret'], 'only used with HS256, HS384 or HS512, and `algorithms` lists none');
  }
  const keys = jwksSource(j, asymmetric, baseDir, readFile, issue);
  const toleranceMs = durationMs(j.clockTolerance ?? '30s');
  if (toleranceMs === undefined || toleranceMs > MAX_CLOCK_TOLERANCE_MS) {
    issue(['clockTolerance'], 'at most 5m: a larger tolerance extends every token past its expiry');
  }
  if (issues.length > before) return undefined;
  return {
    issuer: j.issuer,
    audiences: j.audience === undefined ? [resource] : typeof j.audience === 'string' ? [j.audience] : j.audience,
    algorithms,
    keys,
    secret,
    clockToleranceSeconds: (toleranceMs ?? 0) / 1000,
    typ: j.typ,
    claims: {
      subject: j.claims?.subject ?? 'sub',
      groups: j.claims?.groups ?? 'groups',
      // RFC 9068 section 2.2.3 names `scope`; Entra ID and Okta send `scp`.
      scopes: j.claims?.scopes !== undefined ? [j.claims.scopes] : ['scope', 'scp'],
    },
  };
}

function jwksSource(
  j: RawJwtConfig,
  asymmetric: readonly string[],
  baseDir: string,
  readFile: ReadFile,
  issue: (at: string[], message: string) => void,
): JwksSource | undefined {
  if (j.jwksUrl !== undefined && j.jwksFile !== undefined) {
    issue([], 'set one of `jwksUrl` and `jwksFile`, not both');
    return undefined;
  }
  if (asymmetric.length === 0) {
    if (j.jwksUrl !== undefined) issue(['jwksUrl'], 'unused: `algorithms` lists only HS* algorithms, which use `secret`');
    if (j.jwksFile !== undefined) issue(['jwksFile'], 'unused: `algorithms` lists only HS* algorithms, which use `secret`');
    return undefined;
  }
  if (j.jwksUrl !== undefined) {
    if (!isHttpUrl(j.jwksUrl)) issue(['jwksUrl'], 'expected an absolute http(s) URL');
    else if (!isSecureOrLoopback(new URL(j.jwksUrl))) {
      issue(['jwksUrl'], 'expected https (plain http only to a loopback host): keys fetched in clear could be swapped in transit');
    } else return { kind: 'url', url: j.jwksUrl };
    return undefined;
  }
  if (j.jwksFile !== undefined) {
    const file = path.resolve(baseDir, j.jwksFile);
    const jwks = readJwksFile(file, readFile);
    if (jwks.ok) return { kind: 'file', file, jwks: jwks.value };
    jwks.error.forEach((message) => issue(['jwksFile'], message));
    return undefined;
  }
  issue([], `${asymmetric.join(', ')} need the issuer's public keys: set \`jwksUrl\` or \`jwksFile\``);
  return undefined;
}
