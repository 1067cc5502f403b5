// The long-lived upstream stream that carries change notifications: the legacy GET stream
// of a session (2025-11-25) or a modern `subscriptions/listen` POST stream (MCP 2026-07-28, basic/patterns/subscriptions).
// Reconnects with backoff while open; ends when closed. With the tasks extension
// (io.modelcontextprotocol/tasks, "Task Status Notifications") a listen also names the task
// ids whose `notifications/tasks` it wants (`notifications.taskIds`), declaring the extension
// on that request as the extension requires.
import type { Pool } from 'undici';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../../protocol/message.ts';
import { isJsonObject } from '../../protocol/message.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { advertisesListChanged as listens, listenParams } from '../era-shape.ts';
import { readSseData, SseEventTooLarge } from './sse-reader.ts';
import { parseWireMessage } from '../wire-message.ts';
import type { UpstreamCredentials } from './upstream-credentials.ts';
import type { Era } from '../../protocol/versions.ts';

export interface NotificationStreamOptions {
  pool: Pool;
  path: string;
  era: Era;
  capabilities: JsonObject;
  headers: () => Readonly<Record<string, string>>;
  /** The upstream's own credentials, asked for on every (re)connect; a 401 drops them. */
  credentials: UpstreamCredentials | undefined;
  onNotification: (n: JsonRpcNotification) => void;
  /** Largest event, in characters (limits.maxUpstreamAnswerBytes). */
  maxEventLength: number;
  /** A request on this stream belongs to no call: it must still get an answer (a refusal). */
  onServerRequest: (r: JsonRpcRequest) => void;
  logger: Logger;
  /** 2026-07-28: the URIs whose updates the listen stream asks for (resourceSubscriptions). */
  resourceSubscriptions?: () => readonly string[];
  /** 2026-07-28: the upstream's task ids whose status the listen stream asks for (taskIds). */
  taskIds?: () => readonly string[];
}

const MAX_BACKOFF_MS = 30_000;
/** How long firstAnswer waits for the first connect to be answered: a server may hold back a stream's headers until its first event. */
const FIRST_ANSWER_WAIT_MS = 2_000;

export class NotificationStream {
  private abort = new AbortController();
  private closed = false;
  private running = false;
  private backoff = 500;
  /** The stream is being reopened with a new filter: no backoff before the next connect. */
  private refreshing = false;
  /** Settles when the first connect has its answer's headers (any status) or has failed. */
  private answered: () => void = () => {};

  constructor(private readonly opts: NotificationStreamOptions) {}

  /** Settles once the upstream has answered open()'s first connect (an open stream, a refusal
   * or a failure) or FIRST_ANSWER_WAIT_MS have passed, so a caller can wait until requests the
   * upstream sends outside any call have somewhere to go. It never rejects. */
  firstAnswer: Promise<void> = Promise.resolve();

  open(): void {
    const { capabilities: caps } = this.opts;
    // Resource subscriptions' updates come on this stream too. A 2025-11-25 upstream may also
    // send requests on it (the gateway's session declares sampling, elicitation and roots),
    // which must be answered, so its GET stream is always opened (a 405 ends it quietly).
    const subscribable = isJsonObject(caps.resources) && caps.resources.subscribe === true;
    const follows = (this.opts.taskIds?.().length ?? 0) > 0;
    if (this.opts.era === 'modern' && !listens(caps, 'tools') && !listens(caps, 'prompts') && !listens(caps, 'resources') && !subscribable && !follows) return;
    if (this.running) return;
    this.running = true;
    this.firstAnswer = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FIRST_ANSWER_WAIT_MS).unref();
      this.answered = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    void this.loop()
      .finally(() => {
        this.running = false;
        this.answered();
      })
      .catch((e: unknown) => this.opts.logger.error('notification stream stopped', { error: (e as Error).message }));
  }

  /** The task ids to follow changed: listen again with them, or start listening for them. */
  followTasks(): void {
    if (this.running) this.refresh();
    else this.open();
  }

  close(): void {
    this.closed = true;
    this.abort.abort();
  }

  /** Reconnects at once, so that a 2026-07-28 listen asks for the resources watched now (a
   * listen's filter is fixed when it opens: MCP 2026-07-28, basic/patterns/subscriptions).
   * Updates sent while it reconnects are missed. */
  refresh(): void {
    if (this.closed) return;
    this.refreshing = true;
    this.abort.abort();
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      const status = await this.once().catch((e: unknown) => {
        // Failures to connect are retried quietly; an upstream that overflows the stream is news.
        if (e instanceof SseEventTooLarge) this.opts.logger.warn('notification stream dropped: event too large', { limit: e.limit });
        return 0;
      });
      this.answered();
      if (this.closed) return;
      if (this.refreshing) {
        this.refreshing = false;
        this.abort = new AbortController();
        continue;
      }
      // 405: the upstream offers no stream; polling by TTL covers it (MCP 2026-07-28, basic/transports/streamable-http (backwards compatibility)).
      if (status === 405 || status === 404) return;
      await new Promise((r) => setTimeout(r, this.backoff).unref());
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    }
  }

  private watched(): { resourceSubscriptions?: string[]; taskIds?: string[] } {
    const uris = this.opts.resourceSubscriptions?.() ?? [];
    const tasks = this.opts.taskIds?.() ?? [];
    return { ...(uris.length > 0 ? { resourceSubscriptions: [...uris] } : {}), ...(tasks.length > 0 ? { taskIds: [...tasks] } : {}) };
  }

  private async once(): Promise<number> {
    const { pool, path, era, capabilities: caps } = this.opts;
    const credentials = await this.opts.credentials?.headers();
    // No credentials now (the token endpoint is down): try again after the backoff.
    if (credentials !== undefined && !credentials.ok) return 0;
    const headers = { ...credentials?.value, ...this.opts.headers(), accept: 'text/event-stream' };
    const res =
      era === 'legacy'
        ? await pool.request({ path, method: 'GET', headers: omit(headers, ['mcp-method', 'content-type']), signal: this.abort.signal })
        : await pool.request({
            path,
            method: 'POST',
            headers: { ...headers, accept: 'application/json, text/event-stream' },
            signal: this.abort.signal,
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: this.opts.taskIds ? 'gatehouse-tasks' : 'gatehouse-listen',
              method: 'subscriptions/listen',
              params: listenParams(caps, this.watched()),
            }),
          });
    this.answered();
    if (res.statusCode !== 200) {
      await res.body.dump();
      if (res.statusCode === 401 && credentials?.ok) await this.opts.credentials?.rejected(credentials.value);
      return res.statusCode;
    }
    this.backoff = 500;
    for await (const data of readSseData(res.body, this.opts.maxEventLength)) {
      // Empty data is a priming event (SDK 1.x), not a broken message.
      if (data === '') continue;
      const m = parseWireMessage(data);
      if (m === undefined) this.opts.logger.warn('unparseable message on notification stream');
      else if ('method' in m && typeof m.method === 'string') {
        if ('id' in m && m.id !== undefined) this.opts.onServerRequest(m as JsonRpcRequest);
        else this.opts.onNotification(m as JsonRpcNotification);
      }
    }
    return 200;
  }
}

function omit(h: Readonly<Record<string, string>>, keys: string[]): Record<string, string> {
  const out = { ...h };
  for (const k of keys) delete out[k];
  return out;
}
