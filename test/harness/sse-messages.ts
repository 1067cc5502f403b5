// Collects the JSON-RPC messages of a long-lived SSE response (a subscriptions/listen stream or
// a legacy GET stream) as they arrive, for tests that wait on them. One message per event's
// `data` lines (Streamable HTTP); comment lines (keep-alives) are skipped.

export interface SseMessages {
  /** Every parsed message so far, in arrival order. */
  messages: any[];
  /** Resolves once at least `n` messages have arrived; rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  /** True once the server ended the response body (or it failed). */
  ended(): boolean;
  close(): void;
}

/** Opens `init` against `url` and reads its SSE body in the background. */
export async function openSse(url: string, init: RequestInit): Promise<{ response: Response; sse: SseMessages }> {
  const abort = new AbortController();
  const response = await fetch(url, { ...init, signal: abort.signal });
  const messages: any[] = [];
  // Woken on every message the pump adds: waiting is on arrivals, not on a timer.
  const waiters = new Set<() => void>();
  const arrived = (m: unknown): void => {
    messages.push(m);
    for (const w of [...waiters]) w();
  };
  let ended = !response.body;
  if (response.body) void pump(response.body, arrived).catch(() => undefined).finally(() => (ended = true));
  const sse: SseMessages = {
    messages,
    waitFor(n, timeoutMs = 5000) {
      if (messages.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (messages.length < n) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${n} SSE messages, have ${JSON.stringify(messages)}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    ended: () => ended,
    close: () => abort.abort(),
  };
  return { response, sse };
}

async function pump(body: ReadableStream<Uint8Array>, arrived: (message: unknown) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) arrived(JSON.parse(data));
    }
  }
}

/** JSON-RPC messages of an SSE body, one per event's data (MCP 2026-07-28, basic/transports/streamable-http (responses)). */
export async function* sseMessages(res: Response): AsyncGenerator<any> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buf += value;
    for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
      const data = buf.slice(0, i).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
      buf = buf.slice(i + 2);
      if (data) yield JSON.parse(data);
    }
  }
}
