// Resource subscriptions in both eras: resources/subscribe and resources/unsubscribe of
// 2025-11-25 sessions (MCP 2025-11-25, server/resources (subscriptions)) and the
// `resourceSubscriptions` of a 2026-07-28 `subscriptions/listen` (MCP 2026-07-28,
// basic/patterns/subscriptions). The exposed URI (prefixed, or a gatehouse:// alias) is
// routed to the upstream that owns it and judged by policy as resources/read judges it; the
// upstream is subscribed once per URI however many subscribers there are (reference
// counted), and unsubscribed when the last one unsubscribes, its session ends or its listen
// stream closes. The upstream's notifications/resources/updated reach every subscriber,
// under the URI each used. Served only where the upstream itself subscribes (it advertises
// resources.subscribe): a 2025-11-25 upstream is sent resources/subscribe, a 2026-07-28 one
// gets the URI in the resourceSubscriptions of the gateway's own listen stream to it
// (upstream/http). Left to others: the streams that carry the notifications (the
// transport's deliver, the listen stream's sink). State is in memory, per replica, like the
// streams themselves; both bounds below are per replica.
import type { Catalog } from '../catalog/catalog.ts';
import { invalidUriMessage } from '../catalog/resource-routing.ts';
import { NO_RECORD, type Call, type CallRecord, type Handled } from '../protocol/call.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcNotification } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { unknownError, type Enforcer } from '../policy/enforcer.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { Principal } from '../identity/principal.ts';

/** One subscriber's (session's or listen stream's) subscriptions at most; a client that wants more has a runaway loop. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 256;
/** All sessions' subscriptions at most, so subscriptions cannot grow memory without bound. */
export const MAX_SUBSCRIPTIONS = 65_536;

export interface SubscriptionDeps {
  catalog: Catalog;
  enforcer: Enforcer;
  /** The upstreams now (a config reload changes them). */
  upstreams: () => readonly Upstream[];
  /** Sends a notification to a session's GET stream (dropped when it has none open). */
  deliver(sessionId: string, n: JsonRpcNotification): void;
}

type Reply = Result<JsonObject, GatewayError>;
/** `exposed`: the URI as the client spelled it (updates go out under it); `listed`: as listed;
 * `sessionId`: the subscriber (a legacy session's id, or a listen stream's own key). */
type Route = { upstream: Upstream; uri: string; exposed: string; listed: string; sessionId: string };
type Who = { principal: Principal; authContext: string };

/** A listen stream's subscriber key never equals a session id (those are sealed tokens). */
const LISTEN_PREFIX = 'listen\u0000';

/** Upstream name + NUL + the upstream's own URI. */
const keyOf = (upstream: string, uri: string): string => `${upstream}\u0000${uri}`;

/** 2025-11-25 upstreams take resources/subscribe; 2026-07-28 ones (HTTP or stdio) a listen. */
export function subscribes(u: Upstream): boolean {
  const res = u.identity()?.capabilities.resources;
  return u.status().era !== undefined && isJsonObject(res) && res.subscribe === true;
}

export class ResourceSubscriptions {
  /** upstream key -> session -> the exposed URIs that session subscribed with. */
  private readonly byResource = new Map<string, Map<string, Set<string>>>();
  private readonly perSession = new Map<string, number>();
  private total = 0;
  private readonly watched = new WeakSet<Upstream>();
  /** Listen streams' sinks by subscriber key. */
  private readonly sinks = new Map<string, (n: JsonRpcNotification) => void>();
  private listens = 0;

  constructor(private readonly deps: SubscriptionDeps) {
    for (const u of deps.upstreams()) this.watch(u);
  }

  /** Relays this upstream's updates while it is the one serving its name (watch each new one;
   * watching one twice is watching it once). */
  watch(u: Upstream): void {
    if (this.watched.has(u)) return;
    this.watched.add(u);
    u.onEvent((ev) => {
      if (ev.type === 'resource_updated' && this.deps.upstreams().includes(u)) this.updated(u.name, ev.uri);
    });
  }

