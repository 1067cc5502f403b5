// A config reload takes per-user upstreams live: a gateway started with none gets a consent
// upstream (a pre-registered confidential client whose secret is in a file,
// `clientSecretFile`) and a token-exchange upstream by a reload; a user connects in Chromium
// and calls; a reload that changes them keeps the user's tokens and uses the new settings at
// once; a reload that would change the token store in use is refused, naming the field;
// a reload that removes them takes their tools and the /oauth routes away.
import { createHash } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { startProtectedUpstream, type ProtectedUpstream } from '../fixtures/oauth-protected-upstream.ts';
import { launchConsentBrowser, type ConsentBrowser } from '../harness/consent-browser.ts';
import { freePort } from '../harness/free-port.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { KEYS, SEAL_KEY } from '../harness/user-auth-bed.ts';

const CLIENT_SECRET = 'confidential-client-secret-0123456789';
let upstream: ProtectedUpstream;
let gw: TestGateway;
let browser: ConsentBrowser;
let publicUrl: string;
let alice: LegacyClient;

const sha = (k: string): string => createHash('sha256').update(k).digest('hex');

function configText(o: { perUser: boolean; scope?: string; audience?: string; store?: string }): string {
  const head = `
identity:
  resource: ${publicUrl}/mcp
  jwt: { issuer: "${upstream.issuer}", jwksUrl: "${upstream.issuer}/jwks" }
  apiKeys:
    - { id: alice, sha256: "${sha(KEYS.alice)}", subject: alice }
audit: { enabled: false }
`;
  if (!o.perUser) return `${head}upstreams: []\n`;
  return `${head}userAuth:
  publicUrl: ${publicUrl}
  keys: ["${SEAL_KEY}"]
${o.store ?? ''}
upstreams:
  - name: protected
    url: ${upstream.url}
    auth:
      type: user
      clientId: gatehouse-test
      clientSecretFile: client-secret
${o.scope ? `      scope: "${o.scope}"\n` : ''}  - name: exchanged
    url: ${upstream.url}
    auth:
      type: token_exchange
      tokenUrl: ${upstream.exchangeUrl}
      clientId: gatehouse-exchange
      audience: ${o.audience ?? 'mcp-server'}
`;
}

/** Saved as editors save (a new file renamed over the old one); resolves once the gateway logged the outcome. */
async function reload(text: string, outcome: string): Promise<Record<string, unknown>> {
  const before = gw.logs.filter((l) => l.msg === outcome).length;
  const file = gw.config.file;
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
  await expect.poll(() => gw.logs.filter((l) => l.msg === outcome).length, { timeout: 10_000 }).toBe(before + 1);
  return gw.logs.filter((l) => l.msg === outcome).at(-1) as Record<string, unknown>;
}

const tools = async (c: LegacyClient): Promise<string[]> => (await c.listTools()).tools.map((t) => t.name).sort();
const text = (r: unknown): string => (((r as { content: { text: string }[] }).content)[0] as { text: string }).text;

beforeAll(async () => {
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  upstream = await startProtectedUpstream({ redirectUri: `${publicUrl}/oauth/callback`, clientSecret: CLIENT_SECRET, gatewayAudience: `${publicUrl}/mcp` });
  gw = await startTestGateway(configText({ perUser: false }), process.env, { port, reload: true });
  // Beside the config file, which names it relative to its own directory.
  writeFileSync(join(dirname(gw.config.file), 'client-secret'), `${CLIENT_SECRET}\n`);
  browser = await launchConsentBrowser();
  alice = await connectLegacyClient(gw.url, { headers: { authorization: `Bearer ${KEYS.alice}` }, capabilities: { elicitation: { url: {} } } });
}, 60_000);

afterAll(async () => {
  await alice?.close();
  await browser?.close();
  await gw?.close();
  await upstream?.close();
});

