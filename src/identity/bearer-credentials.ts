// Finds the credential in a request's headers, without judging it: `Authorization: Bearer`
// (RFC 6750 section 2.1, the only bearer method the gateway accepts; tokens in the query
// string are never read, MCP 2026-07-28, basic/authorization 7) or `X-API-Key`. Pure; the token never appears in a
// description, so nothing downstream can log or echo it by accident.

export const API_KEY_HEADER = 'x-api-key';

export type Credential =
  /** Nothing presented: anonymous, if the config allows it. */
  | { kind: 'none' }
  /** An Authorization scheme other than Bearer: treated as no usable credentials (RFC 6750 section 3.1). */
  | { kind: 'unsupported'; description: string }
  /** Presented but unusable as sent: 400 invalid_request. */
  | { kind: 'malformed'; description: string }
  | { kind: 'token'; token: string; from: 'authorization' | 'x-api-key' };

// RFC 6750 section 2.1 b64token.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
// Visible ASCII: an API key is opaque, but never whitespace or control characters.
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;
// RFC 7519 section 3: a JWS compact serialization is three base64url parts (RFC 7515 section 7.1).
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** What is read of a request's headers: `Headers` and the endpoint's Node view both fit. */
export interface RequestHeaders {
  get(name: string): string | null;
}

export function readCredential(headers: RequestHeaders): Credential {
  // Two Authorization (or X-API-Key) headers never get here on /mcp: the HTTP ring refuses
  // them first (http/http-guards.ts). Elsewhere Headers.get joins repeats with ", ", which no
  // valid value contains, so they are caught below as a malformed token.
  const authorization = headers.get('authorization');
  const apiKey = headers.get(API_KEY_HEADER);
  if (authorization !== null && apiKey !== null) {
    // RFC 6750 section 3.1: more than one method of sending credentials is invalid_request.
    return { kind: 'malformed', description: 'send credentials in Authorization or X-API-Key, not both' };
  }
  if (apiKey !== null) {
    return VISIBLE_ASCII.test(apiKey)
      ? { kind: 'token', token: apiKey, from: 'x-api-key' }
      : { kind: 'malformed', description: 'the X-API-Key header is empty or holds characters a key cannot have' };
  }
  if (authorization === null) return { kind: 'none' };
  const space = authorization.indexOf(' ');
  const scheme = space === -1 ? authorization : authorization.slice(0, space);
  // Auth schemes are case-insensitive (RFC 9110 section 11.1).
  if (scheme.toLowerCase() !== 'bearer') {
    return { kind: 'unsupported', description: 'the Authorization scheme must be Bearer' };
  }
  const token = space === -1 ? '' : authorization.slice(space + 1).trim();
  if (!B64TOKEN.test(token)) {
    return { kind: 'malformed', description: 'expected Authorization: Bearer followed by one token' };
  }
  return { kind: 'token', token, from: 'authorization' };
}

/** Whether a token has the shape of a signed JWT, so it is verified as one, not looked up as a key. */
export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}
