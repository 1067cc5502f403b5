import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../telemetry/logger.ts';
import { resolveClient } from './client-registration.ts';
import { clientSecrets } from './client-secrets.ts';
import { createOAuthHttp } from './oauth-http.ts';
import { createMemoryTokenStore } from './token-store.ts';
import type { ServerMetadata } from './authorization-discovery.ts';

const agent = new Agent();
afterAll(() => agent.close());
const deps = { http: createOAuthHttp(agent, 1000), store: createMemoryTokenStore(), publicUrl: 'https://gw.example.com', clientOf: clientSecrets(createMemoryLogger().logger, Date.now) };
const server = (over: Partial<ServerMetadata> = {}): ServerMetadata => ({
  issuer: 'https://as.example.com',
  authorizationEndpoint: 'https://as.example.com/auth',
  tokenEndpoint: 'https://as.example.com/token',
  registrationEndpoint: undefined,
  clientIdMetadataDocumentSupported: false,
  tokenAuthMethods: ['none'],
  ...over,
});

describe('resolveClient', () => {
  it('uses a configured client first, public without a secret', async () => {
    const auth = { type: 'user' as const, client: { id: 'gh', secret: undefined, secretFile: undefined, auth: 'client_secret_basic' as const }, scope: undefined, resource: undefined };
    expect(await resolveClient(deps, auth, server({ clientIdMetadataDocumentSupported: true }))).toEqual({ ok: true, value: { id: 'gh', secret: undefined, auth: 'none' } });
  });

  it("uses the gateway's Client ID Metadata Document where the server supports them", async () => {
    const auth = { type: 'user' as const, client: undefined, scope: undefined, resource: undefined };
    expect(await resolveClient(deps, auth, server({ clientIdMetadataDocumentSupported: true, registrationEndpoint: 'https://as.example.com/reg' }))).toEqual({
      ok: true,
      value: { id: 'https://gw.example.com/oauth/client-metadata.json', secret: undefined, auth: 'none' },
    });
  });

  it('says what to configure when the server offers no way to register', async () => {
    const auth = { type: 'user' as const, client: undefined, scope: undefined, resource: undefined };
    const r = await resolveClient(deps, auth, server());
    expect(!r.ok && r.error).toContain('configure auth.clientId');
  });
});
