import { describe, expect, it } from 'vitest';
import {
  metadataPaths,
  metadataUrl,
  protectedResourceMetadata,
  resourceMetadataUrl,
} from '../../src/identity/resource-metadata.ts';
import { hashKey } from '../../src/identity/hash-key.ts';
import { identityConfig } from './jwt-fixtures.ts';

const ISSUER = 'https://auth.example.com';
const jwt = { issuer: ISSUER, jwksUrl: `${ISSUER}/jwks.json` };

describe('protectedResourceMetadata (RFC 9728)', () => {
  it('serves the document at the path-inserted and the root well-known paths', () => {
    const config = identityConfig({ resource: 'https://gw.example.com/mcp', jwt, scopesSupported: ['mcp:tools', 'mcp:read'] });
    expect(protectedResourceMetadata(config, '/mcp')).toEqual({
      paths: ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'],
      document: {
        resource: 'https://gw.example.com/mcp',
        authorization_servers: [ISSUER],
        scopes_supported: ['mcp:tools', 'mcp:read'],
        bearer_methods_supported: ['header'],
      },
    });
  });

  it('lists configured authorization servers and leaves out scopes_supported when none are configured', () => {
    const config = identityConfig({ resource: 'https://gw.example.com/mcp', jwt, authorizationServers: ['https://a.example.com', 'https://b.example.com/tenant'] });
    expect(protectedResourceMetadata(config, '/mcp')?.document).toEqual({
      resource: 'https://gw.example.com/mcp',
      authorization_servers: ['https://a.example.com', 'https://b.example.com/tenant'],
      bearer_methods_supported: ['header'],
    });
  });

  it('has no document when no authorization server is configured (API keys only)', () => {
    const config = identityConfig({ resource: 'https://gw.example.com/mcp', apiKeys: [{ id: 'a', sha256: hashKey('x'.repeat(32)) }] });
    expect(protectedResourceMetadata(config, '/mcp')).toBeUndefined();
    expect(resourceMetadataUrl(config)).toBeUndefined();
  });
});

describe('metadata paths and URLs', () => {
  it('inserts the well-known suffix between host and path, and uses one path for an endpoint at the root', () => {
    expect(metadataPaths('/gateway/mcp')).toEqual(['/.well-known/oauth-protected-resource/gateway/mcp', '/.well-known/oauth-protected-resource']);
    expect(metadataPaths('/')).toEqual(['/.well-known/oauth-protected-resource']);
    expect(metadataUrl('https://gw.example.com', '/mcp')).toBe('https://gw.example.com/.well-known/oauth-protected-resource/mcp');
    expect(metadataUrl('http://127.0.0.1:8080', '/')).toBe('http://127.0.0.1:8080/.well-known/oauth-protected-resource');
  });

  it('derives the challenge URL from the configured resource, keeping its port and query', () => {
    expect(resourceMetadataUrl(identityConfig({ resource: 'http://127.0.0.1:8080/mcp', jwt }))).toBe(
      'http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp',
    );
    expect(resourceMetadataUrl(identityConfig({ resource: 'https://gw.example.com/t/mcp?tenant=a', jwt }))).toBe(
      'https://gw.example.com/.well-known/oauth-protected-resource/t/mcp?tenant=a',
    );
  });
});
