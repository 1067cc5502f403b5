// An HTTP upstream with `session: perClient`: each 2025-11-25 client session gets an upstream
// session of its own, so what the upstream sends on that session's GET stream, outside any
// call, belongs to one client and goes to it (MCP 2025-11-25, basic/transports: requests on
// the GET stream SHOULD be unrelated to any running request, so nothing else could tie it to
// one). Every session declares what its client declared (era-shape.ts relayableCapabilities).
//
// One shared session serves everything else: lists (the catalog's, cached for all), 2026-07-28
// clients (no sessions in that era, and no server requests outside a call's input_required),
// and every request when the upstream turns out to be 2026-07-28 itself. All sessions share
// one connection pool and the upstream's credentials. A client's session is opened at its
// first call, closed (DELETE upstream) when the client's session ends, and bounded by
// maxClientSessions: past it the least recently used one with no call in flight is closed,
// and when every one is busy the call is refused (503) rather than sent on another's session.
import type { AnswerBudget } from '../../limits/answer-budget.ts';
import type { HttpUpstreamConfig } from '../../config/types.ts';
import type { ClientChannel } from '../../protocol/client-channel.ts';
import type { GatewayError } from '../../protocol/errors.ts';
import type { JsonObject } from '../../protocol/message.ts';
import { err, type Result } from '../../protocol/result.ts';
import type { Era } from '../../protocol/versions.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { UpstreamBase } from '../upstream-base.ts';
import type { UpstreamIdentity, UpstreamRequest, UpstreamStatus } from '../upstream.ts';
import { HttpUpstream } from './http-upstream.ts';
import { UpstreamConnection } from './upstream-connection.ts';
import { createUpstreamCredentials, type UpstreamCredentials } from './upstream-credentials.ts';

interface ClientSession {
  upstream: HttpUpstream;
  inFlight: number;
  /** Removes the listener on the client session's end. */
  forget: () => void;
}

/** How long a refused call's client is told to wait (a busy session frees up when its call ends). */
const RETRY_AFTER_MS = 1000;

export class PerClientUpstream extends UpstreamBase<HttpUpstreamConfig> {
  private readonly link: UpstreamConnection;
  private readonly shared: HttpUpstream;
  /** In use order, least recent first (Map keeps insertion order; a use re-inserts). */
  private readonly sessions = new Map<string, ClientSession>();

  /** `credentials`: one user's (user-upstream.ts); by default the upstream's own. */
  constructor(config: HttpUpstreamConfig, logger: Logger, budget?: AnswerBudget, credentials?: UpstreamCredentials) {
    super(config, 'http', logger);
    this.link = new UpstreamConnection(config, credentials ?? createUpstreamCredentials(config, this.logger), this.logger, budget);
    this.shared = new HttpUpstream(config, logger, budget, undefined, { link: this.link });
    // The shared session is the upstream as the gateway sees it: its state, era and events.
    this.shared.onEvent((ev) => this.emit(ev));
  }

  protected currentEra(): Era | undefined {
    return this.shared.knownEra();
  }

  override status(): UpstreamStatus {
    return this.shared.status();
  }

  override identity(): UpstreamIdentity | undefined {
    return this.shared.identity();
  }

  start(): Promise<void> {
    return this.shared.start();
  }

  /** Task status comes on the shared session's listen stream: 2026-07-28 has no client sessions. */
  followTasks(taskIds: readonly string[]): void {
    this.shared.followTasks(taskIds);
  }

  async request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    const channel = req.channel;
    // Closed (a reload retired it): no new session is opened on its way out.
    if (channel === undefined || channel.ended.aborted || this.closed || this.currentEra() === 'modern') return this.shared.request(req);
    const session = this.sessionOf(channel);
    if (session === undefined) {
      // Counted and audited from the error, where every reply is accounted for (http/observer.ts).
      const message = `every one of the ${this.config.session.maxClientSessions} upstream sessions of "${this.name}" (maxClientSessions) has a call in flight; try again shortly`;
      return err({ kind: 'over_capacity', limit: 'maxClientSessions', message, retryAfterMs: RETRY_AFTER_MS });
    }
    session.inFlight++;
    try {
      return await session.upstream.request(req);
    } finally {
      session.inFlight--;
    }
  }

  private sessionOf(channel: ClientChannel): ClientSession | undefined {
    const held = this.sessions.get(channel.key);
    if (held !== undefined) {
      this.sessions.delete(channel.key);
      this.sessions.set(channel.key, held);
      return held;
    }
    if (this.sessions.size >= this.config.session.maxClientSessions && !this.evictIdle()) return undefined;
    const upstream = new HttpUpstream(this.config, this.logger, undefined, undefined, { link: this.link, channel });
    // Change notifications of any session change what every client sees; state is the shared one's.
    upstream.onEvent((ev) => {
      if (ev.type !== 'state') this.emit(ev);
    });
    const onEnd = (): void => void this.drop(channel.key).catch(this.unexpected);
    channel.ended.addEventListener('abort', onEnd, { once: true });
    const session: ClientSession = { upstream, inFlight: 0, forget: () => channel.ended.removeEventListener('abort', onEnd) };
    this.sessions.set(channel.key, session);
    return session;
  }

  /** Closes the least recently used session with no call in flight; false when all are busy. */
  private evictIdle(): boolean {
    for (const [key, s] of this.sessions) {
      if (s.inFlight > 0) continue;
      void this.drop(key).catch(this.unexpected);
      return true;
    }
    return false;
  }

  /** drop() reports its own failures as values; a rejection here is a bug, logged. */
  private readonly unexpected = (e: unknown): void => this.logger.warn('closing a client session upstream failed', { error: (e as Error).message });

  private async drop(key: string): Promise<void> {
    const s = this.sessions.get(key);
    if (s === undefined) return;
    this.sessions.delete(key);
    s.forget();
    await s.upstream.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.sessions.keys()].map((k) => this.drop(k)));
    await this.shared.close();
    await this.link.close();
  }
}
