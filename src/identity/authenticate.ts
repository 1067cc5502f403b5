// The identity ring: request headers in, a Principal or a ready-to-send failure out. The
// gateway is an OAuth 2.1 resource server (MCP 2026-07-28, basic/authorization): 401 with a Bearer challenge pointing
// at its protected resource metadata when credentials are missing or bad, 403
// insufficient_scope when they lack a required scope, 400 when they are malformed. Mounting
// this as HTTP middleware, and policy on what the principal may do, are left to others.
// The token is never logged, echoed or forwarded upstream (MCP 2026-07-28, basic/authorization 6).

import { deepFreeze } from '../config/deep-freeze.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { looksLikeJwt, readCredential, type RequestHeaders } from './bearer-credentials.ts';
import { principalFromClaims } from './claim-mapping.ts';
import { keyDigest, matchKeyHash, parseKeyHash } from './hash-key.ts';
import type { IdentityConfig, JwtConfig } from './identity-config.ts';
import { createJwtVerifier, type JwtVerifierDeps, type VerifyJwt } from './jwt-verifier.ts';
import type { Principal } from './principal.ts';
import { resourceMetadataUrl } from './resource-metadata.ts';
import { bearerChallenge, type BearerError } from './www-authenticate.ts';

export type AuthError = BearerError | 'missing_credentials' | 'temporarily_unavailable';

export interface AuthFailure {
  /** 503 when the authorization server's keys cannot be fetched: retry later, not re-auth. */
  status: 400 | 401 | 403 | 503;
  /** The WWW-Authenticate value to send; '' for 503, which is no challenge. */
  wwwAuthenticate: string;
  /** The RFC 6750 error code sent in the challenge; `missing_credentials` (no code sent, RFC
   * 6750 section 3.1) and `temporarily_unavailable` are for audit and the response body. */
  error: AuthError;
  /** Safe to show the client and to log: never contains the credential. */
  description: string;
}

export type AuthenticatorDeps = JwtVerifierDeps;

/** Synchronous for anonymous callers and API keys; a promise only when a JWT is verified. */
export type Authenticate = (headers: RequestHeaders) => Result<Principal, AuthFailure> | Promise<Result<Principal, AuthFailure>>;

export function createAuthenticator(config: IdentityConfig, deps: AuthenticatorDeps = {}): Authenticate {
  const jwt: { config: JwtConfig; verify: VerifyJwt } | undefined =
    config.jwt === undefined ? undefined : { config: config.jwt, verify: createJwtVerifier(config.jwt, deps) };
  const keyDigests = config.apiKeys.map((k) => parseKeyHash(k.sha256) as Buffer);
  const anonymous: Principal = deepFreeze({
    subject: config.anonymous.subject,
    groups: [...config.anonymous.groups],
    scopes: [],
    claims: {},
    method: 'anonymous',
    authContext: 'anonymous',
  });
  // Clients treat the challenge's scope as what this operation needs (MCP 2026-07-28, basic/authorization 2): the
  // required scopes when there are any, else the basic ones the metadata advertises.
  const challengeScopes = config.requiredScopes.length > 0 ? config.requiredScopes : config.scopesSupported;
  const resourceMetadata = resourceMetadataUrl(config);
  const fail = (status: 400 | 401 | 403, error: Exclude<AuthError, 'temporarily_unavailable'>, description: string, scopes = challengeScopes): AuthFailure => ({
    status,
    error,
    description,
    wwwAuthenticate: bearerChallenge({
      ...(error === 'missing_credentials' ? {} : { error, description }),
      ...(resourceMetadata !== undefined ? { resourceMetadata } : {}),
      scopes,
    }),
  });

  const withRequiredScopes = (principal: Principal): Result<Principal, AuthFailure> => {
    const missing = config.requiredScopes.filter((s) => !principal.scopes.includes(s));
    if (missing.length === 0) return ok(deepFreeze(principal));
    // List every scope needed, not only the missing ones, so a client asks once (MCP 2026-07-28, basic/authorization 3).
    return err(fail(403, 'insufficient_scope', `this resource needs the scopes: ${config.requiredScopes.join(' ')}`, config.requiredScopes));
  };

  // A key's principal is the same on every request: built and frozen once per key, not per call.
  const keyResults: readonly Result<Principal, AuthFailure>[] = config.apiKeys.map((entry) =>
    withRequiredScopes({
      subject: entry.subject,
      groups: entry.groups,
      scopes: entry.scopes,
      claims: entry.claims,
      method: 'api_key',
      // The key's id, never the key or its hash.
      authContext: `key:${entry.id}`,
    }),
  );
  const byApiKey = (key: string): Result<Principal, AuthFailure> =>
    keyResults[matchKeyHash(keyDigest(key), keyDigests)] ?? err(fail(401, 'invalid_token', 'the credentials are not valid'));

  const verifyJwt = async (verify: VerifyJwt, token: string, jwtConfig: JwtConfig): Promise<Result<Principal, AuthFailure>> => {
    const verified = await verify(token);
    if (!verified.ok) {
      if (verified.error.kind === 'unavailable') {
        return err({ status: 503, wwwAuthenticate: '', error: 'temporarily_unavailable', description: verified.error.description });
      }
      return err(fail(401, 'invalid_token', verified.error.description));
    }
    const principal = principalFromClaims(verified.value, jwtConfig);
    return principal.ok ? withRequiredScopes(principal.value) : err(fail(401, 'invalid_token', principal.error));
  };

  return (headers) => {
    const credential = readCredential(headers);
    switch (credential.kind) {
      case 'none':
        return config.anonymous.enabled ? ok(anonymous) : err(fail(401, 'missing_credentials', 'credentials are required'));
      case 'unsupported':
        return err(fail(401, 'missing_credentials', credential.description));
      case 'malformed':
        return err(fail(400, 'invalid_request', credential.description));
      case 'token':
        break;
    }
    const { token, from } = credential;
    // X-API-Key is not an OAuth bearer method (RFC 6750 section 2), so its value is only ever a key.
    if (from === 'x-api-key' || jwt === undefined || !looksLikeJwt(token)) return byApiKey(token);
    return verifyJwt(jwt.verify, token, jwt.config);
  };
}
