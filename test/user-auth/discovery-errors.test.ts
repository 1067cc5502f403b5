// Discovery of an upstream's authorization server refuses metadata that could send users to
// the wrong place, against real HTTP servers on 127.0.0.1 serving each case: metadata for
// another resource (RFC 9728 section 3.3), an authorization server whose metadata names
// another issuer (RFC 8414 section 3.3), one without PKCE S256, an upstream that does not ask
// for authorization, and no metadata at all. Through a gateway, a failure shows in /readyz.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverAuthorization } from '../../src/user-auth/authorization-discovery.ts';
import { createOAuthHttp } from '../../src/user-auth/oauth-http.ts';
import { startUserAuthBed } from '../harness/user-auth-bed.ts';
import { startProtectedUpstream } from '../fixtures/oauth-protected-upstream.ts';
import { freePort } from '../harness/free-port.ts';

type Case = { status?: number; resource?: (base: string) => string; issuer?: (base: string) => string; s256?: boolean; challenge?: boolean };
let server: Server;
let base: string;
const cases = new Map<string, Case>();
const agent = new Agent();
const http = createOAuthHttp(agent, 2000);

beforeAll(async () => {
  server = createServer((req, res) => {
    // RFC 8414 section 3.1: the issuer's path goes after the well-known segment.
    const WK = '/.well-known/oauth-authorization-server';
    const url = req.url ?? '';
    const [, name, ...rest] = (url.startsWith(WK) ? url.slice(WK.length) + '/wk' : url).split('/');
    const c = cases.get(name ?? '');
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    const path = `/${rest.join('/')}`;
    if (c === undefined) return json(404, {});
    if (path === '/mcp') {
      req.resume();
      if (c.status !== undefined) return json(c.status, { jsonrpc: '2.0', id: 0, result: {} });
      return json(401, { error: 'invalid_token' }, c.challenge === false ? {} : { 'www-authenticate': `Bearer resource_metadata="${base}/${name}/prm", scope="s1"` });
    }
    if (path === '/prm') return json(200, { resource: c.resource?.(`${base}/${name}`) ?? `${base}/${name}/mcp`, authorization_servers: [`${base}/${name}/as`] });
    if (path === '/as/wk') {
      return json(200, {
        issuer: c.issuer?.(base) ?? `${base}/${name}/as`,
        authorization_endpoint: `${base}/${name}/as/auth`,
        token_endpoint: `${base}/${name}/as/token`,
        code_challenge_methods_supported: c.s256 === false ? ['plain'] : ['S256'],
      });
    }
    return json(404, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const discover = (name: string, c: Case, resource?: string) => {
  cases.set(name, c);
  return discoverAuthorization(http, `${base}/${name}/mcp`, resource);
};

describe('authorization server discovery', () => {
  it('follows the challenge to the metadata and the server, with the challenge scope', async () => {
    const d = await discover('good', {});
    expect(d.ok && d.value).toMatchObject({ resource: `${base}/good/mcp`, scope: 's1', server: { issuer: `${base}/good/as`, tokenEndpoint: `${base}/good/as/token` } });
  });

  it('refuses metadata for another resource, unless auth.resource says so', async () => {
    const d = await discover('other', { resource: () => 'https://elsewhere.example/mcp' });
    expect(!d.ok && d.error).toContain('is for https://elsewhere.example/mcp, not for this upstream');
    const allowed = await discover('other2', { resource: () => 'https://elsewhere.example/mcp' }, 'https://elsewhere.example/mcp');
    expect(allowed.ok).toBe(true);
  });

  it('refuses server metadata that names another issuer', async () => {
    const d = await discover('mixup', { issuer: () => 'https://evil.example' });
    expect(!d.ok && d.error).toContain('names issuer https://evil.example');
  });

  it('refuses a server without PKCE S256', async () => {
    const d = await discover('nopkce', { s256: false });
    expect(!d.ok && d.error).toContain('does not advertise PKCE with S256');
  });

  it('says when the upstream does not ask for authorization', async () => {
    const d = await discover('open', { status: 200 });
    expect(!d.ok && d.error).toContain('not 401');
  });

  it('says when no metadata can be found', async () => {
    const d = await discover('nometa', { challenge: false });
    expect(!d.ok && d.error).toContain('no protected-resource metadata');
  });

  it('shows an unreachable authorization server in /readyz, naming the upstream', async () => {
    const port = await freePort();
    const upstream = await startProtectedUpstream({ redirectUri: `http://127.0.0.1:${port}/oauth/callback` });
    await upstream.stopAuthorizationServer();
    const bed = await startUserAuthBed({ shared: { upstream, port } });
    try {
      await expect
        .poll(async () => ((await (await fetch(`${bed.publicUrl}/readyz`)).json()) as { upstreams: { name: string; state: string; lastError?: string }[] }).upstreams[0], { timeout: 10_000 })
        .toMatchObject({ name: 'protected', state: 'down', lastError: expect.stringContaining('per-user authorization: no authorization server metadata') });
    } finally {
      await bed.close();
      await upstream.close();
    }
  }, 30_000);
});
