// `userAuth.withoutConsent: hide`: a caller who has not connected sees only the connect tool,
// even after another user's list was fetched; once connected, their own list.
import { describe, expect, it } from 'vitest';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient } from '../fixtures/clients.ts';
import type { ConsentBrowser } from '../harness/consent-browser.ts';
import { KEYS, useConsentBed, type UserAuthBed } from '../harness/user-auth-bed.ts';

let bed: UserAuthBed;
let browser: ConsentBrowser;

useConsentBed({ userAuth: 'withoutConsent: hide' }, (b) => ({ bed, browser } = b));

describe('withoutConsent: hide', () => {
  it("shows a caller without a token only the connect tool, whatever others' lists hold", async () => {
    const alice = await connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${KEYS.alice}` }, capabilities: { elicitation: { url: {} } } });
    const e = (await alice.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).catch((x: unknown) => x)) as McpError;
    await (await browser.person(KEYS.alice)).consent((e.data as { elicitations: { url: string }[] }).elicitations[0]?.url as string, 'alice');
    expect((await alice.listTools()).tools.map((t) => t.name).sort()).toEqual(['protected__echo', 'protected__whoami']);
    const bob = await connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${KEYS.bob}` } });
    expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(['protected__gatehouse_connect']);
    const ready = (await (await fetch(`${bed.publicUrl}/readyz`)).json()) as { upstreams: { userAuth?: { withoutConsent: string; note: string } }[] };
    expect(ready.upstreams[0]?.userAuth).toMatchObject({ withoutConsent: 'hide', note: expect.stringContaining('only a connect tool') });
    await alice.close();
    await bob.close();
  }, 60_000);
});
