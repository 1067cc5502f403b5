// Delivers change notifications to the clients listening for them: modern clients on
// `subscriptions/listen` streams (only what each asked for, tagged with its subscription
// id — MCP 2026-07-28, basic/patterns/subscriptions), legacy clients on their session's GET stream. A legacy session may hold
// several GET streams, but each message goes to only one of them (2025-11-25 transport: the
// server MUST NOT broadcast a message across streams): the most recently opened one still
// open, which is the one its client most likely still reads.
import type { Principal } from '../identity/principal.ts';
import type { JsonRpcNotification } from '../protocol/message.ts';

export type ChangeKind = 'tools' | 'prompts' | 'resources';

export interface ChangeListener {
  wants: ReadonlySet<ChangeKind>;
  deliver(kind: ChangeKind): void;
  /** The legacy session a GET stream belongs to, so DELETE can end it. */
  session?: string;
  /** Sends one message on the stream (legacy GET streams: resources/updated). */
  send?: (message: JsonRpcNotification) => void;
  /** Whose stream it is: a policy change notifies only those whose lists changed. */
  principal?: Principal;
  close?: () => void;
}

export const LIST_CHANGED_METHOD: Readonly<Record<ChangeKind, string>> = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
};

export class Notifier {
  private readonly listeners = new Set<ChangeListener>();
  /** The stream of each legacy session that gets its messages. */
  private readonly current = new Map<string, ChangeListener>();

  add(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (listener.session !== undefined) this.current.set(listener.session, listener);
    return () => this.delete(listener);
  }

  publish(kind: ChangeKind): void {
    for (const l of this.listeners) if (l.wants.has(kind) && this.receives(l)) l.deliver(kind);
  }

  /** A message for one legacy session, on the stream that gets its messages; none open: dropped
   * (2025-11-25 servers send unsolicited messages only on a GET stream). */
  sendToSession(session: string, message: JsonRpcNotification): void {
    this.current.get(session)?.send?.(message);
  }

  /** Every listener that receives messages, for deciding per principal what to send. */
  all(): readonly ChangeListener[] {
    return [...this.listeners].filter((l) => this.receives(l));
  }

  closeSession(id: string): void {
    for (const l of this.listeners) {
      if (l.session !== id) continue;
      this.delete(l);
      l.close?.();
    }
  }

  /** Ends every stream (shutdown): each listener is removed and its stream closed. */
  closeAll(): void {
    for (const l of [...this.listeners]) {
      this.delete(l);
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
    return l.session === undefined || this.current.get(l.session) === l;
  }

  private delete(listener: ChangeListener): void {
    if (!this.listeners.delete(listener)) return;
    const session = listener.session;
    if (session === undefined || this.current.get(session) !== listener) return;
    // Its session's next most recent stream takes over, if it has one.
    let next: ChangeListener | undefined;
    for (const l of this.listeners) if (l.session === session) next = l;
    if (next) this.current.set(session, next);
    else this.current.delete(session);
  }
}
