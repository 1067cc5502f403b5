// A notification stream does not outlive the token that opened it: a listen stream opened
// with a JWT ends cleanly (its `complete` result, then the close) when the token expires, long
// before limits.streamMaxLifetime, and the audit trail says why it ended.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modernBody, modernHeaders, type TestGateway } from '../harness/gateway.ts';
import { jwtIdentityYaml, useJwtBed } from '../harness/jwt-bed.ts';
import { openSse } from '../harness/sse-messages.ts';
import { signToken, type SigningKey } from '../identity/jwt-fixtures.ts';

const RESOURCE = 'http://gatehouse.test/mcp';
const auditDir = join(mkdtempSync(join(tmpdir(), 'gatehouse-token-expiry-')), 'trail');

let key: SigningKey;
let gw: TestGateway;

useJwtBed((up) => `
${jwtIdentityYaml(RESOURCE, up)}
limits: { streamMaxLifetime: 1h }
audit: { dir: "${auditDir}" }
upstreams:
  - { name: up, url: "${up.upstream.url}" }
`, (bed) => ({ key, gw } = bed));

describe('stream lifetime and the token', () => {
  it('ends a listen stream when the JWT that opened it expires', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signToken(key, { aud: RESOURCE, iat: now, exp: now + 2, sub: 'short-lived' });
    const { response, sse } = await openSse(gw.url, {
      method: 'POST',
      headers: modernHeaders('subscriptions/listen', undefined, { authorization: `Bearer ${token}` }),
      body: JSON.stringify(modernBody('exp-1', 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
    });
    expect(response.status).toBe(200);
    await expect.poll(() => sse.ended(), { timeout: 10_000 }).toBe(true);
    expect(sse.messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 'exp-1', result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'exp-1' } } });
    // The event is written after the stream's end reaches the client: wait for it.
    const closed = () => readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.event === 'stream_closed');
    await expect.poll(() => closed().length).toBe(1);
    expect(closed()).toEqual([expect.objectContaining({ detail: expect.objectContaining({ stream: 'listen', subscriptionId: 'exp-1', reason: 'lifetime', principal: { subject: 'short-lived', method: 'jwt' } }) })]);
  });
});
