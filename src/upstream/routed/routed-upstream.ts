// A routed upstream: one configured name over a set of Streamable HTTP targets, one
// HttpUpstream per distinct URL. tools/call picks its target from the decoded value of
// `Mcp-Param-<by>` (config `route`); everything else — lists, prompts, resources,
// completion — goes to one list source (`default`, else the first target), so the catalog
// sees one consistent set of tools whatever the calls did. The targets are expected to
// serve the same tools; the schema that computes the headers comes from the list source.
//
// The value routed on is the one the gateway computed from the call's own arguments
// (gateway.ts, `paramHeaders`), never a raw client header: legacy clients send none, and
// for modern clients the gateway has already checked theirs against the body (MCP 2026-07-28, basic/transports/streamable-http (request headers),
// "an intermediary that bases routing on mirrored headers"). Era, sessions and retries stay
// inside each HttpUpstream.
import type { AnswerBudget } from '../../limits/answer-budget.ts';
import type { HttpRoute, HttpUpstreamConfig } from '../../config/types.ts';
import { decodeHeaderValue } from '../../headers/header-value.ts';
import { MCP_PARAM_HEADER_PREFIX } from '../../headers/param-headers.ts';
import type { GatewayError } from '../../protocol/errors.ts';
import type { JsonObject } from '../../protocol/message.ts';
import { err, ok, type Result } from '../../protocol/result.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { loggableUrl } from '../http/failure-text.ts';
import { HttpUpstream } from '../http/http-upstream.ts';
import { chooseTarget } from './route-match.ts';
import type { Era } from '../../protocol/versions.ts';
import type { Upstream, UpstreamEvent, UpstreamIdentity, UpstreamRequest, UpstreamState, UpstreamStatus } from '../upstream.ts';

// Values come from clients; keep messages and log lines bounded.
const MAX_SHOWN = 200;

export class RoutedUpstream implements Upstream {
  readonly name: string;
  private readonly route: HttpRoute;
  private readonly header: string;
  private readonly logger: Logger;
  /** By URL, list source first. */
  private readonly targets = new Map<string, HttpUpstream>();
  /** Each target's URL as logs and /readyz show it: no userinfo or query (they may hold a
   * secret); the path stays, as targets may differ only in it. */
  private readonly shown = new Map<string, string>();
  private readonly listSource: HttpUpstream;
  private readonly listeners: ((ev: UpstreamEvent) => void)[] = [];
  private state: UpstreamState = 'starting';
  private since = Date.now();

  constructor(
    readonly config: HttpUpstreamConfig,
    logger: Logger,
    budget?: AnswerBudget,
  ) {
    if (config.route === undefined) throw new Error(`upstream "${config.name}" has no route`);
    this.name = config.name;
    this.route = config.route;
    this.header = MCP_PARAM_HEADER_PREFIX + config.route.by;
    this.logger = logger.child({ upstream: config.name });
    const { route, ...plain } = config;
    // Normalization made `url` the list source, so it comes first and lists have one source.
    const urls = new Set([config.url, ...route.targets.map((t) => t.url), ...(route.default === undefined ? [] : [route.default])]);
    for (const url of urls) {
      this.shown.set(url, loggableUrl(url));
      const target = new HttpUpstream({ ...plain, url }, logger.child({ target: this.shown.get(url) }), budget);
      target.onEvent((ev) => this.forward(ev));
      this.targets.set(url, target);
    }
    this.listSource = this.targets.get(config.url)!;
  }

  async start(): Promise<void> {
    await Promise.all([...this.targets.values()].map((t) => t.start()));
  }

  async request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    if (req.method !== 'tools/call') return this.listSource.request(req);
    const value = this.routeValue(req.paramHeaders);
    if (!value.ok) return value;
    const tool = req.params.name;
    if (value.value === undefined) {
      this.logger.debug('routed tools/call without the route header to the list source', { tool, header: this.header, target: this.shown.get(this.config.url) });
      return this.listSource.request(req);
    }
    const choice = chooseTarget(this.route, value.value);
    if (choice.kind === 'unmatched') {
      const shown = bounded(value.value);
      return err({
        kind: 'invalid_params',
        message: `Upstream "${this.name}" has no target for ${this.header} value '${shown}'`,
        data: { upstream: this.name, header: this.header, value: shown },
      });
    }
    const pattern = choice.kind === 'pattern' ? choice.pattern : 'default';
    this.logger.debug('routed tools/call', { tool, header: this.header, value: bounded(value.value), pattern, target: this.shown.get(choice.url) });
    return this.targets.get(choice.url)!.request(req);
  }

  /** The decoded route value; undefined when the tool has no such header or the argument is absent. */
  private routeValue(headers: Readonly<Record<string, string>> | undefined): Result<string | undefined, GatewayError> {
    const wanted = this.header.toLowerCase();
    // Header names are case-insensitive (RFC 9110 5.1), and `by` need not match the tool's spelling.
    const raw = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === wanted)?.[1];
    if (raw === undefined) return ok(undefined);
    const decoded = decodeHeaderValue(raw);
    if (decoded.ok) return decoded;
    return err({ kind: 'invalid_params', message: `Upstream "${this.name}" cannot route on ${this.header}: ${decoded.error}` });
  }

  knownEra(): Era | undefined {
    return this.listSource.knownEra();
  }

  status(): UpstreamStatus {
    const lastError = this.describeDown();
    return {
      name: this.name,
      transport: 'http',
      state: this.state,
      era: this.listSource.knownEra(),
      since: this.since,
      ...(lastError ? { lastError } : {}),
    };
  }

  identity(): UpstreamIdentity | undefined {
    return this.listSource.identity();
  }

  onEvent(listener: (ev: UpstreamEvent) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    await Promise.all([...this.targets.values()].map((t) => t.close()));
  }

  /**
   * Change notifications of every target pass through: any of them may mean the tools
   * changed, and the catalog then re-lists from the list source. Target state changes become
   * changes of the set's state, so listeners never see "up" while a target is down.
   */
  private forward(ev: UpstreamEvent): void {
    if (ev.type !== 'state') {
      this.emit(ev);
      return;
    }
    const states = [...this.targets.values()].map((t) => t.status().state);
    const next: UpstreamState = states.every((s) => s === 'up') ? 'up' : states.includes('down') ? 'down' : 'starting';
    if (next === this.state) return;
    this.state = next;
    this.since = Date.now();
    const error = this.describeDown();
    this.emit({ type: 'state', state: next, ...(error ? { error } : {}) });
  }

  /** Names each failing target by URL (as shown), so an operator knows which one to look at. */
  private describeDown(): string | undefined {
    const down = [...this.targets].flatMap(([url, t]) => {
      const s = t.status();
      return s.state === 'down' ? [`target ${this.shown.get(url)}: ${s.lastError ?? 'down'}`] : [];
    });
    return down.length > 0 ? down.join('; ') : undefined;
  }

  private emit(ev: UpstreamEvent): void {
    for (const l of this.listeners) l(ev);
  }
}

function bounded(value: string): string {
  return value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
}
