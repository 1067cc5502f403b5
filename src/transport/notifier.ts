// Delivers change notifications to the clients listening for them: modern clients on
// `subscriptions/listen` streams (only what each asked for, tagged with its subscription
// id — digest d.6), legacy clients on their session's GET stream.
import type { Principal } from '../identity/principal.ts';

export type ChangeKind = 'tools' | 'prompts' | 'resources';

export interface ChangeListener {
  wants: ReadonlySet<ChangeKind>;
  deliver(kind: ChangeKind): void;
  /** The legacy session a GET stream belongs to, so DELETE can end it. */
  session?: string;
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

  add(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(kind: ChangeKind): void {
    for (const l of this.listeners) if (l.wants.has(kind)) l.deliver(kind);
  }

  /** Every listener, for deciding per principal what to send. */
  all(): readonly ChangeListener[] {
    return [...this.listeners];
  }

  closeSession(id: string): void {
    for (const l of this.listeners) {
      if (l.session !== id) continue;
      this.listeners.delete(l);
      l.close?.();
    }
  }

  size(): number {
    return this.listeners.size;
  }
}
