// The standard-header half of param-headers.ts (MCP 2026-07-28, basic/transports/streamable-http (request headers)), kept apart from the
// Mcp-Param-* tests so that each test file stays one readable size.
import { describe, it, expect } from 'vitest';
import { buildStandardHeaders, checkStandardHeaders, type HeaderLookup } from './param-headers.ts';

const PASS = { ok: true, value: undefined };

/** A case-insensitive lookup, as the transport provides. */
function lookup(headers: Record<string, string>): HeaderLookup {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return (name) => lower.get(name.toLowerCase());
}

describe('checkStandardHeaders', () => {
  const body = { protocolVersion: '2026-07-28', method: 'tools/call', name: 'execute_sql' };
  const good = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'execute_sql' };

  it('accepts matching headers, whatever the header-name case and surrounding whitespace', () => {
    expect(checkStandardHeaders(body, lookup(good))).toEqual(PASS);
    const variant = { 'mcp-protocol-version': '2026-07-28', 'MCP-METHOD': 'tools/call', 'mcp-name': '  execute_sql ' };
    expect(checkStandardHeaders(body, lookup(variant))).toEqual(PASS);
  });

  it('rejects a missing or mismatched MCP-Protocol-Version', () => {
    const { 'MCP-Protocol-Version': _v, ...noVersion } = good;
    expect(checkStandardHeaders(body, lookup(noVersion))).toEqual({ ok: false, error: 'missing header MCP-Protocol-Version' });
    expect(checkStandardHeaders(body, lookup({ ...good, 'MCP-Protocol-Version': '2025-11-25' }))).toEqual({
      ok: false,
      error: "MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'",
    });
  });

  it('rejects a missing Mcp-Method and compares it case-sensitively', () => {
    const { 'Mcp-Method': _m, ...noMethod } = good;
    expect(checkStandardHeaders(body, lookup(noMethod))).toEqual({ ok: false, error: 'missing header Mcp-Method' });
    expect(checkStandardHeaders(body, lookup({ ...good, 'Mcp-Method': 'TOOLS/CALL' }))).toEqual({
      ok: false,
      error: "Mcp-Method header value 'TOOLS/CALL' does not match body value 'tools/call'",
    });
  });

  it('rejects a standard header with control characters', () => {
    expect(checkStandardHeaders(body, lookup({ ...good, 'Mcp-Method': 'tools/\u0000call' }))).toEqual({
      ok: false,
      error: 'Mcp-Method header: invalid characters (only printable ASCII 0x20-0x7E is allowed)',
    });
    expect(checkStandardHeaders(body, lookup({ ...good, 'Mcp-Name': 'execute\nsql' }))).toEqual({
      ok: false,
      error: 'Mcp-Name header: invalid characters (only printable ASCII 0x20-0x7E is allowed)',
    });
  });

  it('requires Mcp-Name for tools/call, resources/read and prompts/get', () => {
    const { 'Mcp-Name': _n, ...noName } = good;
    expect(checkStandardHeaders(body, lookup(noName))).toEqual({ ok: false, error: 'missing header Mcp-Name' });
    const read = { protocolVersion: '2026-07-28', method: 'resources/read', name: 'file:///projects/myapp/config.json' };
    expect(checkStandardHeaders(read, lookup({ ...noName, 'Mcp-Method': 'resources/read' }))).toEqual({ ok: false, error: 'missing header Mcp-Name' });
    const prompt = { protocolVersion: '2026-07-28', method: 'prompts/get', name: 'review' };
    expect(checkStandardHeaders(prompt, lookup({ ...noName, 'Mcp-Method': 'prompts/get', 'Mcp-Name': 'review' }))).toEqual(PASS);
  });

  it('reports the spec example mismatch message', () => {
    const bar = { ...body, name: 'bar' };
    expect(checkStandardHeaders(bar, lookup({ ...good, 'Mcp-Name': 'foo' }))).toEqual({
      ok: false,
      error: "Mcp-Name header value 'foo' does not match body value 'bar'",
    });
  });

  it('decodes a Base64 Mcp-Name before comparing', () => {
    const unicode = { ...body, name: '日本語' };
    expect(checkStandardHeaders(unicode, lookup({ ...good, 'Mcp-Name': '=?base64?5pel5pys6Kqe?=' }))).toEqual(PASS);
    expect(checkStandardHeaders(unicode, lookup({ ...good, 'Mcp-Name': '=?base64?5pel5pys?=' }))).toEqual({
      ok: false,
      error: "Mcp-Name header value '日本' does not match body value '日本語'",
    });
    expect(checkStandardHeaders(unicode, lookup({ ...good, 'Mcp-Name': '=?base64?5pel5py?=' }))).toEqual({
      ok: false,
      error: 'Mcp-Name header: invalid Base64: length is not a multiple of 4 (missing or extra padding)',
    });
  });

  it('treats a wrong-case sentinel in Mcp-Name as literal', () => {
    const literal = { ...body, name: '=?BASE64?5pel?=' };
    expect(checkStandardHeaders(literal, lookup({ ...good, 'Mcp-Name': '=?BASE64?5pel?=' }))).toEqual(PASS);
  });

  it('ignores Mcp-Name on methods that carry no name', () => {
    const list = { protocolVersion: '2026-07-28', method: 'tools/list' };
    expect(checkStandardHeaders(list, lookup({ ...good, 'Mcp-Method': 'tools/list', 'Mcp-Name': 'whatever' }))).toEqual(PASS);
  });

  it('rejects a name-bearing request whose body has no name', () => {
    const nameless = { protocolVersion: '2026-07-28', method: 'tools/call' };
    expect(checkStandardHeaders(nameless, lookup(good))).toEqual({ ok: false, error: 'body of tools/call has no name to compare with Mcp-Name' });
  });

  it('truncates long client values in messages', () => {
    const long = 'x'.repeat(500);
    const result = checkStandardHeaders(body, lookup({ ...good, 'Mcp-Name': long }));
    expect(result).toEqual({ ok: false, error: `Mcp-Name header value '${'x'.repeat(200)}…' does not match body value 'execute_sql'` });
  });
});

describe('buildStandardHeaders', () => {
  it('builds the spec example headers', () => {
    expect(buildStandardHeaders({ protocolVersion: '2026-07-28', method: 'tools/call', name: 'execute_sql' })).toEqual({
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'execute_sql',
    });
  });

  it('encodes a non-ASCII Mcp-Name and leaves it out when there is no name', () => {
    expect(buildStandardHeaders({ protocolVersion: '2026-07-28', method: 'prompts/get', name: 'Hello, 世界' })).toEqual({
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'prompts/get',
      'Mcp-Name': '=?base64?SGVsbG8sIOS4lueVjA==?=',
    });
    expect(buildStandardHeaders({ protocolVersion: '2026-07-28', method: 'tools/list' })).toEqual({
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/list',
    });
  });

  it('produces headers that checkStandardHeaders accepts', () => {
    const source = { protocolVersion: '2026-07-28', method: 'resources/read', name: 'file:///projects/my app/ç.json' };
    expect(checkStandardHeaders(source, lookup(buildStandardHeaders(source)))).toEqual(PASS);
  });
});
