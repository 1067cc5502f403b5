// Opening a 2025-11-25 session the way a 1.x client does: `initialize`, read Mcp-Session-Id,
// then `notifications/initialized` (MCP 2026-07-28, basic/transports/streamable-http). Works against a gateway (JSON reply) and
// against server-everything (SSE reply).
import { LEGACY_VERSION, replyMessage } from './mcp-wire.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export async function openLegacySession(url: string, clientName = 'gatehouse-bench', extraHeaders: Readonly<Record<string, string>> = {}): Promise<string> {
  const init = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...extraHeaders },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: clientName, version: '0.1.0' } },
    }),
  });
  const text = await init.text();
  const sessionId = init.headers.get('mcp-session-id');
  const reply = replyMessage(text) as { result?: unknown };
  if (!init.ok || !sessionId || !reply.result) throw new Error(`initialize at ${url} failed: HTTP ${init.status} ${text.slice(0, 200)}`);
  const done = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...extraHeaders, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await done.body?.cancel();
  if (done.status !== 202 && done.status !== 200) throw new Error(`notifications/initialized at ${url}: HTTP ${done.status}`);
  return sessionId;
}

/** Opens the session's GET stream and resolves once its 200 headers arrived; abort to close. */
export async function openLegacyGetStream(url: string, sessionId: string, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY_VERSION },
    signal,
  });
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`GET stream: HTTP ${res.status}`);
  }
  // Keep reading in the background so the stream stays open and flowing until aborted.
  void (async () => {
    try {
      for await (const _chunk of res.body ?? []) {
        // keep-alives and notifications are not what we measure
      }
    } catch {
      // aborted
    }
  })();
}