describe('config reload of per-user upstreams', () => {
  it('starts without per-user upstreams: no /oauth routes', async () => {
    expect((await fetch(`${publicUrl}/oauth/connections`, { headers: { authorization: `Bearer ${KEYS.alice}` } })).status).toBe(404);
    expect(await tools(alice)).toEqual([]);
  });

  it('adds a consent upstream (secret from a file) and an exchange upstream live; both serve', async () => {
    const applied = await reload(configText({ perUser: true }), 'config reloaded');
    expect(applied.upstreams).toEqual({ added: ['protected', 'exchanged'], removed: [], changed: [] });
    await expect.poll(async () => ((await (await fetch(`${publicUrl}/readyz`)).json()) as { upstreams: { name: string; state: string }[] }).upstreams.map((u) => `${u.name}:${u.state}`).sort()).toEqual(['exchanged:up', 'protected:up']);
    const e = (await alice.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).catch((x: unknown) => x)) as McpError;
    expect(e).toBeInstanceOf(McpError);
    expect(e.code).toBe(-32042);
    const link = (e.data as { elicitations: { url: string }[] }).elicitations[0]?.url as string;
    // The authorization server takes the code only with the client's secret (client_secret_basic): the file's.
    expect(await (await browser.person(KEYS.alice)).consent(link, 'alice-at-upstream')).toContain('is connected for alice');
    expect(text(await alice.callTool({ name: 'protected__whoami', arguments: {} }))).toBe('alice-at-upstream');

    const carol = await connectLegacyClient(gw.url, { headers: { authorization: `Bearer ${await upstream.callerToken('carol')}` } });
    expect(text(await carol.callTool({ name: 'exchanged__whoami', arguments: {} }))).toBe('carol');
    expect(upstream.exchanges.at(-1)?.audience).toBe('mcp-server');
    await carol.close();
  }, 90_000);

  it("changes both live: the user's tokens stay, the new exchange audience is used at once", async () => {
    const applied = await reload(configText({ perUser: true, scope: 'mcp:tools', audience: 'mcp-server-2' }), 'config reloaded');
    expect(applied.upstreams).toEqual({ added: [], removed: [], changed: ['protected', 'exchanged'] });
    const grants = upstream.grants.length;
    expect(text(await alice.callTool({ name: 'protected__whoami', arguments: {} }))).toBe('alice-at-upstream');
    expect(upstream.grants.length).toBe(grants);
    const carol = await connectLegacyClient(gw.url, { headers: { authorization: `Bearer ${await upstream.callerToken('carol')}` } });
    expect(text(await carol.callTool({ name: 'exchanged__whoami', arguments: {} }))).toBe('carol');
    expect(upstream.exchanges.at(-1)?.audience).toBe('mcp-server-2');
    await carol.close();
  }, 60_000);

  it('refuses a reload that would change the token store in use, naming the field, and keeps serving', async () => {
    const refused = await reload(configText({ perUser: true, scope: 'mcp:tools', audience: 'mcp-server-2', store: '  store: { kind: redis, redisUrl: "redis://127.0.0.1:1" }' }), 'config reload refused; keeping the running config');
    expect(refused.path).toBe('/userAuth/store');
    expect(refused.reason).toBe("userAuth.store cannot change while the gateway runs (users' sealed tokens live in the store in use); restart the gateway to change it");
    expect(text(await alice.callTool({ name: 'protected__whoami', arguments: {} }))).toBe('alice-at-upstream');
  }, 60_000);

  it('removes them live: their tools and the /oauth routes go', async () => {
    const applied = await reload(configText({ perUser: false }), 'config reloaded');
    expect(applied.upstreams).toEqual({ added: [], removed: ['protected', 'exchanged'], changed: [] });
    expect(await tools(alice)).toEqual([]);
    expect((await fetch(`${publicUrl}/oauth/connections`, { headers: { authorization: `Bearer ${KEYS.alice}` } })).status).toBe(404);
    const me = (await (await fetch(`${publicUrl}/approvals/api/me`, { headers: { authorization: `Bearer ${KEYS.alice}` } })).json()) as { connections: boolean };
    expect(me.connections).toBe(false);
  }, 60_000);
});
