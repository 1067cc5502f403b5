// A real Node HTTP server on 127.0.0.1:0 for upstream-side tests, scripted per request.
// It answers POSTs the way SDK 1.x servers do over Streamable HTTP: SSE with a priming event
// (empty data) before the message, and `Connection: keep-alive` set by the handler, which
// stops Node from sending its `Keep-Alive: timeout=N` hint (here on every response, so no
// connection ever gets a hint). Faults a test can ask for:
// resetting the connection under the next request of a method, treating a connection
// idle for `idleCloseMs` as closed by the server just as the request arrived (the
// keep-alive race: the request meets a reset), and forgetting every legacy session (a
// restart: requests in a forgotten session get 404, MCP 2026-07-28, basic/transports/streamable-http (header value encoding)). Each initialize opens a
// new session; `beforeInitialize` may hold its answer.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ScriptedRequest {
  method: string | undefined;
  id: unknown;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** Requests served on this connection before this one. */
  reuse: number;
}

/** Answer a request: return a result, or write the response yourself and return undefined. */
export type Script = (req: ScriptedRequest, res: ServerResponse) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;

export interface ScriptedServer {
  url: string;
  received: ScriptedRequest[];
  /** Reset the connection of the next request with this method, after reading it. */
  resetNext(method: string): void;
  /** Sessions opened by initialize, in order. */
  sessions: string[];
  /** From now on requests in any session opened so far get 404. */
  forgetSessions(): void;
  count(method: string): number;
  /** Connections open now. The server never closes an idle one itself, so 0 after requests
   * means the client closed them. */
  openConnections(): number;
  close(): Promise<void>;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' };

export function sseEvent(message: unknown): string {
  return `event: message\nid: ${randomUUID()}\ndata: ${JSON.stringify(message)}\n\n`;
}

/** Priming event and response in one write, as server-everything sends them. */
export function answerSse(res: ServerResponse, headers: Record<string, string>, message: unknown): void {
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  res.end(`id: ${randomUUID()}\ndata: \n\n${sseEvent(message)}`);
}

export interface ScriptedOptions {
  script?: Script;
  idleCloseMs?: number;
  /** The result server/discover answers with; unset: a bare 400, as a legacy server. */
  discoverResult?: Record<string, unknown>;
  /** Awaited before an initialize is answered. */
  beforeInitialize?: (req: ScriptedRequest) => Promise<void>;
  /** Answer with `Connection: close`, so that no connection outlives its request. */
  closeEachConnection?: boolean;
}

/** Servers started and not closed yet, for closeStartedServers. */
const running = new Set<ScriptedServer>();

/** Closes every scripted server still running (after each test). */
export async function closeStartedServers(): Promise<void> {
  await Promise.all([...running].map((s) => s.close()));
}

export async function startScriptedServer(opts: ScriptedOptions = {}): Promise<ScriptedServer> {
  const received: ScriptedRequest[] = [];
  const connection = opts.closeEachConnection ? 'close' : 'keep-alive';
  const resets = new Set<string>();
  const idleSince = new WeakMap<Socket, number>();
  const served = new WeakMap<Socket, number>();
  const sessions: string[] = [];
  const forgotten = new Set<string>();
  const server = createServer((req, res) => {
    const socket = req.socket;
    const reuse = served.get(socket) ?? 0;
    served.set(socket, reuse + 1);
    const since = idleSince.get(socket);
    idleSince.delete(socket);
    res.on('finish', () => idleSince.set(socket, Date.now()));
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      if (opts.idleCloseMs !== undefined && since !== undefined && Date.now() - since >= opts.idleCloseMs) {
        socket.resetAndDestroy();
        return;
      }
      res.setHeader('connection', connection);
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      const method = typeof body.method === 'string' ? body.method : undefined;
      const r: ScriptedRequest = { method, id: body.id, body, headers: req.headers, reuse };
      received.push(r);
      if (method !== undefined && resets.delete(method)) return void socket.resetAndDestroy();
      const session = req.headers['mcp-session-id'];
      if (typeof session === 'string' && forgotten.has(session)) return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, error: { code: -32600, message: 'Session not found' } }));
      if (body.id === undefined) return void res.writeHead(202).end();
      void answer(r, res);
    });
  });
  const answer = async (r: ScriptedRequest, res: ServerResponse): Promise<void> => {
    if (r.method === 'server/discover') {
      if (opts.discoverResult) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: r.id, result: opts.discoverResult }));
      return void res.writeHead(400, { 'content-type': 'application/json' }).end();
    }
    if (r.method === 'initialize') {
      await opts.beforeInitialize?.(r);
      const sessionId = randomUUID();
      sessions.push(sessionId);
      return answerSse(res, { connection, 'mcp-session-id': sessionId }, { jsonrpc: '2.0', id: r.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1' } } });
    }
    const result = opts.script ? await opts.script(r, res) : defaultResult(r);
    if (result !== undefined) answerSse(res, { connection }, { jsonrpc: '2.0', id: r.id, result });
  };
  // Idle connections stay open on the server's side: faults are the test's to script.
  server.keepAliveTimeout = 60_000;
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const scripted: ScriptedServer = {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    resetNext: (method) => void resets.add(method),
    sessions,
    forgetSessions: () => {
      for (const s of sessions) forgotten.add(s);
    },
    count: (method) => received.filter((r) => r.method === method).length,
    openConnections: () => open.size,
    close: () =>
      new Promise<void>((r) => {
        running.delete(scripted);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  running.add(scripted);
  return scripted;
}

export function defaultResult(r: ScriptedRequest): Record<string, unknown> {
  const params = (r.body.params ?? {}) as { arguments?: { message?: string } };
  if (r.method === 'tools/list') return { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
  if (r.method === 'tools/call') return { content: [{ type: 'text', text: `Echo: ${params.arguments?.message ?? ''}` }] };
  return {};
}
