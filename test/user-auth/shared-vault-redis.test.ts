// Two gateway replicas sharing one Redis token store (a real redis-server): a user who
// consented through one is served by the other with their own token; a client registered
// dynamically (RFC 7591) by one is the client the other uses; and a sealed record copied into
// another user's slot in Redis does not open there (the record is bound to its principal and
// upstream), so that user is asked for consent instead of running with someone else's token.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectLegacyClient, type LegacyClient } from '../fixtures/clients.ts';
import { launchConsentBrowser, type ConsentBrowser } from '../harness/consent-browser.ts';
import { startRedis, type TestRedis } from '../harness/redis.ts';
import { freePort } from '../harness/free-port.ts';
import { KEYS, startUserAuthBed, type UserAuthBed } from '../harness/user-auth-bed.ts';
import { killStarted, runCliToEnd } from '../harness/cli-process.ts';

const PREFIX = 'gh-test:user-tokens:';
let redis: TestRedis;
let one: UserAuthBed;
let two: UserAuthBed;
let browser: ConsentBrowser;
let direct: Redis;

beforeAll(async () => {
  [redis, browser] = await Promise.all([startRedis(), launchConsentBrowser()]);
  direct = new Redis(redis.url);
  const userAuth = `store: { kind: redis, redisUrl: "${redis.url}", prefix: "${PREFIX}" }`;
  // No clientId: the authorization server offers dynamic registration, which replica one does.
  one = await startUserAuthBed({ userAuth, auth: '' });
  two = await startUserAuthBed({ userAuth, auth: '', shared: { upstream: one.upstream, port: await freePort() } });
  await Promise.all([one.gw.waitUp(), two.gw.waitUp()]);
}, 60_000);

afterAll(async () => {
  killStarted();
  direct?.disconnect();
  await browser?.close();
  await two?.close();
  await one?.close();
  await redis?.stop();
});

const legacy = (bed: UserAuthBed, key: string): Promise<LegacyClient> =>
  connectLegacyClient(bed.gw.url, { headers: { authorization: `Bearer ${key}` }, capabilities: { elicitation: { url: {} } } });

const whoami = async (c: LegacyClient): Promise<unknown> =>
  c.callTool({ name: 'protected__whoami', arguments: {} }).then(
    (r) => (r.content as { text: string }[])[0]?.text,
    (e: unknown) => e,
  );

describe('a token store shared by replicas in Redis', () => {
  it('serves a user through replica two after consent through replica one, with a dynamically registered client', async () => {
    const a1 = await legacy(one, KEYS.alice);
    const e = (await a1.callTool({ name: 'protected__gatehouse_connect', arguments: {} }).catch((x: unknown) => x)) as McpError;
    const link = (e.data as { elicitations: { url: string }[] }).elicitations[0]?.url as string;
    expect(await (await browser.person(KEYS.alice)).consent(link, 'alice-at-upstream')).toContain('is connected');
    const a2 = await legacy(two, KEYS.alice);
    expect(await whoami(a2)).toBe('alice-at-upstream');
    expect(await whoami(a1)).toBe('alice-at-upstream');
    const clients = await direct.keys(`${PREFIX}client:*`);
    expect(clients).toHaveLength(1);
    expect(await direct.get(clients[0] as string)).not.toContain('alice');
    await a1.close();
    await a2.close();
  }, 90_000);

  it("does not open a user's sealed record moved into another user's slot", async () => {
    const slot = (authContext: string): string => `${PREFIX}t:protected:${createHash('sha256').update(authContext).digest('hex')}`;
    const sealed = await direct.hget(slot('key:alice'), 'sealed');
    expect(sealed).toMatch(/^gh1\./);
    expect(sealed).not.toContain('alice-at-upstream');
    await direct.hset(slot('key:bob'), { sealed, listing: JSON.stringify({ principal: 'key:bob', upstream: 'protected', expiresAt: 0, obtainedAt: 0, refreshable: true }) });
    const b2 = await legacy(two, KEYS.bob);
    const answer = await whoami(b2);
    expect(answer).toBeInstanceOf(McpError);
    expect((answer as McpError).code).toBe(-32042);
    expect(one.upstream.calls.filter((c) => c.sub !== 'alice-at-upstream')).toEqual([]);
    await b2.close();
  }, 60_000);

  it('lists and revokes a connection from the command line, never printing a token', async () => {
    const listed = await runCliToEnd(['user-tokens', 'list', '--config', one.gw.config.file]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^protected\tkey:alice\texpires \S+\trefreshable\tmcp:tools$/m);
    const sealed = (await direct.hget(`${PREFIX}t:protected:${createHash('sha256').update('key:alice').digest('hex')}`, 'sealed')) as string;
    expect(listed.stdout).not.toContain(sealed.slice(4, 40));
    const revoked = await runCliToEnd(['user-tokens', 'revoke', '--config', one.gw.config.file, '--upstream', 'protected', '--principal', 'key:alice']);
    expect(revoked.code).toBe(0);
    const a2 = await legacy(two, KEYS.alice);
    expect(((await whoami(a2)) as McpError).code).toBe(-32042);
    await a2.close();
    const again = await runCliToEnd(['user-tokens', 'revoke', '--config', one.gw.config.file, '--upstream', 'protected', '--principal', 'key:alice']);
    expect(again.code).toBe(1);
  }, 60_000);

  it('refuses to manage an in-memory store from the command line', async () => {
    const bed = await startUserAuthBed({ shared: { upstream: one.upstream, port: await freePort() } });
    const r = await runCliToEnd(['user-tokens', 'list', '--config', bed.gw.config.file]);
    await bed.close();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('userAuth.store is memory');
  }, 60_000);
});
