// An HTTP upstream reached as each calling user (`auth: { type: user }`): one HttpUpstream per
// principal that has connected, each with that user's token (user-tokens.ts) and its own
// connection, era probe and legacy session, so nothing one user's token opened is ever reused
// for another (the credential is chosen by the authenticated principal on the request alone).
// Lists are made private per user (cacheScope), so the catalog keeps one copy per caller.
// A caller without a token gets `consent_required` for calls, and for lists either the tools
// last listed for someone whose list the upstream declared public (`withoutConsent: show`, so
// they can be discovered) or nothing (`hide`).
import { LRUCache } from 'lru-cache';
import type { AnswerBudget } from '../limits/answer-budget.ts';
import type { HttpUpstreamConfig } from '../config/types.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { LIST_METHODS } from '../protocol/list-kinds.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import type { Era } from '../protocol/versions.ts';
import type { Logger } from '../telemetry/logger.ts';
import { HttpUpstream } from '../upstream/http/http-upstream.ts';
import { PerClientUpstream } from '../upstream/http/per-client-upstream.ts';
import { UpstreamBase } from '../upstream/upstream-base.ts';
import type { UpstreamIdentity, UpstreamRequest, UpstreamStatus } from '../upstream/upstream.ts';
import { stripConsentAnswer } from './consent-answer.ts';
import { userCredentials } from './user-credentials.ts';
import { CONNECT_TOOL, connectTool } from './connect-tool.ts';
import { isJsonObject } from '../protocol/message.ts';
import type { UserAccess } from './user-access.ts';

/** Most per-user connections kept open; the least recently used is closed (and reopened on use). */
export const MAX_USER_CONNECTIONS = 1000;
const LIST_METHOD_NAMES: ReadonlySet<string> = new Set(Object.values(LIST_METHODS).map((l) => l.method));

export interface UserUpstreamDeps {
  access: UserAccess;
  /** Read on use: a config reload may change it. */
  withoutConsent: () => 'show' | 'hide';
  logger: Logger;
  budget?: AnswerBudget;
}

export class UserUpstream extends UpstreamBase<HttpUpstreamConfig> {
  private readonly users: LRUCache<string, HttpUpstream | PerClientUpstream>;
  /** The last list of each method that an upstream answered as public, for `show`. */
  private readonly shown = new Map<string, JsonObject>();
  private era: Era | undefined;
  /** What the last user's connection to come up learnt of the upstream (its capabilities: tasks). */
  private learnt: UpstreamIdentity | undefined;

  constructor(config: HttpUpstreamConfig, private readonly d: UserUpstreamDeps) {
    super(config, 'http', d.logger);
    this.users = new LRUCache<string, HttpUpstream | PerClientUpstream>({
      max: MAX_USER_CONNECTIONS,
      dispose: (u) => {
        if (!this.closed) void u.close().catch(() => undefined);
      },
    });
  }

  override status(): UpstreamStatus {
    return { ...super.status(), era: this.era, userAuth: { note: this.note(), withoutConsent: this.d.withoutConsent() } };
  }

  private note(): string {
    if (this.d.access.kind === 'exchange') return this.d.access.note;
    const lists = this.d.withoutConsent() === 'show' ? 'its tools as last listed, and a connect tool' : 'only a connect tool';
    return `${this.d.access.note}, and sees ${lists}`;
  }

  protected currentEra(): Era | undefined {
    return this.era;
  }

  override identity(): UpstreamIdentity | undefined {
    return this.learnt;
  }

  /** Finds the authorization server now, so that a misconfigured one shows in /readyz at boot. */
  async start(): Promise<void> {
    this.logger.info('upstream reached as each user', { note: this.note() });
    const found = await this.d.access.ready(this.name);
    if (found.ok) this.markUp();
    else this.markDown(`per-user authorization: ${found.error}`);
  }

