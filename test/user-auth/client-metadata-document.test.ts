// The Client ID Metadata Document path end to end: the upstream's authorization server
// (oidc-provider with its clientIdMetadataDocument feature) accepts only https client_id URLs,
// so the gateway sits behind a real TLS front (nginx, a certificate made by openssl in the
// test) and its publicUrl is https. With no client configured and the server advertising
// `client_id_metadata_document_supported`, the gateway's client_id is the URL of its own
// metadata document; the server fetches that document over TLS, the person consents in
// Chromium, and the upstream gets tokens issued to that client_id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Agent, fetch } from 'undici';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { launchConsentBrowser, type ConsentBrowser } from '../harness/consent-browser.ts';
import { freePort } from '../harness/free-port.ts';
import { useMovableClock } from '../harness/movable-clock.ts';
import { startTlsFront, type TlsFront } from '../harness/tls-front.ts';
import { KEYS, startUserAuthBed, type UserAuthBed } from '../harness/user-auth-bed.ts';

const clock = useMovableClock();
const TTL_S = 600;
let front: TlsFront;
let alice: LegacyClient;
let bed: UserAuthBed;
let browser: ConsentBrowser;

beforeAll(async () => {
  const port = await freePort();
  front = await startTlsFront(port);
  [bed, browser] = await Promise.all([
    startUserAuthBed({ at: { port, publicUrl: front.origin }, auth: '', upstream: { clientIdMetadataDocuments: { ca: front.ca }, accessTokenTtlS: TTL_S } }),
    launchConsentBrowser({ trustAnyCertificate: true }),
  ]);
  await bed.gw.waitUp();
}, 60_000);

afterAll(async () => {
  await alice?.close();
  await browser?.close();
  await bed?.close();
  await front?.stop();
});

describe('Client ID Metadata Document, end to end over TLS', () => {
  it('serves the document on https with the client_id that is its own URL', async () => {
    const documentUrl = `${front.origin}/oauth/client-metadata.json`;
    expect(await fetchTrusted(documentUrl)).toMatchObject({ client_id: documentUrl, redirect_uris: [`${front.origin}/oauth/callback`], token_endpoint_auth_method: 'none' });
  });

  it('the authorization server fetches the document, the person consents, and the call runs with a token issued to that client_id', async () => {
    const documentUrl = `${front.origin}/oauth/client-metadata.json`;
    alice = await connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${KEYS.alice}` }, capabilities: { elicitation: { url: {} } } });
    const e = await alice.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(McpError);
    const link = ((e as McpError).data as { elicitations: { url: string }[] }).elicitations[0]?.url as string;
    expect(link.startsWith(`${front.origin}/oauth/connect?ticket=`)).toBe(true);
    const person = await browser.person(KEYS.alice);
    expect(await person.consent(link, 'alice-at-upstream')).toContain('is connected for alice');
    expect(bed.upstream.documentFetches).toContain(documentUrl);
    expect(new Set(bed.upstream.documentFetches)).toEqual(new Set([documentUrl]));
    // Fetched through the TLS front, not around it.
    expect(front.nginx.accessLog().some((l) => l.includes('GET /oauth/client-metadata.json'))).toBe(true);

    const res = await alice.callTool({ name: 'protected__whoami', arguments: {} });
    expect(res.content).toEqual([{ type: 'text', text: 'alice-at-upstream' }]);
    expect(bed.upstream.clients.length).toBeGreaterThan(0);
    expect(new Set(bed.upstream.clients)).toEqual(new Set([documentUrl]));
    // No dynamic registration was needed: the only grant is the code redemption.
    expect(bed.upstream.grants).toEqual(['authorization_code']);
  }, 90_000);

  it('refreshes as that same public client, with no secret', async () => {
    const documentUrl = `${front.origin}/oauth/client-metadata.json`;
    const before = bed.upstream.clients.length;
    clock.advance((TTL_S - 30) * 1000);
    const res = await alice.callTool({ name: 'protected__whoami', arguments: {} });
    expect(res.content).toEqual([{ type: 'text', text: 'alice-at-upstream' }]);
    expect(bed.upstream.grants).toEqual(['authorization_code', 'refresh_token']);
    expect(bed.upstream.clients.length).toBeGreaterThan(before);
    expect(new Set(bed.upstream.clients)).toEqual(new Set([documentUrl]));
  }, 60_000);
});

/** GET over TLS trusting the test's certificate. */
async function fetchTrusted(url: string): Promise<unknown> {
  const agent = new Agent({ connect: { ca: front.ca } });
  try {
    return await (await fetch(url, { dispatcher: agent })).json();
  } finally {
    await agent.close();
  }
}
