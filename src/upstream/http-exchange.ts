// One JSON-RPC exchange over Streamable HTTP with an upstream: POST a message, then read
// either one JSON body or an SSE stream (spec digest b.2). Notifications on the stream are
// handed over as they arrive; requests the upstream starts on the stream (legacy era only)
// are answered through `onServerRequest`. Nothing is buffered beyond one SSE event.
import type { Dispatcher, Pool } from 'undici';
import type { JsonObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc/message.ts';
import { isJsonObject } from '../jsonrpc/message.ts';
import { readSseData } from './sse-reader.ts';

export interface ExchangeInput {
  pool: Pool;
  path: string;
  headers: Record<string, string>;
  body: JsonObject;
  signal?: AbortSignal;
  onNotification?: (n: JsonRpcNotification) => void;
  onServerRequest?: (r: JsonRpcRequest) => void;
}

export type ExchangeOutcome =
  | { kind: 'response'; status: number; headers: Dispatcher.ResponseData['headers']; message: JsonRpcResponse }
  | { kind: 'accepted'; status: number; headers: Dispatcher.ResponseData['headers'] }
  | { kind: 'http_error'; status: number; headers: Dispatcher.ResponseData['headers']; bodyText: string; message?: JsonRpcResponse }
  | { kind: 'network_error'; error: Error };

const MAX_ERROR_BODY = 64 * 1024;
const DRAIN_TIMEOUT_MS = 5000;

function headerString(v: string | string[] | undefined): string {
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

function parseMessage(text: string): JsonRpcMessage | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isJsonObject(v) ? (v as unknown as JsonRpcMessage) : undefined;
  } catch {
    return undefined;
  }
}

function matchesId(m: JsonRpcMessage, id: RequestId | undefined): m is JsonRpcResponse {
  return !('method' in m) && ('result' in m || 'error' in m) && (id === undefined || (m as JsonRpcResponse).id === id);
}

export async function exchange(input: ExchangeInput): Promise<ExchangeOutcome> {
  const id = input.body.id as RequestId | undefined;
  let res: Dispatcher.ResponseData;
  try {
    res = await input.pool.request({
      path: input.path,
      method: 'POST',
      headers: input.headers,
      body: JSON.stringify(input.body),
      signal: input.signal,
    });
  } catch (e) {
    return { kind: 'network_error', error: e as Error };
  }
  const { statusCode: status, headers, body } = res;
  try {
    const contentType = headerString(headers['content-type']).toLowerCase();
    if (status === 202 || (status >= 200 && status < 300 && id === undefined)) {
      await body.dump();
      return { kind: 'accepted', status, headers };
    }
    if (status < 200 || status >= 300) {
      const text = (await body.text()).slice(0, MAX_ERROR_BODY);
      const m = parseMessage(text);
      return { kind: 'http_error', status, headers, bodyText: text, ...(m && matchesId(m, undefined) ? { message: m } : {}) };
    }
    if (contentType.startsWith('text/event-stream')) {
      // Iterated by hand: leaving a for-await early would destroy the socket.
      const events = readSseData(body)[Symbol.asyncIterator]();
      for (let next = await events.next(); !next.done; next = await events.next()) {
        const m = parseMessage(next.value);
        if (!m) continue;
        if (matchesId(m, id)) {
          drainLater(events, body);
          return { kind: 'response', status, headers, message: m };
        }
        if ('method' in m && 'id' in m && m.id !== undefined) input.onServerRequest?.(m as JsonRpcRequest);
        else if ('method' in m) input.onNotification?.(m as JsonRpcNotification);
      }
      return { kind: 'network_error', error: new Error('stream closed before the response arrived') };
    }
    const text = await body.text();
    const m = parseMessage(text);
    if (m && matchesId(m, id)) return { kind: 'response', status, headers, message: m };
    return { kind: 'http_error', status, headers, bodyText: text.slice(0, MAX_ERROR_BODY) };
  } catch (e) {
    body.destroy();
    return { kind: 'network_error', error: e as Error };
  }
}

/**
 * The final response SHOULD end the stream (b.2): read what is left in the background so
 * the keep-alive connection returns to the pool, but never wait on a server that keeps the
 * stream open.
 */
function drainLater(events: AsyncIterator<string>, body: Dispatcher.ResponseData['body']): void {
  const timer = setTimeout(() => body.destroy(), DRAIN_TIMEOUT_MS);
  timer.unref();
  void (async () => {
    for (let n = await events.next(); !n.done; n = await events.next());
  })()
    .catch(() => undefined)
    .finally(() => clearTimeout(timer));
}

/** A network error in words, with its system code (ECONNREFUSED, ...) when there is one. */
function describeNetworkError(e: Error): string {
  const cause = (e as Error & { cause?: { code?: string } }).cause;
  return cause?.code ? `${e.message} (${cause.code})` : e.message;
}

export { describeNetworkError, headerString };
