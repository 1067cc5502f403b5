// A virtual server is its own protected resource (RFC 9728; MCP 2026-07-28,
// basic/authorization): its metadata sits at its path-inserted well-known URL and names its
// own URI, its 401 points there, and a JWT must carry its URI as audience (RFC 8707). A server
// with `host` answers its path only for that Host; others there get the default endpoint; its
// host passes the Host check without being listed in allowedHosts.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { modernBody, modernHeaders, postJson, type TestGateway } from '../harness/gateway.ts';
import { ISSUER, signToken, type SigningKey } from '../identity/jwt-fixtures.ts';
import { useJwtBed } from '../harness/jwt-bed.ts';

let gw: TestGateway;
let key: SigningKey;
const resource = 'http://gatehouse.test/mcp';
const teamResource = 'http://gatehouse.test/mcp/team-a';

async function token(aud: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signToken(key, { aud, iat: now, exp: now + 300, scope: 'mcp:tools' });
}

useJwtBed((up) => `
# Host checks on: a server's own host is allowed without being listed here.
allowedHosts: [gatehouse.test]
identity:
  resource: ${resource}
  jwt: { issuer: ${ISSUER}, jwksUrl: ${up.jwks.url}, algorithms: [RS256] }
  scopesSupported: [mcp:tools]
upstreams:
  - { name: up, url: "${up.upstream.url}" }
servers:
  - { name: team-a, tools: { include: [up__echo] } }
  - { name: hosted, path: /mcp, host: tools.localhost, prefix: none, tools: { include: [add] } }
`, (bed) => ({ key, gw } = bed));

const listOn = (url: string, headers: Record<string, string>) => postJson(url, modernBody(1, 'tools/list'), modernHeaders('tools/list', undefined, headers));

/** A POST with a Host header of our choosing (fetch may not set Host), to 127.0.0.1. */
function postWithHost(url: string, host: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...headers, host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('a virtual server as a protected resource', () => {
  it('serves its own RFC 9728 metadata at its path-inserted URL; the default one stays at /mcp\'s', async () => {
    const origin = new URL(gw.url).origin;
    const own = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp/team-a`);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ resource: teamResource, authorization_servers: [ISSUER], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'] });
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      expect((await (await fetch(origin + path)).json()).resource).toBe(resource);
    }
  });

  it('points its 401 at its own metadata', async () => {
    const r = await listOn(gw.servers['team-a']!, {});
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer resource_metadata="http://gatehouse.test/.well-known/oauth-protected-resource/mcp/team-a", scope="mcp:tools"');
  });

  it('takes a token for its own URI, and refuses one for /mcp; /mcp the other way round', async () => {
    const forTeam = { authorization: `Bearer ${await token(teamResource)}` };
    const forRoot = { authorization: `Bearer ${await token(resource)}` };
    const ok = await listOn(gw.servers['team-a']!, forTeam);
    expect(ok.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['up__echo']);
    expect((await listOn(gw.servers['team-a']!, forRoot)).status).toBe(401);
    expect((await listOn(gw.url, forRoot)).status).toBe(200);
    expect((await listOn(gw.url, forTeam)).status).toBe(401);
  });
});

describe('a server with host', () => {
  it('answers its path for its own Host only; any other Host gets the default endpoint there', async () => {
    const auth = { ...modernHeaders('tools/list'), authorization: `Bearer ${await token(resource)}` };
    const other = await postWithHost(gw.url, '127.0.0.1', modernBody(2, 'tools/list'), auth);
    expect(other.json.result.tools.map((t: { name: string }) => t.name)).toContain('up__echo');
    const hostedAuth = { ...modernHeaders('tools/list'), authorization: `Bearer ${await token('http://tools.localhost/mcp')}` };
    const hosted = await postWithHost(gw.url, `tools.localhost:${gw.port}`, modernBody(3, 'tools/list'), hostedAuth);
    expect(hosted.status).toBe(200);
    expect(hosted.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['add']);
    // Any other name still fails the Host check (DNS rebinding defence).
    expect((await postWithHost(gw.url, 'evil.example', modernBody(4, 'tools/list'), hostedAuth)).status).toBe(403);
  });
});
