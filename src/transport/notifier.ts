// Delivers change notifications to the clients listening for them: modern clients on
// `subscriptions/listen` streams (only what each asked for, tagged with its subscription
// id — MCP 2026-07-28, basic/patterns/subscriptions), legacy clients on their session's GET stream. A legacy session may hold
// several GET streams, but each message goes to only one of them (2025-11-25 transport: the
// server MUST NOT broadcast a message across streams): the most recently opened one still
// open, which is the one its client most likely still reads.
//
// Streams are capped overall and per principal (limits.maxStreams, maxStreamsPerPrincipal):
// admit() says, before a stream is opened, which cap it would break. Every stream's opening
// and end (with why it ended) is told to onStream, which writes them to the audit trail.
import type { Principal } from '../identity/principal.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../protocol/message.ts';
import { Slots } from '../limits/slots.ts';

export type ChangeKind = 'tools' | 'prompts' | 'resources';

export interface ChangeListener {
  wants: ReadonlySet<ChangeKind>;
  deliver(kind: ChangeKind): void;
  /** The legacy session a GET stream belongs to, so DELETE can end it. */
  session?: string;
  /** Sends one message on the stream (legacy GET streams: resources/updated, and an
   * upstream's requests outside a call for a per-client upstream session). */
  send?: (message: JsonRpcNotification | JsonRpcRequest) => void;
  /** Whose stream it is: a policy change notifies only those whose lists changed. */
  principal?: Principal;
  /** The virtual server it listens on; undefined: the default endpoint. Each endpoint's
   * changes go to its own listeners only. */
  server?: string;
  close?: () => void;
  /** What the audit record names the stream by: `listen` with its subscription id, `get` with
   * its session, or `resume`: a GET with Last-Event-ID that continues a call's stream. */
  stream?: { kind: 'listen' | 'get' | 'resume'; subscriptionId?: string | number };
  /** A resumed call stream: counted, capped and audited as a stream, ended with its session,
   * but it carries its call's events only: no notification, and no message for the session. */
  follows?: true;
}

/** Why a stream ended, as its audit record says. */
export type StreamEnd = 'client_gone' | 'lifetime' | 'idle' | 'session_ended' | 'server_removed' | 'shutdown' | 'call_ended';

export interface StreamEvent {
  event: 'stream_opened' | 'stream_closed';
  detail: JsonObject;
}

export interface StreamCaps {
  maxStreams: number;
  maxStreamsPerPrincipal: number;
  /** Seconds until a full cap may have room again, for Retry-After. */
  retryAfterMs: number;
}

const UNCAPPED: StreamCaps = { maxStreams: Number.POSITIVE_INFINITY, maxStreamsPerPrincipal: Number.POSITIVE_INFINITY, retryAfterMs: 1_000 };
const ANONYMOUS_OWNER = 'anonymous';

export const LIST_CHANGED_METHOD: Readonly<Record<ChangeKind, string>> = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
};

/** Each kind's notification serialised once, at load: a change is written to every stream
 * that listens for it (thousands, on a busy gateway), and every legacy GET stream gets the
 * same bytes, so none of them is serialised per stream. */
export const LIST_CHANGED_JSON: Readonly<Record<ChangeKind, string>> = {
  tools: JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED_METHOD.tools }),
  prompts: JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED_METHOD.prompts }),
  resources: JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED_METHOD.resources }),
};

/** The notification as a listen stream sends it, tagged with its subscription (MCP
 * 2026-07-28, basic/patterns/subscriptions): `metaJson` is the stream's `_meta`, serialised
 * once when it opened. The same JSON as serialising the whole message. */
export function taggedListChanged(kind: ChangeKind, metaJson: string): string {
  return `${LIST_CHANGED_JSON[kind].slice(0, -1)},"params":{"_meta":${metaJson}}}`;
}

export class Notifier {
  private readonly listeners = new Set<ChangeListener>();
  /** The stream of each legacy session that gets its messages. */
  private readonly current = new Map<string, ChangeListener>();
  private readonly slots: Slots;
  private readonly opened = new WeakMap<ChangeListener, number>();
  private streamListener: ((e: StreamEvent) => void) | undefined;
  private shuttingDown = false;

  constructor(
    private caps: StreamCaps = UNCAPPED,
    private readonly now: () => number = Date.now,
  ) {
    this.slots = new Slots(caps.maxStreams, caps.maxStreamsPerPrincipal);
  }

  /** New caps (a config reload): open streams stay; only new ones see the caps. */
  resize(caps: StreamCaps): void {
    this.caps = caps;
    this.slots.resize(caps.maxStreams, caps.maxStreamsPerPrincipal);
  }

  /** Told of every stream that opens or ends (audit, metrics). */
  onStream(listener: (e: StreamEvent) => void): void {
    this.streamListener = listener;
  }

