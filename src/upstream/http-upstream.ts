// A Streamable HTTP upstream: one undici pool (keep-alive), era detected by a modern
// `server/discover` probe with legacy `initialize` fallback (spec digest b.7), the answer
// cached and probed again when the upstream stops working. Legacy sessions are created,
// reused and re-created on 404 without the downstream client noticing (g.3 step 1).
import { Pool } from 'undici';
import type { HttpUpstreamConfig } from '../config/types.ts';
import type { GatewayError } from '../jsonrpc/errors.ts';
import type { JsonObject, JsonRpcRequest } from '../jsonrpc/message.ts';
import { isErrorResponse } from '../jsonrpc/message.ts';
import { err, ok, type Result } from '../jsonrpc/result.ts';
import type { Logger } from '../logger.ts';
import { discoverParams, identityFromDiscover, identityFromInitialize, initializeParams, isModernError, shapeParams } from './era-shape.ts';
import { encodeHeaderValue } from '../headers/header-value.ts';
import { describeNetworkError as describe, headerString, type ExchangeOutcome } from './http-exchange.ts';
import { authorizedExchange, withCredentials } from './authorized-exchange.ts';
import { createUpstreamCredentials } from './upstream-credentials.ts';
import { UpstreamBase } from './upstream-base.ts';
import { NotificationStream } from './notification-stream.ts';
import { LEGACY_VERSION, MODERN_VERSION, type Era, type UpstreamRequest } from './upstream.ts';

const FIRST_REPROBE_MS = 500;
const MAX_REPROBE_MS = 5000;
const RESERVED_HEADER = /^(mcp-|host$|content-length$|content-type$|accept$|connection$|transfer-encoding$)/i;

export class HttpUpstream extends UpstreamBase<HttpUpstreamConfig> {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly staticHeaders: Record<string, string>;
  private era: Era | undefined;
  private sessionId: string | undefined;
  /** Legacy handshake done. Separate from sessionId: a stateless legacy server mints none. */
  private legacyReady = false;
  private legacyVersion = LEGACY_VERSION;
  private probing: Promise<Result<Era, GatewayError>> | undefined;
  private nextId = 1;
  private stream: NotificationStream | undefined;
  private reprobeTimer: NodeJS.Timeout | undefined;
  private reprobeDelay = FIRST_REPROBE_MS;
  private readonly credentials = createUpstreamCredentials(this.config, this.logger); // the upstream's own, never the client's