  async request(req: UpstreamRequest): Promise<Result<JsonObject, GatewayError>> {
    const who = req.principal;
    const isList = LIST_METHOD_NAMES.has(req.method);
    if (who === undefined || who.method === 'anonymous') return isList ? ok(this.withoutToken(req.method)) : this.d.access.missing(who, this.name);
    const token = await this.d.access.current(who.authContext, this.name);
    // A list stays discoverable while the token cannot be had; a call says why it cannot run.
    if (!token.ok) return isList ? ok(this.withoutToken(req.method)) : token;
    if (token.value.kind === 'none') return isList ? ok(this.withoutToken(req.method)) : this.d.access.missing(who, this.name);
    if (this.d.access.kind === 'consent' && req.method === 'tools/call' && req.params.name === CONNECT_TOOL) {
      // The way in of a caller without a token, called again after consent: done.
      return ok({ content: [{ type: 'text', text: `Your account at "${this.name}" is connected.` }] });
    }
    const child = this.child(who.authContext);
    const res = await child.request({ ...req, params: stripConsentAnswer(req.params) });
    if (!res.ok) {
      // The token was refused and could not be renewed: the tokens are gone, consent again.
      const now = await this.d.access.current(who.authContext, this.name);
      if (now.ok && now.value.kind === 'none') return isList ? ok(this.withoutToken(req.method)) : this.d.access.missing(who, this.name);
      return res;
    }
    if (isList) {
      if (res.value.cacheScope !== 'private') this.shown.set(req.method, res.value);
      return ok({ ...res.value, cacheScope: 'private' });
    }
    return res;
  }

  private child(authContext: string): HttpUpstream | PerClientUpstream {
    let u = this.users.get(authContext);
    if (u === undefined) {
      const credentials = userCredentials(this.config, this.d.access, authContext, this.logger);
      // perClient composes: each of this user's client sessions gets its own upstream session.
      u = this.config.session.mode === 'perClient' ? new PerClientUpstream(this.config, this.d.logger, this.d.budget, credentials) : new HttpUpstream(this.config, this.d.logger, this.d.budget, credentials);
      u.onEvent((ev) => {
        if (ev.type === 'list_changed' || ev.type === 'resource_updated' || ev.type === 'limit_hit') this.emit(ev);
        // A task id is the upstream's for this user's connection only: say whose it is.
        if (ev.type === 'task_status') this.emit({ ...ev, scope: authContext });
        if (ev.type === 'state' && ev.state === 'up') {
          this.era = u?.status().era;
          this.learnt = u?.identity();
        }
      });
      this.users.set(authContext, u);
    }
    return u;
  }

  private withoutToken(method: string): JsonObject {
    const field = Object.values(LIST_METHODS).find((l) => l.method === method)?.field ?? 'tools';
    const shown = this.d.withoutConsent() === 'show' ? this.shown.get(method) : undefined;
    const items = shown !== undefined && Array.isArray(shown[field]) ? [...shown[field]] : [];
    // Always one way in: calling it (like any tool of this upstream) asks for consent.
    if (this.d.access.kind === 'consent' && field === 'tools' && !items.some((t) => isJsonObject(t) && t.name === CONNECT_TOOL)) items.push(connectTool(this.name));
    // Not cached: the caller may connect at any moment, and their own list must then be fetched.
    return { [field]: items, cacheScope: 'private', ttlMs: 0 };
  }

  /** Asked on this user's connection only; none is opened for it. */
  followTasks(taskIds: readonly string[], authContext: string): void {
    this.users.peek(authContext)?.followTasks(taskIds);
  }

  /** Forgets the user's connection (after a disconnect), so no later call reuses its session. */
  async forget(authContext: string): Promise<void> {
    const u = this.users.get(authContext);
    this.users.delete(authContext);
    await u?.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.users.values()];
    this.users.clear();
    await Promise.all(all.map((u) => u.close().catch(() => undefined)));
  }
}
