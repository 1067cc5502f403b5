// Closed-loop raw load for an endpoint of the 2024-11-05 HTTP+SSE transport (mcp-hub's /mcp):
// each connection holds its own session, an SSE stream opened with GET whose first event
// (`endpoint`) names where to POST, and a keep-alive socket of its own for the POSTs, which
// the server accepts (202) and answers on the stream. After initialize and
// notifications/initialized, each connection calls the echo tool in a loop for
// `durationSec`, every call with a unique id and message, every answer matched to its
// request by id and checked as the raw Streamable HTTP generator checks its replies
// (mcp-wire.ts checkReply). This is the lean counterpart of autocannon for that transport:
// no SDK client, no schema validation, so what it measures is the proxy, not the client.
// Runs in the pinned load-generator process; 127.0.0.1 only (the caller's URL).
import { Agent, request, type IncomingMessage } from 'node:http';
import { checkReply, echoMessage, type WireRequest } from './mcp-wire.ts';
import { startTally, tallyResult } from './run-tally.ts';
import type { LoadResult } from './loadgen-worker.ts';

export interface SseSessionLoadSpec {
  url: string;
  tool: string;
  connections: number;
  durationSec: number;
}

/** The 2024-11-05 revision, the one this transport belongs to. */
const SSE_VERSION = '2024-11-05';
/** A request whose answer has not come on the stream by then counts as a timeout. */
const ANSWER_TIMEOUT_MS = 10_000;
/** How long a connection may take to get its stream, endpoint and initialize answer. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

let nextId = 1_000_000;

type Waiter = (body: string) => void;

/** One session: its stream, where it POSTs, and the requests waiting for their answer (also used alone by raw-lists.ts). */
export class SseSession {
  private readonly waiters = new Map<number, Waiter>();
  private buffer = '';
  private stream: IncomingMessage | undefined;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private endpoint: URL | undefined;
  private endpointKnown!: (u: URL) => void;
  private readonly endpointReady = new Promise<URL>((r) => (this.endpointKnown = r));
  closed = false;

  constructor(private readonly base: URL) {}

  async open(): Promise<void> {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(this.base, { method: 'GET', headers: { accept: 'text/event-stream' }, agent: false }, resolve);
      req.on('error', reject);
      req.end();
    });
    if (res.statusCode !== 200) throw new Error(`GET ${this.base.pathname}: HTTP ${res.statusCode}`);
    this.stream = res;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.feed(chunk));
    res.on('error', () => undefined);
    res.on('close', () => (this.closed = true));
    this.endpoint = await withTimeout(this.endpointReady, HANDSHAKE_TIMEOUT_MS, 'no endpoint event on the SSE stream');
    const init = await this.call({ jsonrpc: '2.0', id: nextId++, method: 'initialize', params: { protocolVersion: SSE_VERSION, capabilities: {}, clientInfo: { name: 'gatehouse-bench-sse', version: '0.1.0' } } }, HANDSHAKE_TIMEOUT_MS);
    if (!init.includes('"result"')) throw new Error(`initialize: ${init.slice(0, 200)}`);
    const status = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (status < 200 || status > 299) throw new Error(`notifications/initialized: HTTP ${status}`);
  }

  /** SSE framing (events end with a blank line; `event:` and `data:` fields). */
  private feed(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(5).replace(/^ /, '');
      }
      if (event === 'endpoint') this.endpointKnown(new URL(data, this.base));
      else if (event === 'message') this.answer(data);
    }
  }

  private answer(data: string): void {
    // Only the id is read here; the whole message is checked by the caller. Parsed, not
    // matched: an "id" inside a result (a list's schemas) must not be taken for the message's.
    let id: unknown;
    try {
      id = (JSON.parse(data) as { id?: unknown }).id;
    } catch {
      return;
    }
    const w = typeof id === 'number' ? this.waiters.get(id) : undefined;
    if (w && typeof id === 'number') {
      this.waiters.delete(id);
      w(data);
    }
  }

  post(message: Record<string, unknown>): Promise<number> {
    const body = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      const req = request(this.endpoint!, { method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** POSTs a request and resolves with the data of its answer on the stream. */
  async call(message: { id: number } & Record<string, unknown>, timeoutMs = ANSWER_TIMEOUT_MS): Promise<string> {
    const answered = new Promise<string>((r) => this.waiters.set(message.id, r));
    const status = await this.post(message);
    if (status < 200 || status > 299) {
      this.waiters.delete(message.id);
      throw new Error(`POST: HTTP ${status}`);
    }
    try {
      return await withTimeout(answered, timeoutMs, 'timeout');
    } finally {
      this.waiters.delete(message.id);
    }
  }

  close(): void {
    this.stream?.destroy();
    this.agent.destroy();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(why)), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

export async function sseSessionLoad(spec: SseSessionLoadSpec): Promise<LoadResult> {
  const base = new URL(spec.url);
  const sessions = Array.from({ length: spec.connections }, () => new SseSession(base));
  const check: WireRequest = { kind: 'tools/call', era: 'modern', tool: spec.tool };
  const tally = startTally();
  try {
    await Promise.all(sessions.map((s) => s.open()));
    const started = performance.now();
    const until = started + spec.durationSec * 1000;
    await Promise.all(
      sessions.map(async (s) => {
        while (performance.now() < until && !s.closed) {
          const id = nextId++;
          const t = performance.now();
          try {
            const data = await s.call({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: spec.tool, arguments: { message: echoMessage(id) } } });
            tally.latencies.push(performance.now() - t);
            const why = checkReply(check, id, 200, data);
            if (why) tally.fail(why);
            else tally.good++;
          } catch (e) {
            const msg = (e as Error).message;
            if (msg === 'timeout') tally.timeouts++;
            else tally.errors++;
            tally.sample(`call failed: ${msg}`);
          }
        }
      }),
    );
    const elapsedSec = (performance.now() - started) / 1000;
    if (sessions.some((s) => s.closed)) {
      tally.errors++;
      tally.sample('an SSE stream closed during the run');
    }
    return tallyResult(tally, elapsedSec);
  } finally {
    for (const s of sessions) s.close();
  }
}
