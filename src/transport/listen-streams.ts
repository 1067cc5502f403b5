// Long-lived notification streams: modern `subscriptions/listen` (acknowledgement first,
// only what was asked for, every message tagged with the subscription id — MCP 2026-07-28, basic/patterns/subscriptions)
// and the legacy session GET stream (2025-11-25). Each takes a stream slot (notifier.ts caps)
// and ends cleanly at limits.streamMaxLifetime, when the token that opened it expires, or
// after limits.streamIdleTimeout with no message sent on it. Only messages count as activity:
// the keep-alive comments are the gateway's own (every KEEP_ALIVE_MS, for proxies), and
// counting them would keep every stream open to its lifetime; a client that still wants
// notifications listens again, which costs it one request per idle period at most.
import type { Principal } from '../identity/principal.ts';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { META_SUBSCRIPTION_ID } from '../protocol/meta-keys.ts';
import type { LegacySession } from './legacy-sessions.ts';
import { LIST_CHANGED_JSON, taggedListChanged, type ChangeKind, type Notifier, type StreamEnd } from './notifier.ts';
import type { HttpReply } from '../http/http-io.ts';
import { SseStream } from './sse-stream.ts';
import { refuse } from '../http/replies.ts';
import { TASKS_EXTENSION } from '../tasks/task-shapes.ts';
import type { GatewayError } from '../protocol/errors.ts';

export const KEEP_ALIVE_MS = 15_000;

const FILTER_KEYS: Readonly<Record<string, ChangeKind>> = {
  toolsListChanged: 'tools',
  promptsListChanged: 'prompts',
  resourcesListChanged: 'resources',
};

/** How long streams may stay open (limits.streamMaxLifetime) and stay quiet (limits.streamIdleTimeout). */
export interface StreamLifetime {
  maxLifetimeMs: number;
  idleTimeoutMs: number;
  now: () => number;
  /** The virtual server whose changes the stream carries; undefined: the default endpoint. */
  server?: string;
}

/** The stream ends at its maximum lifetime, or earlier when the token that opened it expires
 * (a JWT `exp`): a stream must not outlive the credential that was checked when it opened. */
function lifetimeOf(principal: Principal | undefined, limits: StreamLifetime): number {
  const exp = principal?.claims.exp;
  const untilExpiry = typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 - limits.now() : Number.POSITIVE_INFINITY;
  return Math.max(0, Math.min(limits.maxLifetimeMs, untilExpiry));
}

export interface StreamTimers {
  /** A message was sent: the idle period starts again. */
  touch(): void;
  /** The stream ended otherwise. */
  cancel(): void;
}

/** Ends the stream when its lifetime is over or when it has been quiet for the idle timeout,
 * whichever comes first. One timer each, refreshed rather than replaced on every message. */
export function endAtLimits(principal: Principal | undefined, limits: StreamLifetime, end: (why: 'lifetime' | 'idle') => void): StreamTimers {
  const lifetime = setTimeout(() => end('lifetime'), lifetimeOf(principal, limits));
  const idle = setTimeout(() => end('idle'), limits.idleTimeoutMs);
  lifetime.unref();
  idle.unref();
  return {
    touch: () => void idle.refresh(),
    cancel: () => {
      clearTimeout(lifetime);
      clearTimeout(idle);
    },
  };
}

export const NO_TIMERS: StreamTimers = { touch: () => undefined, cancel: () => undefined };

/** What a listen stream tells resource subscriptions: its resourceSubscriptions, routed and
 * subscribed (mcp/resource-subscriptions.ts), and where their updates go. */
export type ResourceListen = (who: Principal, uris: readonly string[], sink: (n: JsonRpcNotification) => void) => Promise<{ honoured: string[]; end: () => void }>;

/** What a listen stream tells tasks (tasks/task-runtime.ts): the task ids it names (the tasks
 * extension io.modelcontextprotocol/tasks, "Task Status Notifications"), whether the listen
 * declared the extension, and where their `notifications/tasks` go. */
