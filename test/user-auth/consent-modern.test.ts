// Per-user upstream authorization with a 2026-07-28 client (SDK 2.x) that declares URL
// elicitation: the call answers `input_required` with a URL-mode `elicitation/create`; the
// client's handler has a person complete the consent in Chromium and accepts; the SDK's retry
// goes through. Then two users at once, one per era, never see each other's token (the bug
// where user A's call ran with user B's token): every call reaches the upstream with its own
// caller's token, and each caller's list is their own.
import { afterAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient, type LegacyClient, type ModernClient } from '../fixtures/clients.ts';
import type { ConsentBrowser } from '../harness/consent-browser.ts';
import { KEYS, useConsentBed, type UserAuthBed } from '../harness/user-auth-bed.ts';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { modernBody, modernHeaders, postJson } from '../harness/gateway.ts';

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(JSON.parse(readFileSync(new URL('../spec/2026-07-28/schema.json', import.meta.url), 'utf8')), 'modern');

let bed: UserAuthBed;
let browser: ConsentBrowser;
let bob: ModernClient;
let alice: LegacyClient;
const asked: { mode: string; url: string; message: string }[] = [];

useConsentBed({}, (b) => ({ bed, browser } = b));

afterAll(async () => {
  await bob?.close();
  await alice?.close();
});

const text = (r: unknown): string => (((r as { content: unknown }).content as { text: string }[])[0] as { text: string }).text;

describe('per-user authorization, 2026-07-28 client', () => {
  it('asks by input_required with a URL elicitation, and the retry after consent goes through', async () => {
    bob = await connectModernClient(bed.gw.url, { headers: { authorization: `Bearer ${KEYS.bob}` }, capabilities: { elicitation: { url: {} } } });
    const person = await browser.person(KEYS.bob);
    bob.setRequestHandler('elicitation/create', async (req) => {
      const params = req.params as unknown as { mode: string; url: string; message: string };
      asked.push(params);
      await person.consent(params.url, 'bob-at-upstream');
      return { action: 'accept' };
    });
    expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(['protected__gatehouse_connect']);
    const connected = await bob.callTool({ name: 'protected__gatehouse_connect', arguments: {} });
    expect(text(connected)).toContain('is connected');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.mode).toBe('url');
    expect(asked[0]?.url.startsWith(`${bed.publicUrl}/oauth/connect?ticket=`)).toBe(true);
    expect(text(await bob.callTool({ name: 'protected__whoami', arguments: {} }))).toBe('bob-at-upstream');
    expect((await bob.listTools()).tools.map((t) => t.name).sort()).toEqual(['protected__echo', 'protected__whoami']);
  }, 90_000);

  it('answers a raw 2026-07-28 call with an InputRequiredResult valid for that revision', async () => {
    const res = await postJson(
      bed.gw.url,
      modernBody(7, 'tools/call', { name: 'protected__gatehouse_connect', arguments: {} }, { elicitation: { url: {} } }),
      { ...modernHeaders('tools/call', 'protected__gatehouse_connect'), authorization: `Bearer ${KEYS.alice}` },
    );
    expect(res.status).toBe(200);
    const validate = ajv.getSchema('modern#/$defs/InputRequiredResult');
    expect(validate?.(res.json.result) ? [] : validate?.errors).toEqual([]);
    const asked = res.json.result.inputRequests.gatehouse_user_consent;
    expect(asked.method).toBe('elicitation/create');
    const params = ajv.getSchema('modern#/$defs/ElicitRequestURLParams');
    expect(params?.(asked.params) ? [] : params?.errors).toEqual([]);
  });

  it('gives a client without URL elicitation the consent link in a -31004 error', async () => {
    const plain = await connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${KEYS.alice}` } });
    const e = await plain.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(-31004);
    expect(((e as McpError).data as { url: string; upstream: string }).upstream).toBe('protected');
    expect(((e as McpError).data as { url: string }).url.startsWith(`${bed.publicUrl}/oauth/connect?ticket=`)).toBe(true);
    await plain.close();
  });

  it('runs concurrent calls of two users each with their own token', async () => {
    alice = await connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${KEYS.alice}` }, capabilities: { elicitation: { url: {} } } });
    // withoutConsent: show: bob's list (public, as the upstream said nothing else) stands in for hers.
    expect((await alice.listTools()).tools.map((t) => t.name).sort()).toEqual(['protected__echo', 'protected__gatehouse_connect', 'protected__whoami']);
    const e = (await alice.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).catch((x: unknown) => x)) as McpError;
    const link = (e.data as { elicitations: { url: string }[] }).elicitations[0]?.url as string;
    await (await browser.person(KEYS.alice)).consent(link, 'alice-at-upstream');
    bed.upstream.calls.length = 0;
    const rounds = 10;
    const results = await Promise.all(
      Array.from({ length: rounds }, (_, i) =>
        i % 2 === 0
          ? alice.callTool({ name: 'protected__whoami', arguments: {} }).then((r) => ['alice', text(r)])
          : bob.callTool({ name: 'protected__whoami', arguments: {} }).then((r) => ['bob', text(r)]),
      ),
    );
    for (const [who, answer] of results) expect(answer).toBe(`${who}-at-upstream`);
    expect(bed.upstream.calls.filter((c) => c.sub === 'alice-at-upstream')).toHaveLength(rounds / 2);
    expect(bed.upstream.calls.filter((c) => c.sub === 'bob-at-upstream')).toHaveLength(rounds / 2);
  }, 90_000);
});
