// The way to one 2025-11-25 client session outside any call: its GET stream (MCP 2025-11-25,
// basic/transports, "Listening for Messages from the Server": the server may send requests
// and notifications there, unrelated to any running request). An upstream session that serves
// that one client (`session: perClient`, upstream/http/per-client-upstream.ts) sends what its
// upstream asks outside a call through it. 2026-07-28 clients have no such channel: that era
// has no server-initiated requests outside a call's input_required (MCP 2026-07-28,
// basic/patterns/mrtr), and its listen streams carry only change notifications.
import type { ClientAsk } from './client-ask.ts';
import type { JsonObject, JsonRpcNotification } from './message.ts';

export interface ClientChannel {
  /** Tells this session from every other (what the upstream sessions are keyed by). */
  readonly key: string;
  /** What the client declared at initialize: what its upstream session may declare. */
  readonly capabilities: JsonObject;
  /** Asks the client on its GET stream and waits, bounded by `timeoutMs`; refused at once
   * when the client did not declare the capability or has no GET stream open. */
  readonly ask: ClientAsk;
  /** A notification for the client's GET stream (dropped when none is open). */
  readonly notify: (n: JsonRpcNotification) => void;
  /** Aborted when the session ends (DELETE, idle, shutdown): its upstream session closes too. */
  readonly ended: AbortSignal;
}
