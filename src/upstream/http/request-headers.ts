// The HTTP headers of the gateway's requests to one upstream: configured static headers, then
// framing (Content-Type, Accept, MCP 2026-07-28, basic/transports/streamable-http) and the era's Mcp-* headers (MCP 2026-07-28, basic/transports/streamable-http (request headers); legacy:
// MCP-Protocol-Version after initialize, Mcp-Session-Id), which configured headers can never
// override (issue 3). Per era and method these change only with the legacy session, so each
// set is built once and shared until then; per-call headers (Mcp-Name, Mcp-Param-*, trace
// context) go on a copy. Credentials are added by authorized-exchange.ts.
import { LEGACY_VERSION, MODERN_VERSION, type Era } from '../../protocol/versions.ts';
import type { JsonObject } from '../../protocol/message.ts';
import { encodeHeaderValue } from '../../headers/header-value.ts';
import { mcpNameOf } from '../../headers/param-headers.ts';

const RESERVED_HEADER = /^(mcp-|host$|content-length$|content-type$|accept$|connection$|transfer-encoding$)/i;
const ACCEPT_BOTH = 'application/json, text/event-stream';
/** Methods come from the gateway's own method table, so this is a guard, not a limit in use. */
const MAX_SETS = 64;

export class RequestHeaders {
  private readonly configured: Record<string, string> = {};
  private readonly sets = new Map<string, Readonly<Record<string, string>>>();
  private sessionId: string | undefined;
  private legacyVersion = LEGACY_VERSION;

  constructor(configured: Readonly<Record<string, string>>) {
    for (const [k, v] of Object.entries(configured)) {
      if (!RESERVED_HEADER.test(k)) this.configured[k.toLowerCase()] = v;
    }
  }

  /** The legacy session the next requests belong to (undefined: none, or a stateless server). */
  setSession(sessionId: string | undefined, legacyVersion: string = LEGACY_VERSION): void {
    if (sessionId === this.sessionId && legacyVersion === this.legacyVersion) return;
    this.sessionId = sessionId;
    this.legacyVersion = legacyVersion;
    this.sets.clear();
  }

  /** The shared set for a request of `method`; treat it as read-only. */
  for(era: Era, method: string): Readonly<Record<string, string>> {
    const key = era === 'modern' ? `m ${method}` : `l ${method}`;
    let set = this.sets.get(key);
    if (set === undefined) {
      set = Object.freeze(this.build(era, method));
      if (this.sets.size < MAX_SETS) this.sets.set(key, set);
    }
    return set;
  }

  /** A copy of the set for `method` with per-call headers on top (names lower-cased). */
  with(era: Era, method: string, ...extras: (Readonly<Record<string, string>> | undefined)[]): Record<string, string> {
    const h: Record<string, string> = { ...this.for(era, method) };
    for (const extra of extras) {
      if (extra !== undefined) for (const k in extra) h[k.toLowerCase()] = extra[k]!;
    }
    return h;
  }

  /** The headers of one request: the shared set, or a copy with its Mcp-Name (2026-07-28),
   * Mcp-Param-* and trace context. */
  ofRequest(era: Era, req: { method: string; params: JsonObject; paramHeaders?: Readonly<Record<string, string>>; traceHeaders?: Readonly<Record<string, string>> }): Readonly<Record<string, string>> {
    const name = era === 'modern' ? mcpNameOf(req.method, req.params) : undefined;
    if (name === undefined && req.paramHeaders === undefined && req.traceHeaders === undefined) return this.for(era, req.method);
    const h = this.with(era, req.method, req.paramHeaders, req.traceHeaders);
    if (name !== undefined) h['mcp-name'] = encodeHeaderValue(name);
    return h;
  }

  private build(era: Era, method: string): Record<string, string> {
    const h: Record<string, string> = { ...this.configured, 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-method': method };
    if (era === 'modern') h['mcp-protocol-version'] = MODERN_VERSION;
    else if (method !== 'initialize') h['mcp-protocol-version'] = this.legacyVersion;
    if (era === 'legacy' && this.sessionId !== undefined && method !== 'initialize') h['mcp-session-id'] = this.sessionId;
    return h;
  }
}
