// Token exchange (auth type token_exchange, RFC 8693) end to end: callers with their own
// OAuth access token for the gateway (validated by identity.jwt) reach the upstream with a
// token the authorization server exchanged theirs for (subject token = the caller's, actor
// token = the gateway's, resource = the upstream); the upstream checks its audience and
// scope. Two callers at once each get their own; the caller's token itself never reaches the
// upstream; a caller with an API key is refused with a reason naming the upstream.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startProtectedUpstream, type ProtectedUpstream } from '../fixtures/oauth-protected-upstream.ts';
import { freePort } from '../harness/free-port.ts';
import { auditRequests, startTestGateway, type TestGateway } from '../harness/gateway.ts';

let upstream: ProtectedUpstream;
let gw: TestGateway;
const API_KEY = 'ci-bot-key-0123456789abcdefghij';

beforeAll(async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  upstream = await startProtectedUpstream({ redirectUri: `http://127.0.0.1:${port}/oauth/callback`, gatewayAudience: resource });
  gw = await startTestGateway(
    `
identity:
  resource: ${resource}
  jwt: { issuer: "${upstream.issuer}", jwksUrl: "${upstream.issuer}/jwks" }
  apiKeys:
    - { id: ci-bot, sha256: "${createHash('sha256').update(API_KEY).digest('hex')}" }
upstreams:
  - name: exchanged
    url: ${upstream.url}
    auth:
      type: token_exchange
      tokenUrl: ${upstream.exchangeUrl}
      clientId: gatehouse-exchange
      audience: mcp-server
      actorToken: gateway-actor-token
`,
    process.env,
    { port },
  );
  await gw.waitUp();
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

const text = (r: unknown): string => (((r as { content: { text: string }[] }).content)[0] as { text: string }).text;

describe('token exchange', () => {
  it("runs each caller's calls with a token exchanged for their own, never passing theirs on", async () => {
    const [carolToken, daveToken] = await Promise.all([upstream.callerToken('carol'), upstream.callerToken('dave')]);
    const carol = await connectModernClient(gw.url, { headers: { authorization: `Bearer ${carolToken}` } });
    const dave = await connectLegacyClient(gw.url, { headers: { authorization: `Bearer ${daveToken}` } });
    expect((await carol.listTools()).tools.map((t) => t.name).sort()).toEqual(['exchanged__echo', 'exchanged__whoami']);
    const answers = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 === 0 ? carol : dave).callTool({ name: 'exchanged__whoami', arguments: {} }).then(text)));
    expect(answers).toEqual(['carol', 'dave', 'carol', 'dave']);
    expect(upstream.exchanges.map((e) => e.subject).sort()).toEqual(['carol', 'dave']);
    for (const e of upstream.exchanges) {
      expect(e).toMatchObject({ actor: 'gateway-actor-token', resource: upstream.url, audience: 'mcp-server' });
    }
    await expect.poll(() => auditRequests(gw).filter((r) => r.name === 'exchanged__whoami').length).toBe(4);
    expect(auditRequests(gw).filter((r) => r.name === 'exchanged__whoami').every((r) => r.credential === 'exchange')).toBe(true);
    expect(JSON.stringify(auditRequests(gw))).not.toContain(carolToken.slice(-20));
    await carol.close();
    await dave.close();
  }, 60_000);

  it('refuses a caller with an API key, naming the upstream', async () => {
    const bot = await connectLegacyClient(gw.url, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect((await bot.listTools()).tools.map((t) => t.name).sort()).toEqual(['exchanged__echo', 'exchanged__whoami']);
    const e = (await bot.callTool({ name: 'exchanged__whoami', arguments: {} }).catch((x: unknown) => x)) as McpError;
    expect(e).toBeInstanceOf(McpError);
    expect(e.message).toContain('Upstream "exchanged" is unavailable: this upstream is reached with a token exchanged for your own OAuth access token');
    expect(upstream.exchanges.map((x) => x.subject)).not.toContain('ci-bot');
    await bot.close();
  });

  it('names the upstream when the exchange is refused', async () => {
    const stranger = await connectLegacyClient(gw.url, { headers: { authorization: `Bearer ${await upstream.callerToken('eve')}` } });
    await upstream.stopAuthorizationServer();
    const e = (await stranger.callTool({ name: 'exchanged__whoami', arguments: {} }).catch((x: unknown) => x)) as McpError;
    expect(e).toBeInstanceOf(McpError);
    expect(e.message).toContain('Upstream "exchanged" is unavailable: cannot exchange your token for one for this upstream');
    await stranger.close();
  });
});
