// A user's tokens over time, with the clock moved instead of waited on (the authorization
// server and the upstream read the same clock, so a token the gateway thinks expired is
// expired for them too): refresh shortly before expiry, once however many calls need it;
// revocation at the authorization server (invalid_grant) removes the tokens and asks for
// consent again; the user's own disconnect does the same; a dead authorization server gives
// an error that names the upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import type { ConsentBrowser, Person } from '../harness/consent-browser.ts';
import { useMovableClock } from '../harness/movable-clock.ts';
import { KEYS, useConsentBed, type UserAuthBed } from '../harness/user-auth-bed.ts';

const clock = useMovableClock();
const TTL_S = 600;
let bed: UserAuthBed;
let browser: ConsentBrowser;
let alice: LegacyClient;
let person: Person;

useConsentBed({ upstream: { accessTokenTtlS: TTL_S } }, (b) => ({ bed, browser } = b));

beforeAll(async () => {
  alice = await connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${KEYS.alice}` }, capabilities: { elicitation: { url: {} } } });
  person = await browser.person(KEYS.alice);
});

afterAll(async () => {
  await alice?.close();
});

const whoami = async (): Promise<unknown> => {
  try {
    const r = await alice.callTool({ name: 'protected__whoami', arguments: {} });
    return (r.content as { text: string }[])[0]?.text;
  } catch (e) {
    return e;
  }
};

async function connect(): Promise<void> {
  const e = (await alice.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).catch((x: unknown) => x)) as McpError;
  expect(e.code).toBe(-32042);
  const url = (e.data as { elicitations: { url: string }[] }).elicitations[0]?.url as string;
  expect(await person.consent(url, 'alice-at-upstream')).toContain('is connected');
}

describe('user token lifecycle', () => {
  it('refreshes once shortly before expiry, however many calls need it', async () => {
    await connect();
    expect(await whoami()).toBe('alice-at-upstream');
    expect(bed.upstream.grants).toEqual(['authorization_code']);
    clock.advance((TTL_S - 30) * 1000);
    const answers = await Promise.all(Array.from({ length: 5 }, () => whoami()));
    expect(answers).toEqual(Array(5).fill('alice-at-upstream'));
    expect(bed.upstream.grants).toEqual(['authorization_code', 'refresh_token']);
  }, 60_000);

  it('removes the tokens when the authorization server refuses the refresh (invalid_grant), and asks for consent again', async () => {
    await bed.upstream.revokeGrants('alice-at-upstream');
    clock.advance(TTL_S * 1000);
    const e = await whoami();
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(-32042);
    const listed = await fetch(`${bed.publicUrl}/oauth/connections`, { headers: { authorization: `Bearer ${KEYS.alice}` } });
    expect(((await listed.json()) as { connections: unknown[] }).connections).toEqual([]);
  }, 60_000);

  it("removes the user's connection on their own request", async () => {
    await connect();
    expect(await whoami()).toBe('alice-at-upstream');
    const res = await fetch(`${bed.publicUrl}/oauth/connections/protected`, { method: 'DELETE', headers: { authorization: `Bearer ${KEYS.alice}` } });
    expect(await res.json()).toEqual({ upstream: 'protected', removed: true });
    expect(((await whoami()) as McpError).code).toBe(-32042);
  }, 60_000);

  it('names the upstream when its authorization server is gone and the token has expired', async () => {
    await connect();
    await bed.upstream.stopAuthorizationServer();
    clock.advance(TTL_S * 1000);
    const e = (await whoami()) as McpError;
    expect(e).toBeInstanceOf(McpError);
    expect(e.code).toBe(-31001);
    expect(e.message).toContain('Upstream "protected" is unavailable: cannot refresh your access token: cannot reach');
    expect(e.message).not.toContain('alice-at-upstream');
    expect(e.message).not.toContain('127.0.0.1');
  }, 60_000);
});
