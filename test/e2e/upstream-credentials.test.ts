// Each upstream gets the gateway's own credentials, never the client's (MCP 2026-07-28, basic/authorization 6):
// an OAuth client-credentials token from a real token endpoint (cached, refreshed after
// expiry, replaced once on a 401), and headers read from files that rotate without a restart.
// The upstreams sit behind a real bearer-checking proxy in front of the SDK fixtures.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBearerGuard, type BearerGuard } from '../fixtures/bearer-guard.ts';
import { startLegacyUpstream, type LegacyUpstream } from '../fixtures/legacy-upstream.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { startTokenServer, type TokenServer } from '../fixtures/oauth-token-server.ts';
import { modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { useMovableClock } from '../harness/movable-clock.ts';

const CLIENT_KEY = 'client-own-api-key-0123456789abcdef';
const SECRET = 'weather-client-secret-Zq9';
// Token ages, expiries and the header files' re-read interval pass on this clock, not in sleeps.
const clock = useMovableClock();

let tokens: TokenServer;
const valid = new Set<string>();
const fileTokens = new Set<string>(['file-1']);
let weather: ModernUpstream, short: ModernUpstream, filesUp: ModernUpstream, legacy: LegacyUpstream;
let weatherGuard: BearerGuard, shortGuard: BearerGuard, filesGuard: BearerGuard, legacyGuard: BearerGuard;
let gwA: TestGateway, gwB: TestGateway;
let dir: string;
let id = 1;

const bearerAccepted = (set: Set<string>) => (h: string | undefined) => h !== undefined && set.has(h.replace(/^Bearer /, ''));
const issuedTo = (clientId: string) => tokens.requests.filter((r) => r.clientId === clientId && r.issued !== undefined).map((r) => r.issued!);

function call(gw: TestGateway, tool: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  // Gateway A requires the client's own API key; it must never travel further.
  if (gw === gwA) headers = { authorization: `Bearer ${CLIENT_KEY}`, ...headers };
  return postJson(gw.url, modernBody(id++, 'tools/call', { name: tool, arguments: args }), modernHeaders('tools/call', tool, headers));
}

beforeAll(async () => {
  tokens = await startTokenServer({
    gatehouse: { secret: SECRET, expiresIn: 3600 },
    'short-lived': { secret: 'short secret:+/', expiresIn: 2 },
    'legacy-client': { secret: 'ls', expiresIn: 3600 },
  });
  tokens.onIssue((t) => valid.add(t));
  [weather, short, filesUp, legacy] = await Promise.all([
    startModernUpstream({ name: 'weather' }), startModernUpstream({ name: 'short' }), startModernUpstream({ name: 'files' }), startLegacyUpstream({ name: 'legacy' }),
  ]);
  [weatherGuard, shortGuard, filesGuard, legacyGuard] = await Promise.all([
    startBearerGuard(weather.url, bearerAccepted(valid)),
    startBearerGuard(short.url, bearerAccepted(valid)),
    startBearerGuard(filesUp.url, bearerAccepted(fileTokens)),
    startBearerGuard(legacy.url, bearerAccepted(valid)),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-upcreds-'));
  writeFileSync(join(dir, 'files-token'), 'file-1\n');
  writeFileSync(join(dir, 'short-secret'), 'short secret:+/\n');
  const sha = createHash('sha256').update(CLIENT_KEY).digest('hex');
  gwA = await startTestGateway(`
identity:
  resource: http://gatehouse.test/mcp
  apiKeys: [{ id: ci, sha256: "${sha}", subject: ci }]
upstreams:
  - name: weather
    url: ${weatherGuard.url}
    auth:
      type: client_credentials
      tokenUrl: ${tokens.url}
      clientId: gatehouse
      clientSecret: "\${WEATHER_CLIENT_SECRET}"
      scope: [weather:read, weather:write]
`, { ...process.env, WEATHER_CLIENT_SECRET: SECRET });
  const authOf = (clientId: string, secret: string) =>
    `{ type: client_credentials, tokenUrl: "${tokens.url}", clientId: ${clientId}, ${secret} }`;
  gwB = await startTestGateway(`
upstreams:
  - { name: short, url: "${shortGuard.url}", auth: { type: client_credentials, tokenUrl: "${tokens.url}", clientId: short-lived, clientSecretFile: ${join(dir, 'short-secret')}, clientAuth: client_secret_post, resource: "https://short.example/mcp" } }
  - { name: legacy, url: "${legacyGuard.url}", auth: ${authOf('legacy-client', 'clientSecret: ls')} }
  - name: files
    url: ${filesGuard.url}
    headers: { X-Static: kept, Authorization: { file: ${join(dir, 'files-token')}, prefix: "Bearer " } }
  - { name: locked, url: "${weather.url}", auth: ${authOf('locked-client', 'clientSecret: wrong-secret')} }
`);
  await gwA.waitUp();
  // short, legacy and files up (locked never is).
  await vi.waitUntil(() => gwB.upstreams.filter((u) => u.name !== 'locked').every((u) => u.status().state === 'up'), { timeout: 10_000, interval: 20 });
});

afterAll(async () => {
  await Promise.all([gwA?.close(), gwB?.close()]);
  await Promise.all([weatherGuard, shortGuard, filesGuard, legacyGuard].map((g) => g?.close()));
  await Promise.all([weather?.close(), short?.close(), filesUp?.close(), legacy?.close(), tokens?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('OAuth client credentials towards an upstream', () => {
  it('gets one token (Basic client auth, scope, resource = the upstream URL) and sends it on every request, probe and stream included', async () => {
    const calls = await Promise.all(Array.from({ length: 12 }, (_, i) => call(gwA, 'weather__echo', { message: `m${i}` })));
    expect(calls.map((c) => c.json?.result?.structuredContent?.message)).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`));
    expect(tokens.requests.filter((r) => r.clientId === 'gatehouse' && r.issued)).toEqual([
      { clientId: 'gatehouse', via: 'basic', issued: 'gatehouse-1', form: { grant_type: 'client_credentials', scope: 'weather:read weather:write', resource: weatherGuard.url } },
    ]);
    const methods = new Set(weather.received.map((r) => (r.body as { method?: string } | undefined)?.method));
    expect(methods).toContain('server/discover');
    expect(methods).toContain('subscriptions/listen');
    expect(new Set(weather.received.map((r) => r.headers.authorization))).toEqual(new Set(['Bearer gatehouse-1']));
  });

  it('never lets the client\'s own credentials reach an upstream', async () => {
    await call(gwB, 'files__echo', { message: 'x' }, { authorization: 'Bearer client-token-for-the-gateway' });
    const everything = [weather, short, filesUp, legacy].flatMap((u) => u.received.map((r) => JSON.stringify(r.headers)));
    expect(everything.join('\n')).not.toContain(CLIENT_KEY);
    expect(everything.join('\n')).not.toContain('client-token-for-the-gateway');
  });

  it('answers an upstream 401 by getting a fresh token and retrying the call once', async () => {
    clock.advance(1100); // a token younger than a second is not replaced on a 401
    valid.delete('gatehouse-1');
    const rejectedBefore = weatherGuard.rejected;
    const r = await call(gwA, 'weather__echo', { message: 'after revoke' });
    expect(r.json.result.structuredContent).toEqual({ message: 'after revoke' });
    expect(issuedTo('gatehouse')).toEqual(['gatehouse-1', 'gatehouse-2']);
    expect(weatherGuard.rejected - rejectedBefore).toBeGreaterThanOrEqual(1);
    expect(weather.received.at(-1)?.headers.authorization).toBe('Bearer gatehouse-2');
  });

  it('refreshes the token after expires_in, without waiting for a 401 (client_secret_post, secret from a file, fixed resource)', async () => {
    expect(tokens.requests.find((r) => r.clientId === 'short-lived')).toMatchObject({
      via: 'post', form: { grant_type: 'client_credentials', client_id: 'short-lived', resource: 'https://short.example/mcp' },
    });
    expect((await call(gwB, 'short__echo', { message: 'a' })).json.result).toBeDefined();
    const before = issuedTo('short-lived').length;
    const rejectedBefore = shortGuard.rejected;
    clock.advance(2100);
    expect((await call(gwB, 'short__echo', { message: 'b' })).json.result.structuredContent).toEqual({ message: 'b' });
    const issued = issuedTo('short-lived');
    expect(issued.length).toBeGreaterThan(before);
    expect(short.received.at(-1)?.headers.authorization).toBe(`Bearer ${issued.at(-1)}`);
    expect(shortGuard.rejected).toBe(rejectedBefore);
  });

  it('authenticates a legacy upstream too: initialize, its GET stream and calls carry the token', async () => {
    expect((await call(gwB, 'legacy__echo', { message: 'old' })).json.result).toBeDefined();
    const kinds = legacy.received.map((r) => `${r.method} ${(r.body as { method?: string } | undefined)?.method ?? ''}`.trim());
    expect(kinds).toEqual(expect.arrayContaining(['POST initialize', 'POST notifications/initialized', 'GET', 'POST tools/call']));
    const issued = issuedTo('legacy-client');
    expect(issued).toHaveLength(1);
    expect(new Set(legacy.received.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${issued[0]}`]));
  });

  it('reports a failing token endpoint as the upstream being unavailable, naming upstream and OAuth error, never the secret', async () => {
    const locked = gwB.upstreams.find((u) => u.name === 'locked')!.status();
    expect(locked).toMatchObject({ state: 'down' });
    // Its re-probes run on timers: caught between two attempts, it also says when the next is.
    expect(locked.lastError).toMatch(/^cannot get an access token: the token endpoint refused the grant: invalid_client \(client authentication failed\), HTTP 401(; next attempt in \d+ s)?$/);

    clock.advance(1100);
    tokens.clients.gatehouse!.refuse = true;
    valid.delete('gatehouse-2');
    const r = await call(gwA, 'weather__echo', { message: 'no token' });
    expect(r.json.error.message).toBe(
      'Upstream "weather" is unavailable: cannot get an access token: the token endpoint refused the grant: invalid_client (client authentication failed), HTTP 401',
    );
    expect(r.json.error.data).toEqual({ upstream: 'weather' });
    // Backing off: the next call fails fast without another token request.
    const ofGatehouse = () => tokens.requests.filter((t) => t.clientId === 'gatehouse').length;
    const requestsBefore = ofGatehouse();
    const again = await call(gwA, 'weather__echo', { message: 'still no token' });
    expect(again.json.error.message).toMatch(/invalid_client .*; next attempt in \d+ s$/);
    expect(ofGatehouse()).toBe(requestsBefore);
    const logs = JSON.stringify([...gwA.logs, ...gwB.logs]);
    for (const secret of [SECRET, 'wrong-secret', 'short secret', ...tokens.requests.flatMap((t) => t.issued ?? [])]) expect(logs).not.toContain(secret);
  });
});

describe('headers read from files', () => {
  it('sends the file\'s value with its prefix, next to static headers', async () => {
    expect((await call(gwB, 'files__echo', { message: 'f1' })).json.result.structuredContent).toEqual({ message: 'f1' });
    expect(filesUp.received.at(-1)?.headers).toMatchObject({ authorization: 'Bearer file-1', 'x-static': 'kept' });
  });

  it('picks up a rotated file without a restart', async () => {
    fileTokens.add('file-2');
    writeFileSync(join(dir, 'files-token'), 'file-2\n');
    clock.advance(1100);
    expect((await call(gwB, 'files__echo', { message: 'f2' })).json.result).toBeDefined();
    expect(filesUp.received.at(-1)?.headers.authorization).toBe('Bearer file-2');
  });

  it('looks at the file again at once when the upstream answers 401, and retries with the new value', async () => {
    fileTokens.clear();
    fileTokens.add('file-3');
    writeFileSync(join(dir, 'files-token'), 'file-3\n');
    const rejectedBefore = filesGuard.rejected;
    expect((await call(gwB, 'files__echo', { message: 'f3' })).json.result.structuredContent).toEqual({ message: 'f3' });
    expect(filesGuard.rejected).toBe(rejectedBefore + 1);
    expect(filesUp.received.at(-1)?.headers.authorization).toBe('Bearer file-3');
  });
});