  constructor(config: HttpUpstreamConfig, logger: Logger) {
    super(config, 'http', logger);
    const url = new URL(config.url);
    this.pool = new Pool(url.origin, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1 });
    this.path = url.pathname + url.search;
    // Computed Mcp-* and framing headers can never be overridden by configured ones (issue 3).
    this.staticHeaders = {};
    for (const [k, v] of Object.entries(config.headers)) {
      if (!RESERVED_HEADER.test(k)) this.staticHeaders[k.toLowerCase()] = v;
    }
  }

  override currentEra(): Era | undefined {
    return this.era;
  }

  async start(): Promise<void> {
    await this.ready();
  }

  async request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    const ready = await this.ready();
    if (!ready.ok) return ready;
    const first = await this.send(ready.value, req);
    if (first.ok || first.error.kind !== 'session_not_found') return first;
    // The upstream forgot our legacy session: start a new one and retry once (g.3 step 1).
    this.logger.info('upstream session expired, re-initializing', { upstream: this.name });
    this.sessionId = undefined;
    this.legacyReady = false;
    const again = await this.ready();
    if (!again.ok) return again;
    const second = await this.send(again.value, req);
    return !second.ok && second.error.kind === 'session_not_found'
      ? err({ kind: 'upstream_unavailable', upstream: this.name, reason: 'session rejected twice' })
      : second;
  }

  private ready(): Promise<Result<Era, GatewayError>> {
    if (this.era === 'modern' || (this.era === 'legacy' && this.legacyReady)) return Promise.resolve(ok(this.era));
    this.probing ??= this.probe().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  private headersFor(era: Era, method: string, extra?: Readonly<Record<string, string>>): Record<string, string> {
    const h: Record<string, string> = {
      ...this.staticHeaders,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-method': method,
    };
    if (era === 'modern') h['mcp-protocol-version'] = MODERN_VERSION;
    else if (method !== 'initialize') h['mcp-protocol-version'] = this.legacyVersion;
    if (era === 'legacy' && this.sessionId && method !== 'initialize') h['mcp-session-id'] = this.sessionId;
    if (extra) for (const [k, v] of Object.entries(extra)) h[k.toLowerCase()] = v;
    return h;
  }

  private async probe(): Promise<Result<Era, GatewayError>> {
    const disc = await authorizedExchange(this.credentials, {
      pool: this.pool,
      path: this.path,
      headers: this.headersFor('modern', 'server/discover'),
      body: { jsonrpc: '2.0', id: this.nextId++, method: 'server/discover', params: discoverParams() },
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
    if (disc.kind === 'credentials_failed') return this.fail(disc.error.reason);
    if (disc.kind === 'network_error') return this.fail(`cannot reach ${this.config.url}: ${describe(disc.error)}`);
    if (disc.kind === 'response' && !isErrorResponse(disc.message)) {
      this.era = 'modern';
      this.setIdentity(identityFromDiscover(disc.message.result));
      this.markUp();
      this.openStream();
      return ok('modern');
    }
    const modernErr = disc.kind === 'response' || disc.kind === 'http_error' ? disc.message : undefined;
    if (modernErr && isErrorResponse(modernErr) && isModernError(modernErr.error)) {
      return this.fail(`upstream speaks the modern era but rejected discovery: ${modernErr.error.message}`);
    }
    return this.initialize();
  }

  private async initialize(): Promise<Result<Era, GatewayError>> {
    const init = await authorizedExchange(this.credentials, {
      pool: this.pool,
      path: this.path,
      headers: this.headersFor('legacy', 'initialize'),
      body: { jsonrpc: '2.0', id: this.nextId++, method: 'initialize', params: initializeParams() },
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
    if (init.kind === 'credentials_failed') return this.fail(init.error.reason);
    if (init.kind === 'network_error') return this.fail(`cannot reach ${this.config.url}: ${describe(init.error)}`);
    if (init.kind !== 'response' || isErrorResponse(init.message)) {
      const why = init.kind === 'response' && isErrorResponse(init.message) ? init.message.error.message : `HTTP ${init.status}`;
      return this.fail(`neither server/discover nor initialize succeeded (${why})`);
    }
    const result = init.message.result;
    this.sessionId = headerString(init.headers['mcp-session-id']) || undefined;
    if (typeof result.protocolVersion === 'string') this.legacyVersion = result.protocolVersion;
    this.era = 'legacy';
    this.setIdentity(identityFromInitialize(result));
    await authorizedExchange(this.credentials, {
      pool: this.pool,
      path: this.path,
      headers: this.headersFor('legacy', 'notifications/initialized'),
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
    this.legacyReady = true;
    this.markUp();
    this.openStream();
    return ok('legacy');
  }

  private openStream(): void {
    this.stream?.close();
    const era = this.era;
    if (!era) return;
    this.stream = new NotificationStream({
      pool: this.pool,
      path: this.path,
      era,
      capabilities: this.identity()?.capabilities ?? {},
      headers: () => this.headersFor(era, era === 'modern' ? 'subscriptions/listen' : 'GET'),
      credentials: this.credentials,
      onNotification: (n) => this.handleNotification(n),
      logger: this.logger,
    });
    this.stream.open();
  }

  /** It stopped working: forget era and session so the next request probes again, and stop
   * the notification stream (it would retry a dead URL or a forgotten session); the next
   * successful probe opens a fresh one. */
  private fail(reason: string): Result<never, GatewayError> {
    this.era = undefined;
    this.sessionId = undefined;
    this.legacyReady = false;
    this.stream?.close();
    this.stream = undefined;
    this.markDown(reason);
    this.scheduleReprobe();
    return err({ kind: 'upstream_unavailable', upstream: this.name, reason });
  }

  /** A down upstream is probed again in the background with backoff, so /readyz and the
   * merged lists recover without waiting for a client request to reach it. */
  private scheduleReprobe(): void {
    if (this.closed || this.reprobeTimer) return;
    const delay = this.reprobeDelay;
    this.reprobeDelay = Math.min(this.reprobeDelay * 2, MAX_REPROBE_MS);
    this.reprobeTimer = setTimeout(() => {
      this.reprobeTimer = undefined;
      if (this.closed || this.era) return;
      void this.ready().then((r) => {
        if (r.ok) this.reprobeDelay = FIRST_REPROBE_MS;
      });
    }, delay);
    this.reprobeTimer.unref();
  }

  private async send(era: Era, req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    const id = this.nextId++;
    const method = req.method;
    const name = method === 'resources/read' ? req.params.uri : req.params.name;
    const headers = this.headersFor(era, method, req.paramHeaders);
    if (req.traceHeaders) for (const [k, v] of Object.entries(req.traceHeaders)) headers[k.toLowerCase()] = v;
    if (era === 'modern' && typeof name === 'string' && /^(tools\/call|prompts\/get|resources\/read)$/.test(method)) {
      headers['mcp-name'] = encodeHeaderValue(name);
    }
    // One controller and one timer per call: cheaper than AbortSignal.timeout + .any on the
    // hot path, and it tells a timeout apart from a client that went away.
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new DOMException('upstream timeout', 'TimeoutError'));
    }, this.config.timeoutMs);
    const onClientAbort = (): void => abort.abort(req.signal?.reason);
    if (req.signal?.aborted) onClientAbort();
    else req.signal?.addEventListener('abort', onClientAbort, { once: true });
    const signal = abort.signal;
    const outcome = await authorizedExchange(this.credentials, {
      pool: this.pool,
      path: this.path,
      headers,
      body: { jsonrpc: '2.0', id, method, params: shapeParams(req, era) },
      signal,
      onNotification: (n) => {
        if (!this.handleNotification(n)) req.onNotification?.(n);
      },
      onServerRequest: (r) => void this.answerServerRequest(era, r),
    });
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onClientAbort);
    if (signal.aborted && era === 'legacy') void this.cancelLegacy(id, timedOut ? 'timeout' : 'client disconnected');
    return outcome.kind === 'credentials_failed' ? err(outcome.error) : this.toResult(outcome, timedOut);
  }

  private toResult(outcome: ExchangeOutcome, timedOut: boolean): Result<JsonObject, GatewayError> {
    if (timedOut) return err({ kind: 'upstream_timeout', upstream: this.name, timeoutMs: this.config.timeoutMs });
    switch (outcome.kind) {
      case 'response':
        return isErrorResponse(outcome.message)
          ? err({ kind: 'upstream_error', upstream: this.name, error: outcome.message.error })
          : ok(outcome.message.result);
      case 'accepted':
        return err({ kind: 'upstream_unavailable', upstream: this.name, reason: 'answered a request with 202 and no response' });
      case 'http_error':
        if (outcome.status === 404 && this.era === 'legacy' && this.sessionId) return err({ kind: 'session_not_found' });
        if (outcome.message && isErrorResponse(outcome.message)) {
          return err({ kind: 'upstream_error', upstream: this.name, error: outcome.message.error });
        }
        return err({ kind: 'upstream_unavailable', upstream: this.name, reason: `HTTP ${outcome.status}` });
      case 'network_error': {
        // Name the URL: this reason becomes lastError in /readyz and the "upstream down" log.
        const reason = `connection to ${this.config.url} failed: ${describe(outcome.error)}`;
        if (outcome.error.name !== 'AbortError' && !this.closed) return this.fail(reason);
        return err({ kind: 'upstream_unavailable', upstream: this.name, reason });
      }
    }
  }

  /** Legacy upstreams may start requests on a POST stream; the gateway declared no client
   * capabilities, so only `ping` gets an answer and anything else a method-not-found. */
  private async answerServerRequest(era: Era, r: JsonRpcRequest): Promise<void> {
    const reply: JsonObject = r.method === 'ping'
      ? { jsonrpc: '2.0', id: r.id, result: {} }
      : { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `Gatehouse does not relay ${r.method} to this client` } };
    await authorizedExchange(this.credentials, { pool: this.pool, path: this.path, headers: this.headersFor(era, 'response'), body: reply });
  }

  /** Legacy: a disconnect is not a cancel; tell the upstream explicitly (digest b.3, g.3 step 7). */
  private async cancelLegacy(requestId: number, reason: string): Promise<void> {
    await authorizedExchange(this.credentials, {
      pool: this.pool,
      path: this.path,
      headers: this.headersFor('legacy', 'notifications/cancelled'),
      body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } },
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reprobeTimer);
    this.stream?.close();
    if (this.era === 'legacy' && this.sessionId) {
      await this.pool
        .request({ path: this.path, method: 'DELETE', headers: await withCredentials(this.credentials, this.headersFor('legacy', 'DELETE')), signal: AbortSignal.timeout(1000) })
        .then((r) => r.body.dump())
        .catch(() => undefined);
    }
    // destroy, not close: close() waits for in-flight calls, whose callers are already gone
    // (the server cut their connections), so shutdown would wait out the longest tool call.
    await this.pool.destroy().catch(() => undefined);
    await this.credentials?.close();
  }
}
