// Finds the authorization server of an upstream the way an MCP client must (MCP 2025-11-25,
// basic/authorization, authorization server discovery): ask the upstream without a token;
// its 401 names the protected-resource metadata (RFC 9728 section 5.1), else the well-known
// URIs of RFC 9728 section 3.1 are tried; the metadata names the authorization server,
// whose own metadata comes from RFC 8414 section 3.1 (then OpenID Connect Discovery 1.0 for
// servers that only publish that). The document's `resource` must be the upstream's (RFC 9728
// section 3.3) and the server's `issuer` the one asked for (RFC 8414 section 3.3): either
// mismatch could let another party's metadata redirect users. PKCE with S256 is required
// (MCP: clients must refuse a server that does not advertise it).
import { err, ok, type Result } from '../protocol/result.ts';
import { parseBearerChallenge } from './bearer-challenge.ts';
import { jsonObject, type OAuthHttp } from './oauth-http.ts';
import { shown } from '../upstream/http/server-text.ts';

export interface ServerMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint: string | undefined;
  /** draft-ietf-oauth-client-id-metadata-document: the server fetches client metadata from a URL client_id. */
  clientIdMetadataDocumentSupported: boolean;
  tokenAuthMethods: readonly string[];
}

export interface Discovered {
  /** RFC 8707 resource to ask tokens for. */
  resource: string;
  /** Space-separated; undefined when neither challenge nor metadata said. */
  scope: string | undefined;
  server: ServerMetadata;
}

const MCP_PROBE = { jsonrpc: '2.0', id: 0, method: 'ping' };

/** `upstreamUrl`: the MCP endpoint. `resource`: the configured override, if any. */
export async function discoverAuthorization(http: OAuthHttp, upstreamUrl: string, resource: string | undefined): Promise<Result<Discovered, string>> {
  const probe = await http.post(upstreamUrl, { json: MCP_PROBE }, { accept: 'application/json, text/event-stream' });
  if (!probe.ok) return err(`the upstream: ${probe.error}`);
  const challenge = probe.value.status === 401 ? parseBearerChallenge(probe.value.headers['www-authenticate']) : undefined;
  if (probe.value.status !== 401) return err(`the upstream answered HTTP ${probe.value.status} without a token, not 401: it does not ask for authorization`);
  const candidates = challenge?.resourceMetadata !== undefined ? [challenge.resourceMetadata] : wellKnownResourceMetadata(upstreamUrl);
  let prm: Record<string, unknown> | undefined;
  const tried: string[] = [];
  for (const url of candidates) {
    const got = await http.getJson(url);
    if (got.ok && got.value.status === 200 && jsonObject(got.value.json)) {
      prm = jsonObject(got.value.json);
      break;
    }
    tried.push(got.ok ? `HTTP ${got.value.status}` : got.error);
  }
  if (prm === undefined) return err(`no protected-resource metadata (RFC 9728): ${tried.join('; ')}`);
  const named = typeof prm.resource === 'string' ? prm.resource : undefined;
  if (named === undefined) return err('the protected-resource metadata names no resource');
  if (resource === undefined && !sameResource(named, upstreamUrl)) {
    return err(`the protected-resource metadata is for ${shown(named)}, not for this upstream (RFC 9728 section 3.3); set auth.resource if that is intended`);
  }
  const servers = Array.isArray(prm.authorization_servers) ? prm.authorization_servers.filter((s): s is string => typeof s === 'string') : [];
  const issuer = servers[0];
  if (issuer === undefined) return err('the protected-resource metadata lists no authorization server');
  const server = await serverMetadata(http, issuer);
  if (!server.ok) return server;
  const supported = Array.isArray(prm.scopes_supported) ? prm.scopes_supported.filter((s): s is string => typeof s === 'string') : [];
  const scope = challenge?.scope ?? (supported.length > 0 ? supported.join(' ') : undefined);
  return ok({ resource: resource ?? named, scope, server: server.value });
}

/** RFC 9728 section 3.1: the path-inserted well-known URI first, then the root one. */
export function wellKnownResourceMetadata(upstreamUrl: string): string[] {
  const u = new URL(upstreamUrl);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  const root = `${u.origin}/.well-known/oauth-protected-resource`;
  return path === '' ? [root] : [`${root}${path}`, root];
}

/** RFC 8414 section 3.1, then OpenID Connect Discovery (path-inserted and appended forms). */
export function serverMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    ...(path === '' ? [] : [`${u.origin}${path}/.well-known/openid-configuration`]),
  ];
}

async function serverMetadata(http: OAuthHttp, issuer: string): Promise<Result<ServerMetadata, string>> {
  const tried: string[] = [];
  for (const url of serverMetadataUrls(issuer)) {
    const got = await http.getJson(url);
    const doc = got.ok && got.value.status === 200 ? jsonObject(got.value.json) : undefined;
    if (doc === undefined) {
      tried.push(got.ok ? `HTTP ${got.value.status}` : got.error);
      continue;
    }
    if (doc.issuer !== issuer) return err(`the authorization server's metadata names issuer ${shown(String(doc.issuer))}, not ${shown(issuer)} (RFC 8414 section 3.3)`);
    const { authorization_endpoint: auth, token_endpoint: token } = doc;
    if (typeof auth !== 'string' || typeof token !== 'string') return err('the authorization server metadata lacks authorization_endpoint or token_endpoint');
    const methods = Array.isArray(doc.code_challenge_methods_supported) ? doc.code_challenge_methods_supported : [];
    if (!methods.includes('S256')) return err('the authorization server does not advertise PKCE with S256, which MCP requires');
    return ok({
      issuer,
      authorizationEndpoint: auth,
      tokenEndpoint: token,
      registrationEndpoint: typeof doc.registration_endpoint === 'string' ? doc.registration_endpoint : undefined,
      clientIdMetadataDocumentSupported: doc.client_id_metadata_document_supported === true,
      tokenAuthMethods: Array.isArray(doc.token_endpoint_auth_methods_supported) ? doc.token_endpoint_auth_methods_supported.filter((m): m is string => typeof m === 'string') : ['client_secret_basic'],
    });
  }
  return err(`no authorization server metadata for ${shown(issuer)}: ${tried.join('; ')}`);
}

/** Resource identifiers compare as URLs without a trailing slash (RFC 3986 normalization). */
function sameResource(a: string, b: string): boolean {
  const norm = (s: string): string => {
    try {
      return new URL(s).href.replace(/\/$/, '');
    } catch {
      return s;
    }
  };
  return norm(a) === norm(b);
}