  /** Whether any upstream lets clients subscribe (the resources.subscribe capability). */
  offered(): boolean {
    return this.deps.upstreams().some(subscribes);
  }

  readonly subscribe = async (call: Call): Promise<Handled> => {
    const found = await this.routeCall(call);
    if (!found.ok) return { reply: found, record: NO_RECORD };
    return { reply: await this.add(found.value, call), record: recordOf(found.value) };
  };

  readonly unsubscribe = async (call: Call): Promise<Handled> => {
    const found = await this.routeCall(call);
    if (!found.ok) return { reply: found, record: NO_RECORD };
    return { reply: await this.remove(found.value, call), record: recordOf(found.value) };
  };

  /** A 2026-07-28 listen stream's resourceSubscriptions: those it may have are subscribed,
   * and their updates go to `sink`; returns the URIs honoured (for the acknowledgement) and
   * what ends them all (the stream closed). */
  async listen(who: Who, uris: readonly string[], sink: (n: JsonRpcNotification) => void): Promise<{ honoured: string[]; end: () => void }> {
    const key = `${LISTEN_PREFIX}${++this.listens}`;
    this.sinks.set(key, sink);
    const honoured: string[] = [];
    for (const asked of new Set(uris)) {
      if (typeof asked !== 'string') continue;
      const found = await this.route(asked, who, key);
      if (found.ok && (await this.add(found.value, { clientCapabilities: {} })).ok) honoured.push(asked);
    }
    return {
      honoured,
      end: () => {
        this.sinks.delete(key);
        this.dropSession(key);
      },
    };
  }

  private async add({ upstream, uri, exposed, sessionId }: Route, call: Pick<Call, 'clientCapabilities'> & { signal?: AbortSignal }): Promise<Reply> {
    const key = keyOf(upstream.name, uri);
    const sessions = this.byResource.get(key);
    if (sessions?.get(sessionId)?.has(exposed)) return ok({});
    if ((this.perSession.get(sessionId) ?? 0) >= MAX_SUBSCRIPTIONS_PER_SESSION || this.total >= MAX_SUBSCRIPTIONS) {
      return err({ kind: 'invalid_params', message: `Too many resource subscriptions (at most ${MAX_SUBSCRIPTIONS_PER_SESSION} per session)` });
    }
    if (sessions === undefined) {
      // First subscriber: the upstream hears of it once, before the client is told yes.
      const sent = await upstream.request({ method: 'resources/subscribe', params: { uri }, clientCapabilities: call.clientCapabilities, ...(call.signal ? { signal: call.signal } : {}) });
      if (!sent.ok) return sent;
    }
    const entry = this.byResource.get(key) ?? new Map<string, Set<string>>();
    this.byResource.set(key, entry);
    const uris = entry.get(sessionId) ?? new Set<string>();
    entry.set(sessionId, uris.add(exposed));
    this.perSession.set(sessionId, (this.perSession.get(sessionId) ?? 0) + 1);
    this.total++;
    return ok({});
  }

  private async remove({ upstream, uri, exposed, sessionId }: Route, call: Call): Promise<Reply> {
    const entry = this.byResource.get(keyOf(upstream.name, uri));
    const uris = entry?.get(sessionId);
    // Unsubscribing from what was not subscribed to changes nothing and is not an error.
    if (!entry || !uris?.delete(exposed)) return ok({});
    this.forgetOne(sessionId);
    if (uris.size === 0) entry.delete(sessionId);
    if (entry.size === 0) return this.release(upstream, uri, call);
    return ok({});
  }

