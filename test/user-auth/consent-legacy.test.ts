// Per-user upstream authorization end to end with a 2025-11-25 client (SDK 1.x) that declares
// URL elicitation: the first call answers -32042 with the consent link; a person completes it in
// Chromium against a real authorization server (oidc-provider); the retried call reaches the
// upstream with that person's own token (audience and scope checked by the upstream).
import { describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import type { ConsentBrowser } from '../harness/consent-browser.ts';
import { auditRequests } from '../harness/gateway.ts';
import { KEYS, useConsentBed, type UserAuthBed } from '../harness/user-auth-bed.ts';

let bed: UserAuthBed;
let browser: ConsentBrowser;

useConsentBed({ audit: true }, (b) => ({ bed, browser } = b));

const client = (key: string): Promise<LegacyClient> =>
  connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${key}` }, capabilities: { elicitation: { form: {}, url: {} } } });

async function consentLink(c: LegacyClient, tool = 'protected__gatehouse_connect'): Promise<string> {
  const e = await c.callTool({ name: tool, arguments: {} }).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(McpError);
  expect((e as McpError).code).toBe(-32042);
  const elicitations = ((e as McpError).data as { elicitations: { mode: string; url: string; elicitationId: string }[] }).elicitations;
  expect(elicitations).toHaveLength(1);
  expect(elicitations[0]?.mode).toBe('url');
  expect(elicitations[0]?.url.startsWith(`${bed.publicUrl}/oauth/connect?ticket=`)).toBe(true);
  return elicitations[0]?.url as string;
}

describe('per-user authorization, 2025-11-25 client', () => {
  it('lists only the connect tool before consent, asks for consent by -32042, and runs the retried call as the user', async () => {
    const alice = await client(KEYS.alice);
    const before = await alice.listTools();
    expect(before.tools.map((t) => t.name)).toEqual(['protected__gatehouse_connect']);
    const link = await consentLink(alice);
    expect(bed.upstream.calls).toHaveLength(0);
    const person = await browser.person(KEYS.alice);
    expect(await person.consent(link, 'alice-at-upstream')).toContain('is connected for alice');
    const res = await alice.callTool({ name: 'protected__whoami', arguments: {} });
    expect(res.content).toEqual([{ type: 'text', text: 'alice-at-upstream' }]);
    const after = await alice.listTools();
    expect(after.tools.map((t) => t.name).sort()).toEqual(['protected__echo', 'protected__whoami']);
    await alice.close();
  }, 60_000);

  it('names the credential kind in audit records, never the token, and says why in /readyz', async () => {
    await expect.poll(() => auditRequests(bed.gw).filter((r) => r.name === 'protected__whoami').length).toBeGreaterThan(0);
    const calls = auditRequests(bed.gw).filter((r) => r.method === 'tools/call');
    const whoami = calls.find((r) => r.name === 'protected__whoami');
    expect(whoami?.credential).toBe('user');
    expect(whoami?.outcome).toBe('ok');
    const consent = calls.find((r) => r.name === 'protected__gatehouse_connect' && r.errorCode === -32042);
    expect(consent).toBeDefined();
    const ready = (await (await fetch(`${bed.publicUrl}/readyz`)).json()) as { upstreams: { name: string; state: string; userAuth?: { note: string } }[] };
    const up = ready.upstreams.find((u) => u.name === 'protected');
    expect(up?.state).toBe('up');
    expect(up?.userAuth?.note).toContain('reached as each calling user');
    expect(bed.gw.logs.some((l) => l.msg === 'upstream reached as each user')).toBe(true);
    const everything = JSON.stringify(auditRequests(bed.gw)) + JSON.stringify(bed.gw.logs);
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/);
  });
});
