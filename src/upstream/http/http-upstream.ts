// A Streamable HTTP upstream: one undici pool (keep-alive), era detected by the shared probe (era-probe.ts),
// cached and probed again when the upstream stops working. Legacy sessions are created, reused and re-created
// on 404 without the client noticing (README, Protocol eras: bridging). Pool, credentials and resending:
// upstream-connection.ts; headers: request-headers.ts; lost connections: connection-loss.ts; failure words: failure-text.ts.
import type { AnswerBudget } from '../../limits/answer-budget.ts';
import type { HttpUpstreamConfig } from '../../config/types.ts';
import type { GatewayError } from '../../protocol/errors.ts';
import { isErrorResponse, type JsonObject, type JsonRpcRequest } from '../../protocol/message.ts';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { ResponseHeaders } from './raw-response.ts';
import { discoverParams, relayableCapabilities, shapeParams, WATCH_METHODS, watchResource } from '../era-shape.ts';
import type { ClientChannel } from '../../protocol/client-channel.ts';
import { probeEra } from '../era-probe.ts';
import type { ExchangeOutcome } from './http-exchange.ts';
import { isLostConnection } from './connection-loss.ts';
import { FailureText, reasonOf, type Unanswered } from './failure-text.ts';
import { RequestHeaders } from './request-headers.ts';
import { createUpstreamCredentials, type UpstreamCredentials } from './upstream-credentials.ts';
import { UpstreamConnection } from './upstream-connection.ts';
import { UpstreamBase } from '../upstream-base.ts';
import { NotificationStream } from './notification-stream.ts';
import { answerMeaning } from './answer-meaning.ts';
import { answerServerRequest } from '../server-request-answer.ts';
import type { UpstreamIdentity, UpstreamRequest } from '../upstream.ts';
import type { Era } from '../../protocol/versions.ts';

const FIRST_REPROBE_MS = 500, MAX_REPROBE_MS = 5000;

/** A session that serves one client (per-client-upstream.ts): over a connection its owner
 * shares and closes, declaring that client's capabilities and relaying to it what the
 * upstream sends outside any call. */
export interface SessionOf {
  link?: UpstreamConnection;
  channel?: ClientChannel;
}
/** ready()'s usual answer, with no promise: the era known and its session (legacy) open. */
const READY: Readonly<Record<Era, Result<Era, GatewayError>>> = { modern: ok('modern'), legacy: ok('legacy') };

export class HttpUpstream extends UpstreamBase<HttpUpstreamConfig> {
  private readonly link: UpstreamConnection;
  private readonly headers: RequestHeaders;
  private readonly words: FailureText;
  private era: Era | undefined;
  private sessionId: string | undefined;
  /** Legacy handshake done. Separate from sessionId: a stateless legacy server mints none. */
  private legacyReady = false;
  private probing: Promise<Result<Era, GatewayError>> | undefined;
  private checking = false; // a check after a lost connection is under way (checkAfterLoss)
  /** Change notifications; and (2026-07-28) task status on a listen of its own, so that
   * following one more task, which opens that listen again, costs the other none. */
  private stream: NotificationStream | undefined;
  private taskStream: NotificationStream | undefined;
  private reprobeTimer: NodeJS.Timeout | undefined;
  private reprobeDelay = FIRST_REPROBE_MS;
  /** 2026-07-28: the resources subscribed to, and the tasks followed, asked for on listen streams. */
  private readonly watched = new Set<string>();
  private followed: readonly string[] = [];

  /** `credentials`: one user's (user-upstream.ts); by default the upstream's own, never the client's. */
  constructor(config: HttpUpstreamConfig, logger: Logger, budget?: AnswerBudget, credentials?: UpstreamCredentials, private readonly only: SessionOf = {}) {
    super(config, 'http', logger);
    this.link = only.link ?? new UpstreamConnection(config, credentials ?? createUpstreamCredentials(config, this.logger), this.logger, budget);
    this.headers = new RequestHeaders(config.headers);
    this.words = new FailureText(config.url, config.timeoutMs);
  }