  /** A session ended: its subscriptions go, and upstreams no one else watches are released. */
  dropSession(sessionId: string): void {
    if (!this.perSession.has(sessionId)) return;
    for (const [key, entry] of this.byResource) {
      const uris = entry.get(sessionId);
      if (!uris) continue;
      this.total -= uris.size;
      entry.delete(sessionId);
      if (entry.size > 0) continue;
      const [name, uri] = key.split('\u0000') as [string, string];
      const upstream = this.deps.upstreams().find((u) => u.name === name);
      // Nobody is left to tell of a failed unsubscribe; the upstream answers errors as values.
      if (upstream) void this.release(upstream, uri).catch(() => undefined);
    }
    this.perSession.delete(sessionId);
  }

  private updated(upstream: string, uri: string): void {
    const entry = this.byResource.get(keyOf(upstream, uri));
    if (!entry) return;
    for (const [sessionId, uris] of entry) {
      const sink = this.sinks.get(sessionId);
      for (const exposed of uris) {
        const n: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: exposed } };
        if (sink) sink(n);
        else this.deps.deliver(sessionId, n);
      }
    }
  }

  private async release(upstream: Upstream, uri: string, call?: Call): Promise<Reply> {
    this.byResource.delete(keyOf(upstream.name, uri));
    const sent = await upstream.request({ method: 'resources/unsubscribe', params: { uri }, clientCapabilities: call?.clientCapabilities ?? {}, ...(call ? { signal: call.signal } : {}) });
    return sent.ok ? ok({}) : sent;
  }

  private forgetOne(sessionId: string): void {
    this.total--;
    const left = (this.perSession.get(sessionId) ?? 1) - 1;
    if (left > 0) this.perSession.set(sessionId, left);
    else this.perSession.delete(sessionId);
  }

  private async routeCall(call: Call): Promise<Result<Route, GatewayError>> {
    const asked = call.params.uri;
    if (typeof asked !== 'string') return err({ kind: 'invalid_params', message: `${call.method} needs a string "uri"` });
    if (call.sessionId === undefined) return err({ kind: 'method_not_found', method: call.method });
    return this.route(asked, call, call.sessionId);
  }

  /** The owner of the exposed URI, as resources/read resolves and judges it. */
  private async route(asked: string, call: Who, subscriber: string): Promise<Result<Route, GatewayError>> {
    const { catalog, enforcer } = this.deps;
    const routed = await catalog.routeResource(asked, call.authContext);
    if (!routed.ok) return err({ kind: 'invalid_params', message: invalidUriMessage(routed.error) });
    const route = routed.value;
    if (!route) return err(unknownError({ kind: 'resource', name: asked }));
    const listed = (await catalog.item('resources', route.exposed, call.authContext)) ?? (await catalog.item('resourceTemplates', route.exposed, call.authContext));
    const seen = listed ?? { item: { uri: route.exposed }, origin: { upstream: route.upstream, original: route.uri } };
    // A resource policy hides is as missing here as in resources/read, and so is every uri of
    // a template it hides.
    const template = route.template === undefined ? undefined : await catalog.item('resourceTemplates', route.template, call.authContext);
    if (
      !enforcer.visible(call.principal, seen.item.uriTemplate !== undefined ? 'resourceTemplates' : 'resources', seen.item, seen.origin) ||
      (template !== undefined && !enforcer.visible(call.principal, 'resourceTemplates', template.item, template.origin))
    ) {
      return err(unknownError({ kind: 'resource', name: asked }));
    }
    // Gone when a config reload removed its upstream while this was being routed.
    const upstream = catalog.upstream(route.upstream);
    if (upstream === undefined) return err(unknownError({ kind: 'resource', name: asked }));
    if (!subscribes(upstream)) return err({ kind: 'invalid_params', message: `Resource subscriptions are not offered for ${asked}` });
    return ok({ upstream, uri: route.uri, exposed: asked, listed: route.exposed, sessionId: subscriber });
  }
}

/** The audit record's target: the resource as listed and as the upstream knows it. */
function recordOf(r: Route): CallRecord {
  return { target: { upstream: r.upstream.name, name: r.listed, upstreamName: r.uri } };
}
