// The two token requests of per-user authorization: the authorization code grant with its
// PKCE verifier (RFC 6749 section 4.1.3, RFC 7636 section 4.5) and the refresh (RFC 6749
// section 6), both with the RFC 8707 `resource` so the token is for this upstream only.
// The answer is read by the same rules as the client-credentials one (oauth-token-request.ts),
// plus refresh_token and scope. `invalid_grant` is told apart: it means the user's grant is
// gone (revoked, expired), and the stored tokens must go with it.
import { parseTokenResponse } from '../upstream/http/oauth-token-request.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { OAuthClient } from './client-registration.ts';
import { jsonObject, type OAuthHttp } from './oauth-http.ts';

export interface GrantedTokens {
  accessToken: string;
  refreshToken: string | undefined;
  expiresInMs: number | undefined;
  scope: string | undefined;
}

export type TokenFailure = { kind: 'invalid_grant'; reason: string } | { kind: 'failed'; reason: string };

export function clientAuthentication(client: OAuthClient, form: URLSearchParams): Record<string, string> {
  if (client.auth === 'none' || client.secret === undefined) {
    form.set('client_id', client.id);
    return {};
  }
  if (client.auth === 'client_secret_post') {
    form.set('client_id', client.id);
    form.set('client_secret', client.secret);
    return {};
  }
  // RFC 6749 section 2.3.1: each part form-urlencoded first, then Basic.
  const enc = (v: string): string => new URLSearchParams({ v }).toString().slice(2);
  return { authorization: `Basic ${Buffer.from(`${enc(client.id)}:${enc(client.secret)}`, 'utf8').toString('base64')}` };
}

export async function redeemCode(
  http: OAuthHttp,
  tokenEndpoint: string,
  client: OAuthClient,
  p: { code: string; verifier: string; redirectUri: string; resource: string },
): Promise<Result<GrantedTokens, TokenFailure>> {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code: p.code, redirect_uri: p.redirectUri, code_verifier: p.verifier, resource: p.resource });
  return tokenRequest(http, tokenEndpoint, client, form);
}

export async function refreshTokens(http: OAuthHttp, tokenEndpoint: string, client: OAuthClient, refreshToken: string, resource: string): Promise<Result<GrantedTokens, TokenFailure>> {
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, resource });
  return tokenRequest(http, tokenEndpoint, client, form);
}

async function tokenRequest(http: OAuthHttp, tokenEndpoint: string, client: OAuthClient, form: URLSearchParams): Promise<Result<GrantedTokens, TokenFailure>> {
  const headers = clientAuthentication(client, form);
  const answer = await http.post(tokenEndpoint, { form }, headers);
  if (!answer.ok) return err({ kind: 'failed', reason: answer.error });
  const fields = jsonObject(answer.value.json);
  const parsed = parseTokenResponse(answer.value.status, JSON.stringify(answer.value.json ?? null));
  if (!parsed.ok) return err({ kind: fields?.error === 'invalid_grant' ? 'invalid_grant' : 'failed', reason: parsed.error });
  const refresh = typeof fields?.refresh_token === 'string' && fields.refresh_token.length > 0 ? fields.refresh_token : undefined;
  const scope = typeof fields?.scope === 'string' ? fields.scope : undefined;
  return ok({ accessToken: parsed.value.accessToken, refreshToken: refresh, expiresInMs: parsed.value.expiresInMs, scope });
}
