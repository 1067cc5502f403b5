// What every upstream shares whatever its transport: status, identity, event listeners.
import type { UpstreamConfig } from '../config/types.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcNotification } from '../protocol/message.ts';
import type { Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import { eventFromNotification } from './era-shape.ts';
import { nestsDeeperThan } from '../protocol/json-depth.ts';
import type { Upstream, UpstreamEvent, UpstreamIdentity, UpstreamRequest, UpstreamState, UpstreamStatus } from './upstream.ts';
import type { Era } from '../protocol/versions.ts';

export abstract class UpstreamBase<C extends UpstreamConfig> implements Upstream {
  readonly name: string;
  protected readonly logger: Logger;
  protected closed = false;
  private state: UpstreamState = 'starting';
  private since = Date.now();
  private lastError: string | undefined;
  private ident: UpstreamIdentity | undefined;
  private readonly listeners: ((ev: UpstreamEvent) => void)[] = [];

  constructor(
    readonly config: C,
    private readonly transport: 'http' | 'stdio',
    logger: Logger,
  ) {
    this.name = config.name;
    this.logger = logger.child({ upstream: config.name });
  }

  abstract start(): Promise<void>;
  abstract request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>>;
  abstract close(): Promise<void>;
  protected abstract currentEra(): Era | undefined;

  status(): UpstreamStatus {
    return {
      name: this.name,
      transport: this.transport,
      state: this.state,
      era: this.currentEra(),
      since: this.since,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  knownEra(): Era | undefined {
    return this.currentEra();
  }

  identity(): UpstreamIdentity | undefined {
    return this.ident;
  }

  onEvent(listener: (ev: UpstreamEvent) => void): void {
    this.listeners.push(listener);
  }

  protected setIdentity(ident: UpstreamIdentity): void {
    this.ident = ident;
  }

  protected emit(ev: UpstreamEvent): void {
    for (const l of this.listeners) l(ev);
  }

  protected markUp(): void {
    if (this.state === 'up') return;
    this.state = 'up';
    this.since = Date.now();
    this.lastError = undefined;
    this.logger.info('upstream up', { era: this.currentEra() });
    this.emit({ type: 'state', state: 'up' });
  }

  /** `reason` shows in status() (/readyz) and the state event; `logReason` may say more
   * (http-upstream.ts logs the URL's path, /readyz shows only its origin). */
  protected markDown(reason: string, logReason = reason): void {
    this.lastError = reason;
    if (this.state === 'down') return;
    this.state = 'down';
    this.since = Date.now();
    this.logger.error('upstream down', { reason: logReason });
    this.emit({ type: 'state', state: 'down', error: reason });
  }

  /** Change notifications become events; returns true when the notification was consumed.
   * One nested deeper than limits.maxJsonDepth is consumed here, unread: it would reach the
   * log or a client's stream, each a recursive walk (JSON.stringify), from an event handler. */
  protected handleNotification(n: JsonRpcNotification): boolean {
    const limit = this.config.limits.maxJsonDepth;
    if (nestsDeeperThan(n, limit)) {
      this.logger.warn('upstream notification nested too deep, dropped', { method: String(n.method).slice(0, 100), limit });
      this.emit({ type: 'limit_hit', limit: 'maxJsonDepth' });
      return true;
    }
    const ev = eventFromNotification(n);
    if (!ev) return false;
    this.emit(ev);
    return true;
  }
}
