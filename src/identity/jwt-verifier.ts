// Verifies a bearer JWT as OAuth 2.1 section 5.2 and RFC 9068 section 4 ask of a resource
// server, with jose: signature with a pinned algorithm, `iss` exactly, `aud` naming this
// gateway (RFC 8707: tokens for other resources are refused), `exp` required and checked,
// `nbf`, optional `typ`. The verifier has a lifecycle (the remote key set's cache), hence a
// factory. What the token then grants is claim-mapping.ts's business.

import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  jwtVerify,
  type FetchImplementation,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import type { JsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { isHmac, type JwtConfig } from './jwt-config.ts';

export interface JwtRejection {
  /** `invalid_token`: the client's fault (401). `unavailable`: the keys could not be had (503). */
  kind: 'invalid_token' | 'unavailable';
  /** Safe to send to the client: fixed text, never token content. */
  description: string;
}

export interface JwtVerifierDeps {
  /** Fetch for the remote JWKS (jose's `customFetch`); default: global fetch. */
  fetchJwks?: FetchImplementation;
  /** Milliseconds since the epoch, for `exp`/`nbf`; default Date.now. */
  now?: () => number;
}

export type VerifyJwt = (token: string) => Promise<Result<JsonObject, JwtRejection>>;

// jose's remote key set: a missing `kid` refetches at most once per cooldown, so a flood of
// tokens with made-up key ids cannot turn into a flood of requests to the issuer.
const JWKS_TIMEOUT_MS = 5_000;
const JWKS_COOLDOWN_MS = 30_000;
const JWKS_MAX_AGE_MS = 10 * 60_000;

export function createJwtVerifier(config: JwtConfig, deps: JwtVerifierDeps = {}): VerifyJwt {
  const now = deps.now ?? Date.now;
  const secret = config.secret === undefined ? undefined : new TextEncoder().encode(config.secret);
  const keySet =
    config.keys?.kind === 'url'
      ? createRemoteJWKSet(new URL(config.keys.url), {
          timeoutDuration: JWKS_TIMEOUT_MS,
          cooldownDuration: JWKS_COOLDOWN_MS,
          cacheMaxAge: JWKS_MAX_AGE_MS,
          ...(deps.fetchJwks !== undefined ? { [customFetch]: deps.fetchJwks } : {}),
        })
      : config.keys?.kind === 'file'
        ? createLocalJWKSet(config.keys.jwks)
        : undefined;
  const baseOptions: JWTVerifyOptions = {
    issuer: config.issuer,
    audience: [...config.audiences],
    algorithms: [...config.algorithms],
    clockTolerance: config.clockToleranceSeconds,
    requiredClaims: ['exp'],
    ...(config.typ !== undefined ? { typ: config.typ } : {}),
  };

  return async (token) => {
    // Set when the key set itself failed (fetch, timeout, bad JWKS): not the token's fault.
    let keysFailed = false;
    // jose checks `alg` against `algorithms` before calling this, so an HS* token gets here
    // only when HS* is pinned, and then only ever meets the secret: the "public key as HMAC
    // secret" confusion (RFC 8725 section 2.1) has no path.
    const getKey: JWTVerifyGetKey = async (header, input) => {
      if (isHmac(header.alg)) {
        if (secret === undefined) throw new errors.JOSEAlgNotAllowed('no secret for HMAC');
        return secret;
      }
      if (keySet === undefined) throw new errors.JOSEAlgNotAllowed('no key set for this algorithm');
      try {
        return await keySet(header, input);
      } catch (e) {
        if (!(e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys)) keysFailed = true;
        throw e;
      }
    };
    try {
      const { payload } = await jwtVerify(token, getKey, { ...baseOptions, currentDate: new Date(now()) });
      return ok(payload as JsonObject);
    } catch (e) {
      if (keysFailed) return err({ kind: 'unavailable', description: "the authorization server's keys are unavailable" });
      if (e instanceof errors.JOSEError) return err({ kind: 'invalid_token', description: describe(e) });
      throw e;
    }
  };
}

function describe(e: errors.JOSEError): string {
  if (e instanceof errors.JWTExpired) return 'the token has expired';
  if (e instanceof errors.JWTClaimValidationFailed) {
    switch (e.claim) {
      case 'iss':
        return 'the token was not issued by the expected issuer';
      case 'aud':
        return 'the token is not meant for this resource';
      case 'nbf':
        return 'the token is not valid yet';
      case 'exp':
        return 'the token has no valid expiry';
      case 'typ':
        return 'the token is not of the expected type';
      default:
        return 'a claim of the token is invalid';
    }
  }
  if (e instanceof errors.JOSEAlgNotAllowed) return "the token's signing algorithm is not accepted";
  if (e instanceof errors.JWKSNoMatchingKey) return "no known key matches the token's key id";
  if (e instanceof errors.JWKSMultipleMatchingKeys) return 'the token does not say which key signed it';
  if (e instanceof errors.JWSSignatureVerificationFailed) return "the token's signature is invalid";
  return 'the token is malformed';
}
