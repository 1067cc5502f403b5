// JSON-RPC ids are echoed exactly or refused, never altered: an integer id beyond ±(2^53 − 1)
// is rounded by any JSON parser, so an answer would carry an id the client never sent. Those
// are refused (400, -32600, saying to send the id as a string); the largest exact integer and
// a string of any digits come back as sent. The same for a progress token, which returns in
// every progress notification. Raw HTTP, so that the digits on the wire are what is checked.
import { describe, expect, it } from 'vitest';
import { startModernUpstream } from '../fixtures/modern-upstream.ts';
import type { TestGateway } from '../harness/gateway.ts';
import { useGatewayBed } from '../harness/gateway-bed.ts';
import { rawExchange } from './raw-http.ts';

let gw: TestGateway;

useGatewayBed({
  upstream: () => startModernUpstream(),
  config: (upstream) => `
upstreams:
  - { name: up, url: "${upstream.url}" }
`,
  ready: (bed) => ({ gw } = bed),
});

const META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}';

/** A tools/list POST whose id (and progress token) are written as raw JSON text. */
function post(idText: string, progressTokenText?: string): Promise<{ status: number; body: string }> {
  const meta = progressTokenText === undefined ? `${META}}` : `${META},"progressToken":${progressTokenText}}`;
  const body = `{"jsonrpc":"2.0","id":${idText},"method":"tools/list","params":{${meta}}}`;
  const head = [
    'POST /mcp HTTP/1.1',
    'host: 127.0.0.1',
    'content-type: application/json',
    'accept: application/json, text/event-stream',
    'mcp-protocol-version: 2026-07-28',
    'mcp-method: tools/list',
    'connection: close',
    `content-length: ${Buffer.byteLength(body)}`,
  ].join('\r\n');
  return rawExchange(gw.port, `${head}\r\n\r\n${body}`);
}

describe('JSON-RPC ids on the wire', () => {
  it.each(['9007199254740993', '18446744073709551616', '-9007199254740993', '1e300'])('refuses the integer id %s, which cannot be kept exact, with 400 / -32600', async (id) => {
    const res = await post(id);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid request: "id" is an integer beyond ±(2^53 − 1), which cannot be kept exact; send it as a string' },
    });
  });

  it.each(['9007199254740991', '-9007199254740991', '"9007199254740993"', '"18446744073709551616"'])('answers with the id %s exactly as sent', async (id) => {
    const res = await post(id);
    expect(res.status).toBe(200);
    expect(res.body.startsWith(`{"jsonrpc":"2.0","id":${id},"result":`)).toBe(true);
  });

  it('refuses an integer progress token beyond ±(2^53 − 1) the same way, answering with the request id', async () => {
    const res = await post('7', '9007199254740993');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'Invalid request: "_meta.progressToken" is an integer beyond ±(2^53 − 1), which cannot be kept exact; send it as a string' },
    });
  });
});
