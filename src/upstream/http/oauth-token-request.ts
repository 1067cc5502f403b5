// One OAuth 2.0 client-credentials token request (RFC 6749 section 4.4.2) and the reading of
// its answer (sections 5.1 and 5.2). Building the request and parsing the answer are pure;
// `postTokenRequest` is the only I/O. Caching, single-flight and backoff are
// oauth-client-credentials.ts's job. Failure reasons name the token endpoint and the OAuth
// error, never the client secret or a token.

import type { Dispatcher } from 'undici';
import type { ClientCredentialsConfig } from '../../config/types.ts';
import { err, ok, type Result } from '../../protocol/result.ts';
import { readBoundedText, shown } from './server-text.ts';

export const GRANT_TYPE = 'client_credentials';
// RFC 6750 section 2.1 b64token: anything else could not travel in an Authorization header.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
// Token answers are a few hundred bytes; a body beyond this is not one.
const MAX_BODY_BYTES = 64 * 1024;

export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  clientAuth: ClientCredentialsConfig['clientAuth'];
  scope: string | undefined;
  /** RFC 8707 resource indicator. */
  resource: string | undefined;
  audience: string | undefined;
}

export interface IssuedToken {
  accessToken: string;
  /** From `expires_in`; undefined when the server did not say. */
  expiresInMs: number | undefined;
}

/** Headers and form body of the request. */
export function tokenRequestParts(req: TokenRequest): { headers: Record<string, string>; body: string } {
  const form = new URLSearchParams({ grant_type: GRANT_TYPE });
  if (req.scope !== undefined) form.set('scope', req.scope);
  if (req.resource !== undefined) form.set('resource', req.resource);
  if (req.audience !== undefined) form.set('audience', req.audience);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (req.clientAuth === 'client_secret_post') {
    form.set('client_id', req.clientId);
    form.set('client_secret', req.clientSecret);
  } else {
    // RFC 6749 section 2.3.1: each part form-urlencoded first, then Basic (RFC 7617).
    const basic = `${formEncode(req.clientId)}:${formEncode(req.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(basic, 'utf8').toString('base64')}`;
  }
  return { headers, body: form.toString() };
}

/** The token in an answer, or why there is none. */
export function parseTokenResponse(status: number, text: string): Result<IssuedToken, string> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (status !== 200) {
    // Section 5.2: 400 (or 401 for client authentication) with `error` and maybe `error_description`.
    if (typeof fields?.error === 'string') {
      const description = typeof fields.error_description === 'string' ? ` (${shown(fields.error_description)})` : '';
      return err(`the token endpoint refused the grant: ${shown(fields.error)}${description}, HTTP ${status}`);
    }
    return err(`the token endpoint answered HTTP ${status}`);
  }
  if (fields === undefined) return err('the token endpoint answered with something other than a JSON object');
  const { access_token: token, token_type: type, expires_in: expiresIn } = fields;
  if (typeof token !== 'string' || !B64TOKEN.test(token)) return err('the token endpoint answered without a usable access_token');
  // Section 7.1: a client must not use a token whose type it does not understand.
  if (typeof type !== 'string' || type.toLowerCase() !== 'bearer') {
    return err(`the token endpoint issued a token of type ${typeof type === 'string' ? `"${shown(type)}"` : 'unknown'}, not Bearer`);
  }
  // Some servers send the number as a string; anything else means "not said".
  const seconds = typeof expiresIn === 'string' && /^\d+$/.test(expiresIn) ? Number(expiresIn) : expiresIn;
  const expiresInMs = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  return ok({ accessToken: token, expiresInMs });
}

/** Posts `req` to `tokenUrl` through `dispatcher`. */
export async function postTokenRequest(
  dispatcher: Dispatcher,
  tokenUrl: URL,
  req: TokenRequest,
  timeoutMs: number,
): Promise<Result<IssuedToken, string>> {
  const { headers, body } = tokenRequestParts(req);
  try {
    const res = await dispatcher.request({
      origin: tokenUrl.origin,
      path: tokenUrl.pathname + tokenUrl.search,
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await readBoundedText(res.body, MAX_BODY_BYTES);
    if (text === undefined) return err(`the token endpoint answered with more than ${MAX_BODY_BYTES} bytes`);
    return parseTokenResponse(res.statusCode, text);
  } catch (e) {
    const cause = (e as Error & { cause?: { code?: string } }).cause;
    const name = (e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e as Error).message;
    return err(`cannot reach the token endpoint: ${name}${cause?.code ? ` (${cause.code})` : ''}`);
  }
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

