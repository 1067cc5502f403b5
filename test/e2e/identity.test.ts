// Identity through the whole gateway: API keys and OAuth bearer JWTs in front of a real
// upstream, the RFC 9728 metadata, 401/403 challenges, sessions bound to their principal,
// and the client's credentials never reaching an upstream (MCP 2026-07-28, basic/authorization).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import type { ModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { ISSUER, signToken, type SigningKey } from '../identity/jwt-fixtures.ts';
import { useJwtBed } from '../harness/jwt-bed.ts';

const KEY_A = 'gh_test_key_alpha_0123456789abcdef';
const KEY_B = 'gh_test_key_bravo_0123456789abcdef';
const sha = (k: string): string => createHash('sha256').update(k).digest('hex');

let upstream: ModernUpstream;
let key: SigningKey;
let gw: TestGateway;
// The resource must be known before the port is: a fixed audience string.
const resource = 'http://gatehouse.test/mcp';

async function token(claims: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signToken(key, { aud: resource, iat: now, exp: now + 300, scope: 'mcp:tools', ...claims });
}

useJwtBed((up) => `
identity:
  resource: ${resource}
  apiKeys:
    - { id: alpha, sha256: "${sha(KEY_A)}", subject: ci-alpha, groups: [automation], scopes: [mcp:tools] }
    - { id: bravo, sha256: "${sha(KEY_B)}", subject: ci-bravo, scopes: [mcp:tools] }
  jwt:
    issuer: ${ISSUER}
    jwksUrl: ${up.jwks.url}
    algorithms: [RS256]
  requiredScopes: [mcp:tools]
  scopesSupported: [mcp:tools]
upstreams:
  - { name: up, url: "${up.upstream.url}", headers: { Authorization: "Bearer upstream-own-token" } }
`, (bed) => ({ upstream, key, gw } = bed));

const listTools = (headers: Record<string, string>) => postJson(gw.url, modernBody(1, 'tools/list'), modernHeaders('tools/list', undefined, headers));

describe('identity at the gateway', () => {
  it('answers a request without credentials with 401 and a challenge pointing at the metadata', async () => {
    const r = await listTools({});
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="http:\/\/gatehouse\.test\/\.well-known\/oauth-protected-resource\/mcp", scope="mcp:tools"$/);
    expect(r.json.error.code).toBe(-31003);
  });

  it('serves RFC 9728 metadata at the path-inserted and the root well-known paths', async () => {
    const origin = new URL(gw.url).origin;
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await fetch(origin + path);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({
        resource,
        authorization_servers: [ISSUER],
        scopes_supported: ['mcp:tools'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('lets an API key in as Bearer or X-API-Key, and refuses a wrong one', async () => {
    expect((await listTools({ authorization: `Bearer ${KEY_A}` })).json.result.tools.length).toBeGreaterThan(0);
    expect((await listTools({ 'x-api-key': KEY_B })).json.result.tools.length).toBeGreaterThan(0);
    const bad = await listTools({ authorization: 'Bearer not-a-key' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('verifies JWTs: a good one passes, a wrong audience or a missing scope does not', async () => {
    expect((await listTools({ authorization: `Bearer ${await token()}` })).status).toBe(200);
    const otherAudience = await listTools({ authorization: `Bearer ${await token({ aud: 'http://other.example/mcp' })}` });
    expect(otherAudience.status).toBe(401);
    expect(otherAudience.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const noScope = await listTools({ authorization: `Bearer ${await token({ scope: 'other' })}` });
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="mcp:tools"');
  });

  it("never passes the client's credentials upstream; the upstream gets only its own", async () => {
    const jwt = await token();
    const client = await connectModernClient(gw.url, { headers: { authorization: `Bearer ${jwt}` } });
    const r = await client.callTool({ name: 'up__echo', arguments: { message: 'who' } });
    expect(r.structuredContent).toEqual({ message: 'who' });
    await client.close();
    const calls = upstream.received.filter((q) => (q.body as { method?: string } | undefined)?.method === 'tools/call');
    expect(calls.length).toBeGreaterThan(0);
    for (const q of upstream.received) {
      expect(q.headers.authorization === undefined || q.headers.authorization === 'Bearer upstream-own-token').toBe(true);
      expect(JSON.stringify(q.headers)).not.toContain(jwt);
      expect(q.headers['x-api-key']).toBeUndefined();
    }
    expect(calls.at(-1)!.headers.authorization).toBe('Bearer upstream-own-token');
  });

  it('binds a legacy session to the principal that opened it', async () => {
    const client = await connectLegacyClient(gw.url, { headers: { 'x-api-key': KEY_A } });
    const sessionId = (client as unknown as { transport: { sessionId?: string } }).transport.sessionId;
    expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' };
    const asOwner = await postJson(gw.url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { ...headers, 'x-api-key': KEY_A });
    expect(asOwner.json).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
    const asOther = await postJson(gw.url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { ...headers, 'x-api-key': KEY_B });
    expect(asOther.status).toBe(404);
    await client.close();
  });
});