export interface TaskListen {
  declared: boolean;
  listen: (authContext: string, taskIds: readonly string[], sink: (n: JsonRpcNotification) => void) => { honoured: string[]; end: () => void };
}

/** Task ids one listen may name, at most. */
export const MAX_LISTEN_TASK_IDS = 100;

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((u) => typeof u === 'string');

export function openListenStream(msg: JsonRpcRequest, notifier: Notifier, principal: Principal | undefined, limits: StreamLifetime, resources?: ResourceListen, tasks?: TaskListen): HttpReply | Promise<HttpReply> {
  const filter = msg.params?.notifications;
  const refused = (error: GatewayError): HttpReply => refuse({ error, era: 'modern', method: msg.method, rpcId: msg.id, ...(principal ? { principal } : {}) });
  if (!isJsonObject(filter)) return refused({ kind: 'invalid_params', message: 'subscriptions/listen needs a "notifications" object' });
  const asked = filter.resourceSubscriptions;
  if (asked !== undefined && !strings(asked)) return refused({ kind: 'invalid_params', message: 'subscriptions/listen "resourceSubscriptions" must be an array of URI strings' });
  const taskIds = filter.taskIds;
  if (taskIds !== undefined && !strings(taskIds)) return refused({ kind: 'invalid_params', message: 'subscriptions/listen "taskIds" must be an array of task id strings' });
  if (taskIds !== undefined && taskIds.length > MAX_LISTEN_TASK_IDS) return refused({ kind: 'invalid_params', message: `subscriptions/listen names ${taskIds.length} taskIds; at most ${MAX_LISTEN_TASK_IDS} per listen` });
  if (tasks && !tasks.declared && taskIds !== undefined && taskIds.length > 0) {
    // What the extension requires of a server (extension io.modelcontextprotocol/tasks, "Task Status Notifications").
    return refused({ kind: 'missing_capability', message: `Task status needs the ${TASKS_EXTENSION} extension declared on the listen`, required: { extensions: { [TASKS_EXTENSION]: {} } } });
  }
  // Refused before anything is streamed: a JSON-RPC error for the listen id, which the client
  // reads as a capacity refusal before the acknowledgement (MCP 2026-07-28, basic/patterns/subscriptions).
  const full = notifier.admit(principal);
  if (full) return refused(full);
  const wants = new Set<ChangeKind>();
  const honoured: JsonObject = {};
  for (const [key, kind] of Object.entries(FILTER_KEYS)) {
    if (filter[key] === true) {
      wants.add(kind);
      honoured[key] = true;
    }
  }
  const tag = { [META_SUBSCRIPTION_ID]: msg.id };
  const uris = asked ?? [];
  let listen: { stream: SseStream; touch: () => void } | undefined;
  const sink = (n: JsonRpcNotification): void => {
    listen?.touch();
    listen?.stream.send({ ...n, params: { ...n.params, _meta: { ...(isJsonObject(n.params?._meta) ? n.params._meta : {}), ...tag } } } as unknown as JsonObject);
  };
  /** Starts the stream; the task ids honoured are named in the acknowledgement, which goes first. */
  const start = (endResources?: () => void): HttpReply => {
    const followed = tasks && principal && taskIds && taskIds.length > 0 ? tasks.listen(principal.authContext, taskIds, sink) : undefined;
    if (followed && followed.honoured.length > 0) honoured.taskIds = followed.honoured;
    const end = (): void => {
      endResources?.();
      followed?.end();
    };
    const started = startListen(msg, notifier, principal, limits, { wants, honoured, tag, end }, refused);
    if (started.listening) listen = started.listening;
    else end();
    return started.reply;
  };
  // The acknowledgement lists only the resourceSubscriptions honoured (none: the key is left
  // out), and the client can see what was not (MCP 2026-07-28, basic/patterns/subscriptions).
  if (uris.length === 0 || !resources || !principal) return start();
  return resources(principal, uris, sink).then(({ honoured: subscribed, end }) => {
    if (subscribed.length > 0) honoured.resourceSubscriptions = subscribed;
    return start(end);
  });
}

