// One RFC 8693 token exchange request (section 2.1) and the reading of its answer (section
// 2.2): the caller's access token as subject_token, the gateway's own as actor_token where
// configured (delegation, section 1.1), and the audience, resource and scope of the upstream.
// Only an access token of type Bearer is accepted, since that is what is asked for and sent.
import { err, ok, type Result } from '../protocol/result.ts';
import { parseTokenResponse } from '../upstream/http/oauth-token-request.ts';
import type { TokenExchangeAuth } from './user-auth-config.ts';
import { jsonObject, type OAuthHttp } from './oauth-http.ts';
import { shown } from '../upstream/http/server-text.ts';
import { clientAuthentication } from './token-requests.ts';
import type { OAuthClient } from './client-registration.ts';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export function exchangeForm(ex: TokenExchangeAuth, subjectToken: string, resource: string): URLSearchParams {
  const form = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    resource,
  });
  if (ex.audience !== undefined) form.set('audience', ex.audience);
  if (ex.scope !== undefined) form.set('scope', ex.scope);
  if (ex.actorToken !== undefined) {
    form.set('actor_token', ex.actorToken);
    form.set('actor_token_type', ACCESS_TOKEN_TYPE);
  }
  return form;
}

/** `client`: the configured one with its secret read now (client-secrets.ts). */
export async function exchangeToken(http: OAuthHttp, ex: TokenExchangeAuth, client: OAuthClient, subjectToken: string, resource: string): Promise<Result<{ accessToken: string; expiresInMs: number | undefined }, string>> {
  const form = exchangeForm(ex, subjectToken, resource);
  const headers = clientAuthentication(client, form);
  const answer = await http.post(ex.tokenUrl, { form }, headers);
  if (!answer.ok) return answer;
  const body = jsonObject(answer.value.json);
  const parsed = parseTokenResponse(answer.value.status, JSON.stringify(answer.value.json ?? null));
  if (!parsed.ok) return parsed;
  if (body?.issued_token_type !== undefined && body.issued_token_type !== ACCESS_TOKEN_TYPE) {
    return err(`the authorization server issued a ${shown(String(body.issued_token_type))}, not an access token`);
  }
  return ok({ accessToken: parsed.value.accessToken, expiresInMs: parsed.value.expiresInMs });
}
