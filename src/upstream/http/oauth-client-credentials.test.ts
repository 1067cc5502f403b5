import { describe, expect, it } from 'vitest';
import { err, ok, type Result } from '../../protocol/result.ts';
import { createMemoryLogger } from '../../telemetry/logger.ts';
import { ClientCredentialsToken } from './oauth-client-credentials.ts';
import type { IssuedToken } from './oauth-token-request.ts';

interface Harness {
  token: ClientCredentialsToken;
  clock: { now: number };
  requests: number;
  /** What the next token requests answer; the last entry repeats. */
  answers: Array<Result<IssuedToken, string>>;
  /** Resolves the pending token requests (requests wait for it when `manual` is set). */
  release(): void;
  lines: Record<string, unknown>[];
}

function harness(opts: { manual?: boolean; tokenUrl?: string } = {}): Harness {
  const { logger, lines } = createMemoryLogger();
  let waiting: (() => void)[] = [];
  const h: Harness = {
    clock: { now: 1_000_000 },
    requests: 0,
    answers: [],
    lines,
    release: () => {
      const w = waiting;
      waiting = [];
      for (const r of w) r();
    },
    token: undefined as unknown as ClientCredentialsToken,
  };
  h.token = new ClientCredentialsToken({
    upstream: 'weather',
    tokenUrl: opts.tokenUrl ?? 'https://auth.example/token',
    logger,
    now: () => h.clock.now,
    requestToken: async () => {
      h.requests += 1;
      const n = h.requests;
      if (opts.manual) await new Promise<void>((r) => waiting.push(r));
      const answer = h.answers.length > 1 ? h.answers.shift()! : h.answers[0];
      return answer ?? ok({ accessToken: `tok-${n}`, expiresInMs: 60_000 });
    },
  });
  return h;
}

const bearer = async (h: Harness): Promise<string> => {
  const r = await h.token.authorization();
  if (!r.ok) throw new Error(r.error.reason);
  return r.value;
};

