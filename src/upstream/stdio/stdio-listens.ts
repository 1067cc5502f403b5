// The `subscriptions/listen` requests the gateway keeps open on a 2026-07-28 stdio process
// (MCP 2026-07-28, basic/patterns/subscriptions and basic/patterns/cancellation). On stdio a
// listen is a request left unanswered: its notifications carry its id as subscription id, and
// it ends with its response or a `notifications/cancelled` naming it, from either side. As on
// HTTP (notification-stream.ts), one listen asks for the list changes the process advertises
// and the updates of the resources subscribed to, and another, with the tasks extension
// declared, for the status of the tasks followed, so that following one more task, which
// opens that listen again, costs the first none. A listen
// the process ends is opened again after a backoff; one it refuses as an unknown method is
// not. The process keeps no subscription state: after a restart, start() asks again.
import type { JsonObject, JsonRpcNotification, JsonRpcResponse } from '../../protocol/message.ts';
import { isErrorResponse, isJsonObject } from '../../protocol/message.ts';
import { META_SUBSCRIPTION_ID } from '../../protocol/meta-keys.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { GatewayError } from '../../protocol/errors.ts';
import type { Result } from '../../protocol/result.ts';
import { advertisesListChanged, listenParams, WATCH_METHODS, watchResource } from '../era-shape.ts';

type Kind = 'lists' | 'tasks';

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

interface Open {
  id: string;
  backoff: number;
  timer?: NodeJS.Timeout;
}

export class StdioListens {
  private readonly open = new Map<Kind, Open>();
  private caps: JsonObject | undefined;
  private followed: readonly string[] = [];
  private readonly watched = new Set<string>();
  private serial = 0;

  /** `write`: a line to the process now running (false when none runs). */
  constructor(
    private readonly write: (m: JsonObject) => boolean,
    private readonly logger: Logger,
  ) {}

  /** The process is up and speaks 2026-07-28 with these capabilities: listen to it. */
  start(caps: JsonObject): void {
    this.stop();
    this.caps = caps;
    if (wantsLists(caps)) this.listen('lists');
    if (this.followed.length > 0) this.listen('tasks');
  }

  /** The process is gone (or the upstream closes): its listens went with it. */
  stop(): void {
    for (const o of this.open.values()) clearTimeout(o.timer);
    this.open.clear();
    this.caps = undefined;
  }

  /** The upstream task ids to ask status of: the task listen is opened again with them. */
  followTasks(taskIds: readonly string[]): void {
    this.followed = taskIds;
    if (this.caps === undefined) return;
    this.cancel('tasks');
    if (taskIds.length > 0) this.listen('tasks');
  }

  /** resources/subscribe and resources/unsubscribe, which 2026-07-28 asks on a listen: the
   * URI joins or leaves the list listen's resourceSubscriptions, and that listen is opened again. */
  watches(method: string): boolean {
    return WATCH_METHODS.has(method);
  }

  watch(method: string, params: JsonObject): Result<JsonObject, GatewayError> {
    return watchResource(this.watched, method, params, () => {
      if (this.caps === undefined || !wantsLists(this.caps)) return;
      this.cancel('lists');
      this.listen('lists');
    });
  }

  /** A response to one of the listens (the process ended it): true when it was one. */
  answered(m: JsonRpcResponse): boolean {
    if (typeof m.id !== 'string') return false;
    const kind = this.kindOf(m.id);
    if (kind === undefined) return false;
    const refused = isErrorResponse(m) ? m.error : undefined;
    if (refused?.code === -32601) {
      this.logger.warn('upstream refuses subscriptions/listen; no change notifications from it', { listen: kind });
      this.open.delete(kind);
      return true;
    }
    if (refused) this.logger.warn('upstream refused a listen', { listen: kind, code: refused.code, message: String(refused.message).slice(0, 200) });
    this.again(kind);
    return true;
  }

  /** The listen-only notifications: an acknowledgement (the listen holds: no backoff before
   * the next), and the process's own end of a listen. Other notifications are the caller's. */
  consumed(n: JsonRpcNotification): boolean {
    const params = isJsonObject(n.params) ? n.params : {};
    if (n.method === 'notifications/subscriptions/acknowledged') {
      const meta = isJsonObject(params._meta) ? params._meta : {};
      const kind = this.kindOf(meta[META_SUBSCRIPTION_ID]);
      if (kind !== undefined) this.open.get(kind)!.backoff = FIRST_BACKOFF_MS;
      return true;
    }
    if (n.method !== 'notifications/cancelled') return false;
    const kind = this.kindOf(params.requestId);
    if (kind === undefined) return false;
    this.again(kind);
    return true;
  }

  private kindOf(id: unknown): Kind | undefined {
    for (const [kind, o] of this.open) if (o.id === id && o.timer === undefined) return kind;
    return undefined;
  }

  private listen(kind: Kind, backoff = FIRST_BACKOFF_MS): void {
    const caps = this.caps;
    if (caps === undefined) return;
    const id = `gatehouse-${kind}-${++this.serial}`;
    const uris = [...this.watched];
    const params = kind === 'lists' ? listenParams(caps, uris.length > 0 ? { resourceSubscriptions: uris } : {}) : listenParams({}, { taskIds: [...this.followed] });
    this.open.set(kind, { id, backoff });
    this.write({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params });
  }

  /** Ends the gateway's listen of `kind`, if one is open. */
  private cancel(kind: Kind): void {
    const o = this.open.get(kind);
    if (o === undefined) return;
    clearTimeout(o.timer);
    this.open.delete(kind);
    if (o.timer === undefined) this.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: o.id, reason: 'listening again' } });
  }

  /** The process ended the listen: opened again after its backoff. */
  private again(kind: Kind): void {
    const o = this.open.get(kind)!;
    const backoff = Math.min(o.backoff * 2, MAX_BACKOFF_MS);
    o.timer = setTimeout(() => {
      if (this.open.get(kind) === o) this.listen(kind, backoff);
    }, o.backoff).unref();
  }
}

/** The list listen is for the list changes the process advertises and the resources it lets
 * the gateway subscribe to. */
function wantsLists(caps: JsonObject): boolean {
  const subscribable = isJsonObject(caps.resources) && caps.resources.subscribe === true;
  return subscribable || ['tools', 'prompts', 'resources'].some((k) => advertisesListChanged(caps, k));
}