  /** The refusal for one more stream of this principal, if a cap is full or the gateway is
   * shutting down (a client whose stream just ended comes back for another at once, on the
   * connection it kept alive: accepted, it would hold the drain until its deadline). */
  admit(principal: Principal | undefined): GatewayError | undefined {
    if (this.shuttingDown) return { kind: 'over_capacity', limit: 'shutdown', message: 'The gateway is shutting down; open the stream again shortly (another replica takes it)', retryAfterMs: this.caps.retryAfterMs };
    const cap = this.slots.check(ownerOf(principal));
    if (cap === undefined) return undefined;
    return cap === 'total'
      ? { kind: 'over_capacity', limit: 'maxStreams', message: 'The gateway holds as many notification streams as it may (limits.maxStreams); try again later', retryAfterMs: this.caps.retryAfterMs }
      : { kind: 'over_capacity', limit: 'maxStreamsPerPrincipal', message: 'This principal holds as many notification streams as it may (limits.maxStreamsPerPrincipal); close one or try again later', retryAfterMs: this.caps.retryAfterMs };
  }

  /** Adds a listener, taking a stream slot unless admit() said no (then it is refused here
   * too, and undefined comes back). The returned function removes it, saying why. */
  add(listener: ChangeListener): ((why?: StreamEnd) => void) | undefined {
    if (this.shuttingDown || this.slots.take(ownerOf(listener.principal)) !== undefined) return undefined;
    this.listeners.add(listener);
    this.opened.set(listener, this.now());
    if (listener.session !== undefined && !listener.follows) this.current.set(listener.session, listener);
    this.report('stream_opened', listener);
    return (why = 'client_gone') => this.delete(listener, why);
  }

  /** A change of one endpoint's lists: `server` undefined is the default endpoint. */
  publish(kind: ChangeKind, server?: string): void {
    for (const l of this.listeners) if (l.server === server && l.wants.has(kind) && this.receives(l)) l.deliver(kind);
  }

  /** A message for one legacy session, on the stream that gets its messages; none open: dropped
   * (2025-11-25 servers send unsolicited messages only on a GET stream), and false comes back. */
  sendToSession(session: string, message: JsonRpcNotification | JsonRpcRequest): boolean {
    const send = this.current.get(session)?.send;
    if (send === undefined) return false;
    send(message);
    return true;
  }

  /** Every listener that receives messages, for deciding per principal what to send. */
  all(): readonly ChangeListener[] {
    return [...this.listeners].filter((l) => this.receives(l));
  }

  closeSession(id: string): void {
    for (const l of this.listeners) {
      if (l.session !== id) continue;
      this.delete(l, 'session_ended');
      l.close?.();
    }
  }

  /** Ends the streams of a virtual server a config reload removed: nothing will change on them again. */
  closeServer(server: string): void {
    for (const l of [...this.listeners]) {
      if (l.server !== server) continue;
      this.delete(l, 'server_removed');
      l.close?.();
    }
  }

  /** Ends every stream (shutdown): each listener is removed and its stream closed, and no new one is taken. */
  closeAll(): void {
    this.shuttingDown = true;
    for (const l of [...this.listeners]) {
      this.delete(l, 'shutdown');
      l.close?.();
    }
  }

  size(): number {
    return this.listeners.size;
  }

  /** True while the legacy session has a GET stream open: it is in use, however quiet. */
  hasStream(session: string): boolean {
    return this.current.has(session);
  }

  private receives(l: ChangeListener): boolean {
    if (l.follows) return false;
    return l.session === undefined || this.current.get(l.session) === l;
  }

  private delete(listener: ChangeListener, why: StreamEnd): void {
    if (!this.listeners.delete(listener)) return;
    this.slots.release(ownerOf(listener.principal));
    this.report('stream_closed', listener, why);
    const session = listener.session;
    if (session === undefined || this.current.get(session) !== listener) return;
    // Its session's next most recent stream takes over, if it has one.
    let next: ChangeListener | undefined;
    for (const l of this.listeners) if (l.session === session) next = l;
    if (next) this.current.set(session, next);
    else this.current.delete(session);
  }

  private report(event: StreamEvent['event'], l: ChangeListener, why?: StreamEnd): void {
    if (!this.streamListener) return;
    const detail: JsonObject = { stream: l.stream?.kind ?? (l.session === undefined ? 'listen' : 'get') };
    if (l.principal) detail.principal = { subject: l.principal.subject, method: l.principal.method };
    if (l.session !== undefined) detail.sessionId = l.session;
    if (l.server !== undefined) detail.server = l.server;
    if (l.stream?.subscriptionId !== undefined) detail.subscriptionId = l.stream.subscriptionId;
    if (why) {
      detail.reason = why;
      detail.durationMs = this.now() - (this.opened.get(l) ?? this.now());
    }
    this.streamListener({ event, detail });
  }
}

function ownerOf(principal: Principal | undefined): string {
  return principal?.authContext ?? ANONYMOUS_OWNER;
}