interface ListenFilter {
  wants: Set<ChangeKind>;
  honoured: JsonObject;
  tag: JsonObject;
  /** Ends the stream's resource subscriptions. */
  end?: () => void;
}

/** The listen stream, or its refusal; `listening` says where resource updates go. */
function startListen(msg: JsonRpcRequest, notifier: Notifier, principal: Principal | undefined, limits: StreamLifetime, f: ListenFilter, refused: (e: GatewayError) => HttpReply): { reply: HttpReply; listening?: { stream: SseStream; touch: () => void } } {
  // What the stream's closures keep, for as long as it is open: not the request, nor the filter.
  const { tag, end } = f;
  const id = msg.id;
  const metaJson = JSON.stringify(tag);
  let remove: (why?: StreamEnd) => void = () => undefined;
  let timers = NO_TIMERS;
  const stream = new SseStream({ keepAliveMs: KEEP_ALIVE_MS, onCancel: () => remove('client_gone') });
  stream.send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: tag, notifications: f.honoured } });
  const added = notifier.add({
    wants: f.wants,
    deliver: (kind) => {
      timers.touch();
      stream.sendText(taggedListChanged(kind, metaJson));
    },
    close: () => {
      timers.cancel();
      end?.();
      stream.close();
    },
    stream: { kind: 'listen', subscriptionId: id },
    ...(principal ? { principal } : {}),
    ...(limits.server === undefined ? {} : { server: limits.server }),
  });
  if (!added) return { reply: refused(notifier.admit(principal) ?? { kind: 'internal', message: 'no stream slot' }) };
  // The server's own end of a subscription: the listen result, then close (MCP 2026-07-28,
  // basic/patterns/subscriptions, ending a subscription); the client may listen again.
  timers = endAtLimits(principal, limits, (why) => {
    stream.send({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: tag } });
    stream.close();
    remove(why);
  });
  remove = (why) => {
    timers.cancel();
    end?.();
    added(why);
  };
  return { reply: stream, listening: { stream, touch: () => timers.touch() } };
}

export function openLegacyStream(session: LegacySession, notifier: Notifier, principal: Principal | undefined, limits: StreamLifetime): HttpReply {
  const full = notifier.admit(principal);
  if (full) return refuse({ error: full, era: 'legacy', ...(principal ? { principal } : {}) });
  let remove: (why?: StreamEnd) => void = () => undefined;
  let timers = NO_TIMERS;
  const stream = new SseStream({ keepAliveMs: KEEP_ALIVE_MS, onCancel: () => remove('client_gone') });
  const added = notifier.add({
    wants: new Set<ChangeKind>(['tools', 'prompts', 'resources']),
    deliver: (kind) => {
      timers.touch();
      stream.sendText(LIST_CHANGED_JSON[kind]);
    },
    send: (message) => {
      timers.touch();
      stream.send(message as unknown as JsonObject);
    },
    session: session.id,
    close: () => {
      timers.cancel();
      stream.close();
    },
    stream: { kind: 'get' },
    ...(principal ? { principal } : {}),
    ...(session.server === undefined ? {} : { server: session.server }),
  });
  if (!added) return refuse({ error: notifier.admit(principal) ?? { kind: 'internal', message: 'no stream slot' }, era: 'legacy', ...(principal ? { principal } : {}) });
  // 2025-11-25: the server may close the GET stream at any time; the client opens another.
  timers = endAtLimits(principal, limits, (why) => {
    stream.close();
    remove(why);
  });
  remove = (why) => {
    timers.cancel();
    added(why);
  };
  return stream;
}
