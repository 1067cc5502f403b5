// Long-lived notification streams: modern `subscriptions/listen` (acknowledgement first,
// only what was asked for, every message tagged with the subscription id — MCP 2026-07-28, basic/patterns/subscriptions)
// and the legacy session GET stream (2025-11-25).
import type { Principal } from '../identity/principal.ts';
import type { JsonObject, JsonRpcRequest } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { META_SUBSCRIPTION_ID } from '../protocol/meta-keys.ts';
import type { LegacySession } from './legacy-sessions.ts';
import { LIST_CHANGED_METHOD, type ChangeKind, type Notifier } from './notifier.ts';
import type { HttpReply } from '../http/http-io.ts';
import { SseStream } from './sse-stream.ts';
import { errorResponse } from '../http/replies.ts';

export const KEEP_ALIVE_MS = 15_000;

const FILTER_KEYS: Readonly<Record<string, ChangeKind>> = {
  toolsListChanged: 'tools',
  promptsListChanged: 'prompts',
  resourcesListChanged: 'resources',
};

export function openListenStream(msg: JsonRpcRequest, notifier: Notifier, principal?: Principal): HttpReply {
  const filter = msg.params?.notifications;
  if (!isJsonObject(filter)) {
    return errorResponse({ kind: 'invalid_params', message: 'subscriptions/listen needs a "notifications" object' }, { id: msg.id, era: 'modern' });
  }
  const wants = new Set<ChangeKind>();
  const honoured: JsonObject = {};
  for (const [key, kind] of Object.entries(FILTER_KEYS)) {
    if (filter[key] === true) {
      wants.add(kind);
      honoured[key] = true;
    }
  }
  // resourceSubscriptions are not honoured: the gateway does not advertise resources.subscribe,
  // so the acknowledgement leaves them out and the client can see that (MCP 2026-07-28, basic/patterns/subscriptions).
  const tag = { [META_SUBSCRIPTION_ID]: msg.id };
  let remove = (): void => undefined;
  const stream = new SseStream({ keepAliveMs: KEEP_ALIVE_MS, onCancel: () => remove() });
  stream.send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: tag, notifications: honoured } });
  remove = notifier.add({
    wants,
    deliver: (kind) => stream.send({ jsonrpc: '2.0', method: LIST_CHANGED_METHOD[kind], params: { _meta: tag } }),
    close: () => stream.close(),
    ...(principal ? { principal } : {}),
  });
  return stream;
}

export function openLegacyStream(session: LegacySession, notifier: Notifier, principal?: Principal): HttpReply {
  let remove = (): void => undefined;
  const stream = new SseStream({ keepAliveMs: KEEP_ALIVE_MS, onCancel: () => remove() });
  remove = notifier.add({
    wants: new Set<ChangeKind>(['tools', 'prompts', 'resources']),
    deliver: (kind) => stream.send({ jsonrpc: '2.0', method: LIST_CHANGED_METHOD[kind] }),
    send: (message) => stream.send(message as unknown as JsonObject),
    session: session.id,
    close: () => stream.close(),
    ...(principal ? { principal } : {}),
  });
  return stream;
}
