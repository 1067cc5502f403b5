// Which OAuth client the gateway is at an upstream's authorization server, in the order MCP
// 2025-11-25 basic/authorization (client registration approaches) gives: a client registered
// beforehand (config); a Client ID Metadata Document, where the server supports them (the
// client_id is the URL of the gateway's own document, client-metadata-document.ts); else
// dynamic registration (RFC 7591), done once per server and kept in the token store so that
// every replica refreshes with the client the tokens were issued to.
import { err, ok, type Result } from '../protocol/result.ts';
import type { UserUpstreamAuth } from './user-auth-config.ts';
import type { ServerMetadata } from './authorization-discovery.ts';
import { clientMetadata } from './client-metadata-document.ts';
import { jsonObject, type OAuthHttp } from './oauth-http.ts';
import { shown } from '../upstream/http/server-text.ts';
import type { TokenStore } from './token-store.ts';
import type { ClientOf } from './client-secrets.ts';

export interface OAuthClient {
  id: string;
  secret: string | undefined;
  auth: 'none' | 'client_secret_basic' | 'client_secret_post';
}

export interface RegistrationDeps {
  http: OAuthHttp;
  store: TokenStore;
  /** userAuth.publicUrl, without a trailing slash. */
  publicUrl: string;
  /** A configured client with its secret read now. */
  clientOf: ClientOf;
}

export async function resolveClient(d: RegistrationDeps, auth: UserUpstreamAuth, server: ServerMetadata): Promise<Result<OAuthClient, string>> {
  if (auth.client !== undefined) return d.clientOf(auth.client);
  if (server.clientIdMetadataDocumentSupported) return ok({ id: clientMetadata(d.publicUrl).client_id, secret: undefined, auth: 'none' });
  if (server.registrationEndpoint === undefined) {
    return err('the authorization server supports neither Client ID Metadata Documents nor dynamic registration: configure auth.clientId');
  }
  const kept = await d.store.getClient(server.issuer);
  if (kept !== undefined) {
    const c = jsonObject(JSON.parse(kept));
    if (typeof c?.id === 'string') return ok({ id: c.id, secret: typeof c.secret === 'string' ? c.secret : undefined, auth: c.secret === undefined ? 'none' : 'client_secret_basic' });
  }
  const { client_id: _id, ...metadata } = clientMetadata(d.publicUrl);
  const answer = await d.http.post(server.registrationEndpoint, { json: metadata });
  if (!answer.ok) return err(`dynamic client registration failed: ${answer.error}`);
  const body = jsonObject(answer.value.json);
  if (answer.value.status !== 201 && answer.value.status !== 200) {
    const why = typeof body?.error === 'string' ? `${shown(body.error)}${typeof body.error_description === 'string' ? ` (${shown(body.error_description)})` : ''}` : 'no error given';
    return err(`dynamic client registration refused: ${why}, HTTP ${answer.value.status}`);
  }
  if (typeof body?.client_id !== 'string') return err('dynamic client registration answered without a client_id');
  const secret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
  await d.store.putClient(server.issuer, JSON.stringify({ id: body.client_id, ...(secret !== undefined ? { secret } : {}) }));
  return ok({ id: body.client_id, secret, auth: secret === undefined ? 'none' : 'client_secret_basic' });
}
