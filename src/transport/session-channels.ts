// The channel to each 2025-11-25 session outside its calls (protocol/client-channel.ts): a
// request goes out on the session's GET stream under a fresh id of the gateway's (the
// upstream's own id is never shown to the client), and the client's answer, POSTed in the same
// session, comes back through the same ClientRequests as the answers to in-call questions.
// One channel per session that has made a call, made at its first and dropped when the session
// ends, which also aborts `ended` so that an upstream session held for it closes.
import { declaresForRequest, type ClientAsk } from '../protocol/client-ask.ts';
import type { ClientChannel } from '../protocol/client-channel.ts';
import { err } from '../protocol/result.ts';
import type { ClientRequests } from './client-requests.ts';
import type { LegacySession, LegacySessions } from './legacy-sessions.ts';
import type { Notifier } from './notifier.ts';
import { relaysToClient } from './request-notifications.ts';

/** The notifications an upstream may send a client outside any call and that mean the same to
 * it unchanged: logs (filtered by the session's level), and the end of a URL-mode elicitation
 * whose id the client was given as it was (MCP 2025-11-25, client/elicitation). Change
 * notifications are the catalog's (they become events); others name the upstream's own ids. */
const RELAYED_OUTSIDE_CALLS: ReadonlySet<string> = new Set(['notifications/message', 'notifications/elicitation/complete']);

export class SessionChannels {
  private readonly open = new Map<string, { channel: ClientChannel; ended: AbortController }>();

  constructor(
    private readonly notifier: Notifier,
    private readonly requests: ClientRequests,
    private readonly sessions: LegacySessions,
  ) {
    sessions.onRemoved((id) => this.end(id));
  }

  /** The session's channel, made at its first use. */
  of(session: LegacySession): ClientChannel {
    const held = this.open.get(session.id);
    if (held !== undefined) return held.channel;
    const ended = new AbortController();
    const channel: ClientChannel = {
      key: session.id,
      capabilities: session.clientCapabilities,
      ask: this.asker(session, ended.signal),
      notify: (n) => {
        if (RELAYED_OUTSIDE_CALLS.has(n.method) && relaysToClient(n, 'legacy', this.sessions.logLevelOf(session.id))) this.notifier.sendToSession(session.id, n);
      },
      ended: ended.signal,
    };
    this.open.set(session.id, { channel, ended });
    return channel;
  }

  size(): number {
    return this.open.size;
  }

  private asker(session: LegacySession, ended: AbortSignal): ClientAsk {
    return (method, params, timeoutMs) => {
      if (!declaresForRequest(method, params, session.clientCapabilities)) return Promise.resolve(err({ kind: 'undeclared', message: `the client did not declare the capability ${method} needs` }));
      // Nowhere to send it: said at once, rather than waiting out the timeout for an answer
      // to a question nobody saw. (The client opens its GET stream right after initialize.)
      if (!this.notifier.hasStream(session.id)) return Promise.resolve(err({ kind: 'unanswered', message: 'the client has no GET stream open to be asked on' }));
      const id = this.requests.newId();
      const answer = this.requests.wait(session.id, id, timeoutMs, ended);
      this.notifier.sendToSession(session.id, { jsonrpc: '2.0', id, method, params });
      return answer;
    };
  }

  private end(id: string): void {
    const held = this.open.get(id);
    if (held === undefined) return;
    this.open.delete(id);
    held.ended.abort();
  }
}