describe('ClientCredentialsToken', () => {
  it('fetches one token and serves it from the cache until the refresh margin', async () => {
    const h = harness();
    h.answers = [ok({ accessToken: 'a', expiresInMs: 600_000 })];
    expect(await bearer(h)).toBe('Bearer a');
    h.clock.now += 569_000; // margin is min(30 s, 10 % of 600 s) = 30 s
    expect(await bearer(h)).toBe('Bearer a');
    expect(h.requests).toBe(1);
  });

  it('refreshes in the background inside the margin while the old token is still valid', async () => {
    const h = harness({ manual: true });
    h.answers = [ok({ accessToken: 'a', expiresInMs: 100_000 })];
    const first = h.token.authorization();
    h.release();
    await first;
    h.answers = [ok({ accessToken: 'b', expiresInMs: 100_000 })];
    h.clock.now += 95_000; // margin 10 s: stale, not expired
    expect(await bearer(h)).toBe('Bearer a');
    expect(h.requests).toBe(2);
    h.release();
    await new Promise((r) => setImmediate(r));
    expect(await bearer(h)).toBe('Bearer b');
    expect(h.requests).toBe(2);
  });

  it('waits for a new token once the old one has expired', async () => {
    const h = harness();
    h.answers = [ok({ accessToken: 'a', expiresInMs: 10_000 }), ok({ accessToken: 'b', expiresInMs: 10_000 })];
    expect(await bearer(h)).toBe('Bearer a');
    h.clock.now += 10_000;
    expect(await bearer(h)).toBe('Bearer b');
    expect(h.requests).toBe(2);
  });

  it('assumes an hour when the server gives no expires_in', async () => {
    const h = harness();
    h.answers = [ok({ accessToken: 'a', expiresInMs: undefined }), ok({ accessToken: 'b', expiresInMs: undefined })];
    await bearer(h);
    h.clock.now += 3_569_000;
    expect(await bearer(h)).toBe('Bearer a');
    h.clock.now += 30_500;
    expect(await bearer(h)).toBe('Bearer a'); // inside the margin: served while the next one comes
    await new Promise((r) => setImmediate(r));
    expect(await bearer(h)).toBe('Bearer b');
  });

  it('shares one token request among concurrent callers', async () => {
    const h = harness({ manual: true });
    const all = Promise.all(Array.from({ length: 20 }, () => h.token.authorization()));
    await new Promise((r) => setImmediate(r));
    h.release();
    const results = await all;
    expect(h.requests).toBe(1);
    expect(new Set(results.map((r) => (r.ok ? r.value : r.error.reason)))).toEqual(new Set(['Bearer tok-1']));
  });

  it('drops a token the upstream rejected and gets a new one, once for many rejections', async () => {
    const h = harness();
    const a = await bearer(h);
    h.clock.now += 5000;
    // Three requests saw the same 401: only the first drops the token, all may retry.
    expect([h.token.invalidate(a), h.token.invalidate(a), h.token.invalidate(a)]).toEqual([true, true, true]);
    const again = await Promise.all([bearer(h), bearer(h), bearer(h)]);
    expect(again).toEqual(['Bearer tok-2', 'Bearer tok-2', 'Bearer tok-2']);
    expect(h.requests).toBe(2);
  });

  it('keeps a token rejected within a second of issue, so a misconfigured upstream cannot drive the token endpoint', async () => {
    const h = harness();
    const a = await bearer(h);
    h.clock.now += 500;
    expect(h.token.invalidate(a)).toBe(false);
    expect(await bearer(h)).toBe(a);
    expect(h.requests).toBe(1);
  });

  it('backs off after a failed token request and fails fast in between, naming upstream and reason', async () => {
    const h = harness();
    h.answers = [err('the token endpoint refused the grant: invalid_client, HTTP 401')];
    const first = await h.token.authorization();
    expect(first).toEqual(err({
      kind: 'upstream_unavailable',
      upstream: 'weather',
      reason: 'cannot get an access token: the token endpoint refused the grant: invalid_client, HTTP 401',
    }));
    h.clock.now += 500;
    const fast = await h.token.authorization();
    expect(!fast.ok && fast.error.reason).toMatch(/invalid_client, HTTP 401; next attempt in 1 s$/);
    expect(h.requests).toBe(1);
    h.clock.now += 600;
    await h.token.authorization();
    expect(h.requests).toBe(2);
    // The delay doubles: 2 s now.
    h.clock.now += 1500;
    await h.token.authorization();
    expect(h.requests).toBe(2);
    h.clock.now += 600;
    h.answers = [ok({ accessToken: 'fine', expiresInMs: 60_000 })];
    expect(await bearer(h)).toBe('Bearer fine');
    expect(h.lines.filter((l) => l.level === 'warn')).toHaveLength(2);
  });

  it('logs the token URL it failed on without its query or userinfo', async () => {
    const h = harness({ tokenUrl: 'https://svc:pw@auth.example/token?tenant_key=s3cr3t' });
    h.answers = [err('the token endpoint answered HTTP 503')];
    await h.token.authorization();
    const warning = h.lines.find((l) => l.msg === 'cannot get an access token for the upstream');
    expect(warning).toMatchObject({ tokenUrl: 'https://auth.example/token' });
    expect(JSON.stringify(h.lines)).not.toMatch(/s3cr3t|svc:pw/);
  });

  it('keeps using a still-valid token when its refresh fails', async () => {
    const h = harness();
    h.answers = [ok({ accessToken: 'a', expiresInMs: 100_000 }), err('the token endpoint answered HTTP 503')];
    await bearer(h);
    h.clock.now += 95_000;
    expect(await bearer(h)).toBe('Bearer a');
    await new Promise((r) => setImmediate(r));
    expect(h.requests).toBe(2);
    // Backing off: no new request, the valid token still serves.
    expect(await bearer(h)).toBe('Bearer a');
    expect(h.requests).toBe(2);
    h.clock.now += 5000;
    const expired = await h.token.authorization();
    expect(expired.ok).toBe(false);
  });

  it('never logs the token', async () => {
    const h = harness();
    h.answers = [ok({ accessToken: 'very-secret-token', expiresInMs: 60_000 })];
    await bearer(h);
    h.clock.now += 2000;
    h.token.invalidate('Bearer very-secret-token');
    expect(JSON.stringify(h.lines)).not.toContain('very-secret-token');
  });
});
