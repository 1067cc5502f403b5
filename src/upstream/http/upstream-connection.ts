// How the gateway reaches one HTTP upstream: a keep-alive undici pool, the upstream's own
// credentials (authorized-exchange.ts), the configured timeout, JSON-RPC ids, and one more
// try for an idempotent request whose connection was lost before any answer
// (connection-loss.ts). What the answers mean is http-upstream.ts's business.
import { Pool } from 'undici';
import type { HttpUpstreamConfig } from '../../config/types.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { authorizedExchange, withCredentials, type CredentialsFailed } from './authorized-exchange.ts';
import { mayResend } from './connection-loss.ts';
import type { ExchangeInput, ExchangeOutcome } from './http-exchange.ts';
import type { UpstreamCredentials } from './upstream-credentials.ts';

/**
 * Idle pooled connections are closed by us before the upstream closes them: below the 5 s of
 * Node's HTTP server (also uvicorn's, Apache's). undici uses the server's `Keep-Alive:
 * timeout=N` hint minus 2 s when there is one, but SDK servers set `Connection: keep-alive`
 * themselves, which stops Node from sending the hint, so this value applies. Above the
 * server's, a connection the server is closing gets reused: a reset on a healthy upstream.
 */
export const KEEP_ALIVE_MS = 4000;
const DELETE_TIMEOUT_MS = 1000;

export type Sent = ExchangeOutcome | CredentialsFailed;
export type PostInput = Omit<ExchangeInput, 'pool' | 'path'>;

export class UpstreamConnection {
  readonly pool: Pool;
  readonly path: string;
  private lastId = 0;

  constructor(
    private readonly config: HttpUpstreamConfig,
    readonly credentials: UpstreamCredentials | undefined,
    private readonly logger: Logger,
  ) {
    const url = new URL(config.url);
    this.pool = new Pool(url.origin, { connections: 64, keepAliveTimeout: KEEP_ALIVE_MS, pipelining: 1 });
    this.path = url.pathname + url.search;
  }

  nextId(): number {
    return ++this.lastId;
  }

  /**
   * One exchange with the configured timeout. An idempotent request whose connection was
   * lost before any answer goes once more, within what is left of the first one's time (the
   * caller was promised an answer or an error within the timeout), with a new id written
   * into `input.body` so the caller knows which id to cancel (the first body was already
   * serialized).
   */
  async post(input: PostInput): Promise<Sent> {
    const full: ExchangeInput = { pool: this.pool, path: this.path, timeoutMs: this.config.timeoutMs, ...input };
    const started = Date.now();
    const first = await authorizedExchange(this.credentials, full);
    const { method } = input.body;
    if (typeof method !== 'string' || !mayResend(method, first) || this.pool.destroyed) return first;
    let { timeoutMs } = full;
    if (timeoutMs !== undefined) {
      timeoutMs -= Date.now() - started;
      if (timeoutMs <= 0) return { kind: 'timeout' };
    }
    this.logger.info('upstream connection lost before an answer, sending again', { method });
    if (input.body.id !== undefined) input.body.id = this.nextId();
    return authorizedExchange(this.credentials, { ...full, timeoutMs });
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
