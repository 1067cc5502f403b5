// OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint: the document, and
// where it lives. MCP clients find it from the `resource_metadata` parameter of a 401, or at
// the well-known URIs, path-inserted first and then at the root (MCP 2026-07-28, basic/authorization 1); the gateway
// serves both. Pure: mounting the routes is left to the HTTP app.

import type { IdentityConfig } from './identity-config.ts';

/** RFC 9728 section 3: the well-known URI suffix. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** RFC 9728 section 2, the members the gateway sends. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  /** Tokens only in the Authorization header (RFC 6750 section 2.1; MCP 2026-07-28, basic/authorization 7). */
  bearer_methods_supported: ['header'];
}

/**
 * The metadata document and the paths to serve it at, or undefined when no authorization
 * server is configured (API keys only): MCP requires at least one in `authorization_servers`,
 * and a document without one would send clients looking for an OAuth flow that does not exist.
 * `mcpPath` is the endpoint's path as clients see it, normally the path of `resource`.
 */
export function protectedResourceMetadata(
  config: IdentityConfig,
  mcpPath: string,
): { paths: readonly string[]; document: ProtectedResourceMetadata } | undefined {
  if (config.authorizationServers.length === 0) return undefined;
  return {
    paths: metadataPaths(mcpPath),
    document: {
      resource: config.resource,
      authorization_servers: [...config.authorizationServers],
      ...(config.scopesSupported.length > 0 ? { scopes_supported: [...config.scopesSupported] } : {}),
      bearer_methods_supported: ['header'],
    },
  };
}

/** Path-inserted well-known path (RFC 9728 section 3.1), then the root one; one path for "/". */
export function metadataPaths(mcpPath: string): readonly string[] {
  const inserted = pathInserted(mcpPath);
  return inserted === PROTECTED_RESOURCE_WELL_KNOWN ? [inserted] : [inserted, PROTECTED_RESOURCE_WELL_KNOWN];
}

/** The path-inserted metadata URL for an endpoint at `origin` + `mcpPath`. */
export function metadataUrl(origin: string, mcpPath: string): string {
  return new URL(pathInserted(mcpPath), origin).href;
}

/**
 * The `resource_metadata` URL for challenges, derived from the configured `resource` as a
 * client derives it (RFC 9728 section 3.1: the well-known suffix goes between host and path,
 * the query stays at the end), or undefined when there is no metadata to point to.
 */
export function resourceMetadataUrl(config: IdentityConfig): string | undefined {
  if (config.authorizationServers.length === 0) return undefined;
  const resource = new URL(config.resource);
  return metadataUrl(resource.origin, resource.pathname) + resource.search;
}

// RFC 9728 section 3.1: a terminating slash after the host is removed before insertion.
function pathInserted(mcpPath: string): string {
  const path = mcpPath === '/' || mcpPath === '' ? '' : mcpPath.startsWith('/') ? mcpPath : `/${mcpPath}`;
  return PROTECTED_RESOURCE_WELL_KNOWN + path;
}