  override currentEra(): Era | undefined {
    return this.era;
  }

  async start(): Promise<void> {
    await this.ready();
  }

  /** 2026-07-28 with the tasks extension: the task ids whose status notifications to ask for. */
  followTasks(taskIds: readonly string[]): void {
    this.followed = taskIds;
    if (this.era !== 'modern') return;
    this.taskStream ??= this.newStream('modern', true);
    this.taskStream.followTasks();
  }

  async request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    const known = this.ready();
    const ready = known instanceof Promise ? await known : known;
    if (!ready.ok) return ready;
    if (ready.value === 'modern' && WATCH_METHODS.has(req.method)) return watchResource(this.watched, req.method, req.params, () => this.stream?.refresh());
    // The session this request carries (send() puts it in the headers before its first await).
    const carried = this.sessionId;
    const first = await this.send(ready.value, req);
    if (first.ok || first.error.kind !== 'session_not_found') return first;
    // The upstream forgot the legacy session the request carried: start a new one and retry
    // once (README, Protocol eras: bridging). Calls in flight in that session all get a 404: the first to see it
    // forgets the session, the others find it forgotten (and join the one re-initialize under
    // way, in ready()) or already replaced (and use the new one as it is).
    if (this.sessionId === carried) this.setSession(undefined, undefined, 'upstream session expired, re-initializing');
    const again = await this.ready();
    if (!again.ok) return again;
    const second = await this.send(again.value, req);
    return !second.ok && second.error.kind === 'session_not_found'
      ? err({ kind: 'upstream_unavailable', upstream: this.name, reason: 'session rejected twice' })
      : second;
  }

  private ready(): Result<Era, GatewayError> | Promise<Result<Era, GatewayError>> {
    if (this.era === 'modern' || (this.era === 'legacy' && this.legacyReady)) return READY[this.era];
    return (this.probing ??= this.probe().finally(() => (this.probing = undefined)));
  }

  private setSession(sessionId: string | undefined, legacyVersion?: string, why?: string): void {
    if (why) this.logger.info(why, { upstream: this.name });
    this.sessionId = sessionId;
    if (sessionId === undefined) this.legacyReady = false;
    this.headers.setSession(sessionId, legacyVersion);
  }

  /** The shared era probe (era-probe.ts) over this upstream's HTTP connection. */
  private async probe(): Promise<Result<Era, GatewayError>> {
    let initHeaders = ResponseHeaders.EMPTY;
    const outcome = await probeEra<Unanswered | { credentials: string }>(async (method, params) => {
      const o = await this.link.post({
        headers: this.headers.for(method === 'initialize' ? 'legacy' : 'modern', method),
        body: { jsonrpc: '2.0', id: this.link.nextId(), method, params },
      });
      switch (o.kind) {
        case 'credentials_failed':
          return { kind: 'failure', failure: { credentials: o.error.reason } };
        case 'response':
          initHeaders = o.headers;
          return { kind: 'response', message: o.message };
        case 'http_error':
          return o.message && isErrorResponse(o.message) ? { kind: 'response', message: o.message } : { kind: 'no_response', why: `HTTP ${o.status}` };
        case 'accepted': case 'relayed': case 'invalid_answer': case 'relay_broken': // the last three need a relay, which a probe never offers
          return { kind: 'no_response', why: o.kind === 'accepted' ? `HTTP ${o.status}` : 'answer not understood' };
        default:
          return { kind: 'failure', failure: o };
      }
    }, this.only.channel && relayableCapabilities(this.only.channel.capabilities));
    switch (outcome.kind) {
      case 'failure':
        return 'credentials' in outcome.failure ? this.fail(outcome.failure.credentials) : this.unreachable(outcome.failure);
      case 'refused':
        return this.fail(outcome.reason);
      case 'modern':
        this.era = 'modern';
        this.setIdentity(outcome.identity);
        this.markUp();
        this.openStream();
        return ok('modern');
      case 'legacy':
        return this.startLegacySession(outcome.identity, outcome.result, initHeaders);
    }
  }

  private async startLegacySession(identity: UpstreamIdentity, result: JsonObject, headers: ResponseHeaders): Promise<Result<Era, GatewayError>> {
    this.setSession(headers.get('mcp-session-id') || undefined, typeof result.protocolVersion === 'string' ? result.protocolVersion : undefined);
    this.era = 'legacy';
    this.setIdentity(identity);
    await this.link.post({ headers: this.headers.for('legacy', 'notifications/initialized'), body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    this.legacyReady = true;
    this.openStream();
    await this.stream?.firstAnswer; // up once the GET stream answers: SDK 1.x drops out-of-call requests sent before
    this.markUp();
    return ok('legacy');
  }

  private unreachable(o: Unanswered): Result<never, GatewayError> {
    const text = this.words.unreachable(o);
    return this.fail(text.reason, text.status, text.log);
  }

  private openStream(): void {
    this.closeStreams();
    if (!this.era) return;
    this.stream = this.newStream(this.era, false);
    this.stream.open();
    if (this.era === 'modern' && this.followed.length > 0) this.followTasks(this.followed);
  }

  private newStream(era: Era, tasks: boolean): NotificationStream {
    return new NotificationStream({
      pool: this.link.pool,
      path: this.link.path,
      era,
      capabilities: tasks ? {} : (this.identity()?.capabilities ?? {}),
      headers: () => this.headers.for(era, era === 'modern' ? 'subscriptions/listen' : 'GET'),
      credentials: this.link.credentials,
      onNotification: (n) => this.handleNotification(n) || this.only.channel?.notify(n),
      maxEventLength: this.config.limits.maxAnswerBytes,
      onServerRequest: (r) => void this.answerServerRequest(era, r, this.only.channel?.ask).catch(this.bestEffort),
      logger: this.logger,
      ...(tasks ? { taskIds: () => this.followed } : { resourceSubscriptions: () => [...this.watched] }),
    });
  }

  private closeStreams(): void {
    for (const s of [this.stream, this.taskStream]) s?.close();
    this.stream = this.taskStream = undefined;
  }

  /** It stopped working: forget era and session (the next request probes again) and stop the
   * notification stream (the next probe opens a fresh one). `reason` goes to the client,
   * `status` to /readyz, `log` to the log (failure-text.ts). */
  private fail(reason: string, status = reason, log = status): Result<never, GatewayError> {
    this.era = undefined;
    this.setSession(undefined);
    this.closeStreams();
    this.markDown(status, log);
    this.scheduleReprobe();
    return err({ kind: 'upstream_unavailable', upstream: this.name, reason });
  }

  /** A down upstream is probed again in the background with backoff (/readyz and the merged lists recover unasked). */
  private scheduleReprobe(): void {
    if (this.closed || this.reprobeTimer) return;
    const delay = this.reprobeDelay;
    this.reprobeDelay = Math.min(this.reprobeDelay * 2, MAX_REPROBE_MS);
    this.reprobeTimer = setTimeout(() => {
      this.reprobeTimer = undefined;
      if (this.closed || this.era) return;
      void Promise.resolve(this.ready()).then((r) => {
        if (r.ok) this.reprobeDelay = FIRST_REPROBE_MS;
      }, this.bestEffort);
    }, delay);
    this.reprobeTimer.unref();
  }

  /** A connection was lost under one call: that call fails, era and session stay (other
   * calls may be fine). One cheap idempotent request (legacy ping, modern server/discover)
   * tells whether the upstream is still there; only if not is it marked down (connection-loss.ts). */
  private checkAfterLoss(): void {
    const era = this.era;
    if (this.checking || era === undefined || this.closed) return;
    this.checking = true;
    const method = era === 'modern' ? 'server/discover' : 'ping';
    void this.link.post({ headers: this.headers.for(era, method), body: { jsonrpc: '2.0', id: this.link.nextId(), method, params: era === 'modern' ? discoverParams() : {} } })
      .then((o) => {
        if ((o.kind === 'network_error' || o.kind === 'timeout') && this.era === era && !this.closed) this.unreachable(o);
      })
      .finally(() => (this.checking = false))
      .catch(this.bestEffort);
  }

  private async send(era: Era, req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    const body: JsonObject = { jsonrpc: '2.0', id: this.link.nextId(), method: req.method, params: shapeParams(req, era) };
    const headers = this.headers.ofRequest(era, req);
    const outcome = await this.link.post({
      headers,
      body,
      signal: req.signal, cancellation: req.cancellation, // the call's cancellation listens with no AbortSignal made
      onNotification: (n) => void (this.handleNotification(n) || req.onNotification?.(n)),
      onServerRequest: (r) => void this.answerServerRequest(era, r, req.ask).catch(this.bestEffort),
      resumable: era === 'legacy', ...(req.relay?.era === era ? { relay: { relay: req.relay, maxJsonDepth: this.config.limits.maxJsonDepth } } : {}), // same era only: a bridged result is reshaped whole
      ...(era === 'legacy' && req.onStreamPrimed ? { onPrimed: req.onStreamPrimed } : {}),
    });
    // Legacy: a disconnect is not a cancel; tell the upstream explicitly (MCP 2026-07-28, basic/patterns/cancellation).
    if ((outcome.kind === 'timeout' || outcome.kind === 'aborted') && era === 'legacy') {
      void this.cancelLegacy(body.id as number, outcome.kind === 'timeout' ? 'timeout' : 'client disconnected').catch(this.bestEffort);
    }
    return outcome.kind === 'credentials_failed' ? err(outcome.error) : this.toResult(outcome, era === 'legacy' && headers['mcp-session-id'] !== undefined);
  }

  private toResult(outcome: ExchangeOutcome, inSession: boolean): Result<JsonObject, GatewayError> {
    const meant = answerMeaning(outcome, { upstream: this.name, timeoutMs: this.config.timeoutMs, inSession, maxJsonDepth: this.config.limits.maxJsonDepth });
    if (meant) return meant;
    if (outcome.kind === 'too_large') {
      this.logger.warn('upstream answer too large, dropped', { limit: outcome.limit });
      this.emit({ type: 'limit_hit', limit: 'maxUpstreamAnswerBytes' });
      return err({ kind: 'upstream_unavailable', upstream: this.name, reason: reasonOf(outcome) });
    }
    if (outcome.kind !== 'network_error' || this.closed) return err({ kind: 'upstream_unavailable', upstream: this.name, reason: reasonOf(outcome as Unanswered) });
    if (!outcome.responded && !isLostConnection(outcome.error)) return this.unreachable(outcome);
    this.logger.warn('upstream connection lost under a request', { error: this.words.forLog(outcome) });
    this.checkAfterLoss();
    return err({ kind: 'upstream_unavailable', upstream: this.name, reason: reasonOf(outcome) });
  }

  /** What nobody waits on (probes, checks, answers to the upstream's requests, cancellations) reports errors as values; a rejection is a bug, logged. */
  private readonly bestEffort = (e: unknown): void => this.logger.warn('upstream background request failed', { error: (e as Error).message });

  /** A request on a call's POST stream (the caller answers) or the GET stream (the one client
   * this session serves answers, if any); otherwise it is refused at once. */
  private async answerServerRequest(era: Era, r: JsonRpcRequest, ask: UpstreamRequest['ask']): Promise<void> {
    const reply = await answerServerRequest(r, era === 'legacy' ? ask : undefined, this.config.timeoutMs);
    await this.link.post({ headers: this.headers.for(era, 'response'), body: { jsonrpc: '2.0', ...reply } });
  }

  private async cancelLegacy(requestId: number, reason: string): Promise<void> {
    await this.link.post({ headers: this.headers.for('legacy', 'notifications/cancelled'), body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } } });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reprobeTimer);
    this.closeStreams();
    if (this.era === 'legacy' && this.sessionId) await this.link.delete(this.headers.for('legacy', 'DELETE'));
    if (!this.only.link) await this.link.close();
  }
}
