// The MCP messages the load generator sends, and the check applied to every reply (pure).
// A request is described declaratively (`WireRequest`) so it can cross the IPC boundary to
// the pinned load-generator process; each request gets a unique JSON-RPC id, and its reply
// must carry that id and the expected result, or the run is reported FAILED.
// Wire details: test/fixtures/SDK-NOTES.md and MCP 2026-07-28, basic/index/b (legacy: session header;
// modern: stateless POST with `_meta` and MCP-Protocol-Version / Mcp-Method / Mcp-Name).

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';

/** Extra request headers, e.g. the API key of a gateway with `identity` configured. */
type WithHeaders = { headers?: Readonly<Record<string, string>> };

export type WireRequest = WithHeaders &
  (
    | { kind: 'tools/call'; era: 'legacy'; sessionId: string; tool: string }
    | { kind: 'tools/call'; era: 'modern'; tool: string }
    | { kind: 'tools/list'; era: 'modern'; expectTools: number }
  );

export interface BuiltRequest {
  headers: Record<string, string>;
  body: string;
}

export function modernMeta(): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'gatehouse-bench', version: '0.1.0' },
  };
}

/** The echo argument for request `id`: unique, so a reply meant for another request fails. */
export function echoMessage(id: number): string {
  return `bench-${id}`;
}

export function buildRequest(req: WireRequest, id: number): BuiltRequest {
  const base = { 'content-type': 'application/json', accept: ACCEPT, ...req.headers };
  if (req.kind === 'tools/list') {
    return {
      headers: { ...base, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: modernMeta() } }),
    };
  }
  const params: Record<string, unknown> = { name: req.tool, arguments: { message: echoMessage(id) } };
  if (req.era === 'legacy') {
    return {
      headers: { ...base, 'mcp-session-id': req.sessionId, 'mcp-protocol-version': LEGACY_VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    };
  }
  params._meta = modernMeta();
  return {
    headers: { ...base, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': req.tool },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
  };
}

/** The JSON-RPC message of a reply: a plain JSON body, or the last `data:` event of an SSE body. */
export function replyMessage(body: string): unknown {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed);
  let last: string | undefined;
  for (const line of body.split('\n')) {
    if (line.startsWith('data:')) last = line.slice(5).trim();
  }
  if (last === undefined) throw new Error('no JSON body and no SSE data line');
  return JSON.parse(last);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why this reply is wrong for request `id`, or undefined when it is right. */
export function checkReply(req: WireRequest, id: number, status: number, body: string): string | undefined {
  if (status < 200 || status > 299) return `HTTP ${status}: ${body.slice(0, 200)}`;
  let msg: unknown;
  try {
    msg = replyMessage(body);
  } catch (e) {
    return `unparseable body (${(e as Error).message}): ${body.slice(0, 200)}`;
  }
  if (!isObject(msg)) return 'reply is not a JSON object';
  if (msg.id !== id) return `id ${JSON.stringify(msg.id)} != ${id}`;
  if (!isObject(msg.result)) return `no result: ${JSON.stringify(msg.error ?? msg).slice(0, 200)}`;
  const result = msg.result;
  if (req.kind === 'tools/list') {
    const tools = result.tools;
    if (!Array.isArray(tools)) return 'tools/list result has no tools array';
    if (tools.length !== req.expectTools) return `tools/list gave ${tools.length} tools, expected ${req.expectTools}`;
    if (result.nextCursor !== undefined) return 'tools/list was paginated; raise limits.pageSize';
    return undefined;
  }
  const content = Array.isArray(result.content) ? result.content[0] : undefined;
  const text = isObject(content) ? content.text : undefined;
  // server-everything answers "Echo: <message>", the modern fixture the bare message.
  const expected = echoMessage(id);
  if (text !== expected && text !== `Echo: ${expected}`) return `echo text ${JSON.stringify(text)} for id ${id}`;
  if (result.isError === true) return 'tool result isError';
  return undefined;
}
