// Turns a verified JWT payload into a Principal with the configured claim mapping. Pure.
// A claim name is looked up as written first and only then as a dotted path, because
// namespaced claims are URLs full of dots (Auth0: "https://example.com/roles") while
// Keycloak nests roles (realm_access.roles).

import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { JwtConfig } from './jwt-config.ts';
import type { Principal } from './principal.ts';

/** The claim `name` holds, as a key of `claims` or as a dotted path into nested objects. */
export function readClaim(claims: JsonObject, name: string): JsonValue | undefined {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: JsonValue | undefined = claims;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return value;
}

/**
 * Strings of a claim that is a string or an array. `split` separates a string on spaces, as
 * the `scope` claim is written (RFC 9068 section 2.2.3, RFC 6749 section 3.3). Entries that are
 * not non-empty strings are left out; duplicates are kept once, in order.
 */
export function claimStrings(value: JsonValue | undefined, split: boolean): string[] {
  const items = typeof value === 'string' ? (split ? value.split(' ') : [value]) : Array.isArray(value) ? value : [];
  return [...new Set(items.filter((v): v is string => typeof v === 'string' && v !== ''))];
}

/** The principal of a verified token, or why the token cannot name one. */
export function principalFromClaims(claims: JsonObject, config: JwtConfig): Result<Principal, string> {
  const subject = readClaim(claims, config.claims.subject);
  if (typeof subject !== 'string' || subject === '') {
    return err(`the token has no '${config.claims.subject}' claim to identify its subject`);
  }
  const scopeClaim = config.claims.scopes.find((name) => readClaim(claims, name) !== undefined);
  return ok({
    subject,
    groups: claimStrings(readClaim(claims, config.claims.groups), false),
    scopes: scopeClaim === undefined ? [] : claimStrings(readClaim(claims, scopeClaim), true),
    claims,
    method: 'jwt',
    // The issuer is the configured one (verified exactly), so this names one authorization
    // context per user of one authorization server (MCP 2026-07-28, server/utilities/caching: `private` cache keys).
    authContext: `jwt:${config.issuer}:${subject}`,
  });
}
