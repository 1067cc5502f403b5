// The gateway's own OAuth client metadata (RFC 7591 section 2), served at a URL that is its
// client_id (OAuth Client ID Metadata Document, draft-ietf-oauth-client-id-metadata-document):
// an authorization server that supports those fetches it instead of asking for a registration.
// The same metadata is what dynamic registration sends. A public client (PKCE, no secret):
// the gateway has no key of its own to prove at every authorization server.
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';
export const CALLBACK_PATH = '/oauth/callback';

export function clientMetadata(publicUrl: string): {
  client_id: string;
  client_name: string;
  client_uri: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
} {
  return {
    client_id: `${publicUrl}${CLIENT_METADATA_PATH}`,
    client_name: 'Gatehouse MCP gateway',
    client_uri: publicUrl,
    redirect_uris: [`${publicUrl}${CALLBACK_PATH}`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
