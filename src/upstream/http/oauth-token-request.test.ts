import { describe, expect, it } from 'vitest';
import { err, ok } from '../../protocol/result.ts';
import { parseTokenResponse, tokenRequestParts, type TokenRequest } from './oauth-token-request.ts';

const REQ: TokenRequest = {
  clientId: 'gate house',
  clientSecret: 's3cr:t+/',
  clientAuth: 'client_secret_basic',
  scope: 'weather:read weather:write',
  resource: 'https://weather.example/mcp',
  audience: undefined,
};

describe('tokenRequestParts', () => {
  it('sends client_secret_basic with each part form-encoded before base64 (RFC 6749 2.3.1)', () => {
    const { headers, body } = tokenRequestParts(REQ);
    const basic = Buffer.from(headers.authorization!.replace(/^Basic /, ''), 'base64').toString();
    expect(basic).toBe('gate+house:s3cr%3At%2B%2F');
    expect(headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(body);
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'client_credentials',
      scope: 'weather:read weather:write',
      resource: 'https://weather.example/mcp',
    });
  });

  it('sends client_secret_post in the form, with no Authorization header', () => {
    const { headers, body } = tokenRequestParts({ ...REQ, clientAuth: 'client_secret_post', scope: undefined, resource: undefined, audience: 'api' });
    expect(headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({
      grant_type: 'client_credentials',
      audience: 'api',
      client_id: 'gate house',
      client_secret: 's3cr:t+/',
    });
  });
});

describe('parseTokenResponse', () => {
  it('reads access_token and expires_in', () => {
    expect(parseTokenResponse(200, '{"access_token":"abc.def","token_type":"Bearer","expires_in":300}')).toEqual(
      ok({ accessToken: 'abc.def', expiresInMs: 300_000 }),
    );
    expect(parseTokenResponse(200, '{"access_token":"x","token_type":"bearer","expires_in":"60"}')).toEqual(
      ok({ accessToken: 'x', expiresInMs: 60_000 }),
    );
    expect(parseTokenResponse(200, '{"access_token":"x","token_type":"bearer"}')).toEqual(ok({ accessToken: 'x', expiresInMs: undefined }));
  });

  it('reports the OAuth error and description of a refusal (RFC 6749 5.2)', () => {
    expect(parseTokenResponse(401, '{"error":"invalid_client","error_description":"bad\\nsecret"}')).toEqual(
      err('the token endpoint refused the grant: invalid_client (bad?secret), HTTP 401'),
    );
    expect(parseTokenResponse(503, '<html>down</html>')).toEqual(err('the token endpoint answered HTTP 503'));
  });

  it('refuses tokens it cannot send or does not understand', () => {
    expect(parseTokenResponse(200, '{"access_token":"a b","token_type":"Bearer"}').ok).toBe(false);
    expect(parseTokenResponse(200, '{"access_token":"ab","token_type":"DPoP"}')).toEqual(
      err('the token endpoint issued a token of type "DPoP", not Bearer'),
    );
    expect(parseTokenResponse(200, '[]')).toEqual(err('the token endpoint answered with something other than a JSON object'));
  });
});
