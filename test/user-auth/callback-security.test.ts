// The callback refuses what an attacker could bring, and stores nothing when it does: a state
// changed in transit, a callback replayed, a callback opened in another browser than the one
// that started, the attacker's own authorization code put into the victim's callback (PKCE:
// the code was issued for the attacker's challenge), and a changed consent link.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentBrowser, Person } from '../harness/consent-browser.ts';
import { KEYS, useConsentBed, type UserAuthBed } from '../harness/user-auth-bed.ts';
import { connectLegacyClient } from '../fixtures/clients.ts';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';

let bed: UserAuthBed;
let browser: ConsentBrowser;

useConsentBed({}, (b) => ({ bed, browser } = b));

async function linkFor(key: string): Promise<string> {
  const c = await connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${key}` }, capabilities: { elicitation: { url: {} } } });
  const e = (await c.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).catch((x: unknown) => x)) as McpError;
  await c.close();
  if ((e as { data?: unknown }).data === undefined) throw new Error(`no consent error: ${JSON.stringify(e)}`);
  return (e.data as { elicitations: { url: string }[] }).elicitations[0]?.url as string;
}

const connections = async (key: string): Promise<unknown[]> => {
  const res = await fetch(`${bed.publicUrl}/oauth/connections`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { connections: unknown[] }).connections;
};

const withParam = (url: string, name: string, value: string): string => {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.href;
};

afterEach(async () => {
  for (const key of [KEYS.alice, KEYS.bob]) await fetch(`${bed.publicUrl}/oauth/connections/protected`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
});

describe('the OAuth callback', () => {
  let alice: Person;
  beforeAll(async () => {
    alice = await browser.person(KEYS.alice);
  });

  it('refuses a changed state and stores nothing', async () => {
    const cb = await alice.callbackUrl(await linkFor(KEYS.alice), 'alice');
    const state = new URL(cb).searchParams.get('state') as string;
    const changed = state.slice(0, 20) + (state[20] === 'A' ? 'B' : 'A') + state.slice(21);
    expect(await alice.open(withParam(cb, 'state', changed))).toContain('the state is not valid');
    expect(await alice.open(withParam(cb, 'state', 'not-a-state'))).toContain('the state is not valid');
    expect(await connections(KEYS.alice)).toEqual([]);
  }, 60_000);

  it('accepts a callback once, in the browser that started it', async () => {
    const cb = await alice.callbackUrl(await linkFor(KEYS.alice), 'alice');
    const other = await browser.person(KEYS.alice);
    expect(await other.open(cb)).toContain('started in another browser');
    expect(await connections(KEYS.alice)).toEqual([]);
    // The binding cookie is cleared on use; put back, the state is still refused: single use.
    const jar = await alice.context.cookies();
    expect(await alice.open(cb)).toContain('is connected for alice');
    await alice.context.addCookies(jar);
    expect(await alice.open(cb)).toContain('already completed');
    expect(await connections(KEYS.alice)).toHaveLength(1);
  }, 60_000);

  it("refuses an attacker's own code in the victim's callback (PKCE), storing nothing for either", async () => {
    const mallory = await browser.person(KEYS.bob);
    const attackerCb = await mallory.callbackUrl(await linkFor(KEYS.bob), 'mallory');
    const victimCb = await alice.callbackUrl(await linkFor(KEYS.alice), 'alice');
    const attackerCode = new URL(attackerCb).searchParams.get('code') as string;
    const outcome = await alice.open(withParam(victimCb, 'code', attackerCode));
    expect(outcome).toContain('invalid_grant');
    expect(await connections(KEYS.alice)).toEqual([]);
    expect(await connections(KEYS.bob)).toEqual([]);
  }, 60_000);

  it('refuses a changed consent link before anything starts', async () => {
    const link = await linkFor(KEYS.alice);
    const ticket = new URL(link).searchParams.get('ticket') as string;
    const changed = withParam(link, 'ticket', ticket.slice(0, -3) + (ticket.endsWith('AAA') ? 'BBB' : 'AAA'));
    expect(await alice.open(changed)).toContain('the consent link is not valid');
  });

  it('serves its client metadata document at the URL that is its client_id', async () => {
    const doc = (await (await fetch(`${bed.publicUrl}/oauth/client-metadata.json`)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ client_id: `${bed.publicUrl}/oauth/client-metadata.json`, redirect_uris: [`${bed.publicUrl}/oauth/callback`], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
  });

  it('gives an authenticated user a consent link for each upstream not yet connected', async () => {
    const res = (await (await fetch(`${bed.publicUrl}/oauth/connections`, { headers: { authorization: `Bearer ${KEYS.bob}` } })).json()) as { pending: { upstream: string; connect: string }[] };
    expect(res.pending).toHaveLength(1);
    expect(res.pending[0]?.upstream).toBe('protected');
    expect(await (await browser.person(KEYS.bob)).consent(res.pending[0]?.connect as string, 'bob')).toContain('is connected for bob');
    expect(await connections(KEYS.bob)).toHaveLength(1);
  }, 60_000);

  it('needs gateway credentials for the connections routes', async () => {
    expect((await fetch(`${bed.publicUrl}/oauth/connections`)).status).toBe(401);
    expect((await fetch(`${bed.publicUrl}/oauth/connections/protected`, { method: 'DELETE' })).status).toBe(401);
  });
});
