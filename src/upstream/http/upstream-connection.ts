// How the gateway reaches one HTTP upstream: a keep-alive undici pool, JSON-RPC ids, and the
// chain of exchange interceptors composed once for it (exchange-interceptor.ts): the configured
// timeout (outermost: one budget for every try), the idempotent resend (within what is left of
// it, with fresh credentials), the upstream's own credentials. What the answers mean is http-upstream.ts's business.
import { Pool } from 'undici';
import type { HttpUpstreamConfig } from '../../config/types.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { credentialsInterceptor, withCredentials } from './credentials-interceptor.ts';
import { composeExchange, timeoutInterceptor, type Exchange, type Sent } from './exchange-interceptor.ts';
import { exchange, type ExchangeInput } from './http-exchange.ts';
import { resendInterceptor } from './resend-interceptor.ts';
import type { UpstreamCredentials } from './upstream-credentials.ts';
import type { AnswerBudget } from '../../limits/answer-budget.ts';

/**
 * Idle pooled connections are closed by us before the upstream closes them: below the 5 s of
 * Node's HTTP server (also uvicorn's, Apache's). undici uses the server's `Keep-Alive:
 * timeout=N` hint minus 2 s when there is one, but SDK servers set `Connection: keep-alive`
 * themselves, which stops Node from sending the hint, so this value applies. Above the
 * server's, a connection the server is closing gets reused: a reset on a healthy upstream.
 */
export const KEEP_ALIVE_MS = 4000;
const DELETE_TIMEOUT_MS = 1000;
/** Connections to one upstream for its requests (more wait in undici's queue). */
const CALL_CONNECTIONS = 64;

export type { Sent } from './exchange-interceptor.ts';
export type PostInput = Omit<ExchangeInput, 'pool' | 'path'>;

export class UpstreamConnection {
  readonly pool: Pool;
  readonly path: string;
  private lastId = 0;
  private readonly send: Exchange;
  private readonly maxAnswerBytes: number;

  constructor(
    config: HttpUpstreamConfig,
    readonly credentials: UpstreamCredentials | undefined,
    logger: Logger,
    private readonly budget?: AnswerBudget,
  ) {
    const url = new URL(config.url);
    // A per-client session keeps its GET stream open on a connection of its own: room for
    // each of them besides the calls'.
    const streams = config.session.mode === 'perClient' ? config.session.maxClientSessions : 0;
    this.pool = new Pool(url.origin, { connections: CALL_CONNECTIONS + streams, keepAliveTimeout: KEEP_ALIVE_MS, pipelining: 1 });
    this.path = url.pathname + url.search;
    this.maxAnswerBytes = config.limits.maxAnswerBytes;
    this.send = composeExchange(
      [timeoutInterceptor(config.timeoutMs), resendInterceptor({ logger, nextId: () => this.nextId(), closed: () => this.pool.destroyed }), credentialsInterceptor(credentials)],
      exchange,
    );
  }

  nextId(): number {
    return ++this.lastId;
  }

  /** One exchange through the connection's interceptors, its answer bounded by
   * limits.maxUpstreamAnswerBytes. */
  post(input: PostInput): Promise<Sent> {
    const full: ExchangeInput = { pool: this.pool, path: this.path, maxAnswerBytes: this.maxAnswerBytes, ...input };
    if (this.budget) full.budget = this.budget;
    return this.send(full);
  }

  /** Best effort, bounded: nothing waits for the answer. */
  async delete(headers: Readonly<Record<string, string>>): Promise<void> {
    await this.pool
      .request({ path: this.path, method: 'DELETE', headers: await withCredentials(this.credentials, headers), signal: AbortSignal.timeout(DELETE_TIMEOUT_MS) })
      .then((r) => r.body.dump())
      .catch(() => undefined);
  }

  /** destroy, not close: close() waits for in-flight calls, whose callers are already gone
   * (the server cut their connections), so shutdown would wait out the longest tool call. */
  async close(): Promise<void> {
    await this.pool.destroy().catch(() => undefined);
    await this.credentials?.close();
  }
}
