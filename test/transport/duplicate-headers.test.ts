// A header that may come once, sent twice, is refused before anything reads either copy:
// Node keeps the first Authorization, Host or Content-Type and joins other repeats, so two
// of them let a proxy in front and the gateway each judge a different value (RFC 9110
// section 5.3). Raw bytes on a socket, since HTTP clients will not send such requests; a
// real gateway with API keys and an audit trail in front of an SDK 2.x upstream.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startModernUpstream } from '../fixtures/modern-upstream.ts';
import { modernBody, type TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { rawExchange } from './raw-http.ts';

const KEY = 'dup-header-key-0123456789abcdefghijkl';
const OTHER = 'dup-header-other-0123456789abcdefghij';
const sha = (k: string): string => createHash('sha256').update(k).digest('hex');

let gw: TestGateway;
const auditDir = mkdtempSync(join(tmpdir(), 'gatehouse-dup-headers-'));

useGatewayBed({
  upstream: () => startModernUpstream(),
  config: (upstream) => `
identity:
  resource: http://gatehouse.test/mcp
  apiKeys:
    - { id: ok, sha256: "${sha(KEY)}", subject: ops-bot }
    - { id: other, sha256: "${sha(OTHER)}", subject: other-bot }
audit: { dir: "${auditDir}" }
upstreams:
  - { name: up, url: "${upstream.url}" }
`,
  ready: (bed) => ({ gw } = bed),
});

const BODY = JSON.stringify(modernBody(1, 'tools/list'));

/** A tools/list POST as raw header lines; `extra` lines go last, after the usual ones. */
function request(lines: string[]): string {
  const base = [
    'host: 127.0.0.1',
    'content-type: application/json',
    'accept: application/json, text/event-stream',
    'mcp-protocol-version: 2026-07-28',
    'mcp-method: tools/list',
    `authorization: Bearer ${KEY}`,
    'connection: close',
    `content-length: ${Buffer.byteLength(BODY)}`,
  ];
  const names = new Set(lines.map((l) => l.slice(0, l.indexOf(':')).toLowerCase()));
  // A line given twice in `lines` replaces the base one: the case is about the repeat.
  const kept = base.filter((l) => !names.has(l.slice(0, l.indexOf(':')).toLowerCase()));
  return `POST /mcp HTTP/1.1\r\n${[...kept, ...lines].join('\r\n')}\r\n\r\n${BODY}`;
}

const auditedRefusals = (): number =>
  readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.type === 'request' && r.errorCode === -32600).length;

describe('a request that repeats a header that may come once', () => {
  it('answers as usual when every such header comes once', async () => {
    const res = await rawExchange(gw.port, request([]));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).result.tools.length).toBeGreaterThan(0);
  });

  it.each([
    ['Authorization (a valid key first, another second)', [`authorization: Bearer ${KEY}`, `Authorization: Bearer ${OTHER}`], 'Authorization'],
    ['Authorization, the same value twice', [`authorization: Bearer ${KEY}`, `AUTHORIZATION: Bearer ${KEY}`], 'AUTHORIZATION'],
    ['X-API-Key', [`x-api-key: ${KEY}`, `x-api-key: ${OTHER}`], 'x-api-key'],
    ['Host', ['host: 127.0.0.1', 'host: evil.example'], 'host'],
    ['Content-Type', ['content-type: application/json', 'content-type: text/plain'], 'content-type'],
    ['Mcp-Protocol-Version', ['mcp-protocol-version: 2026-07-28', 'mcp-protocol-version: 2025-11-25'], 'mcp-protocol-version'],
    ['Mcp-Method', ['mcp-method: tools/list', 'mcp-method: tools/call'], 'mcp-method'],
    ['Mcp-Name', ['mcp-name: a', 'mcp-name: b'], 'mcp-name'],
    ['Mcp-Session-Id', ['mcp-session-id: a', 'mcp-session-id: b'], 'mcp-session-id'],
    ['an Mcp-Param-* header', ['mcp-param-region: eu', 'Mcp-Param-Region: us'], 'Mcp-Param-Region'],
  ])('refuses %s with 400 / -32600 naming it, audited', async (_what, lines, named) => {
    const before = auditedRefusals();
    const res = await rawExchange(gw.port, request(lines));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: `Invalid request: the ${named} header must appear once` } });
    await expect.poll(auditedRefusals).toBe(before + 1);
  });
});
