// A 2026-07-28 `subscriptions/listen` stream for tools list_changed, opened and acknowledged
// (its first message), for the tests that count which listeners a change reached.
import { expect } from 'vitest';
import { modernBody, modernHeaders } from './gateway.ts';
import { openSse, type SseMessages } from './sse-messages.ts';

export const LIST_CHANGED = 'notifications/tools/list_changed';

/** Opens the stream as `who` (extra request headers); `streams` collects it for closing. */
export async function listenForToolChanges(url: string, who: Record<string, string>, id: string, streams: SseMessages[]): Promise<SseMessages> {
  const { response, sse } = await openSse(url, {
    method: 'POST',
    headers: modernHeaders('subscriptions/listen', undefined, who),
    body: JSON.stringify(modernBody(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
  });
  streams.push(sse);
  expect(response.status).toBe(200);
  await sse.waitFor(1);
  expect(sse.messages[0].method).toBe('notifications/subscriptions/acknowledged');
  return sse;
}

/** The list_changed notifications a listener has received. */
export const toolChanges = (sse: SseMessages): unknown[] => sse.messages.filter((m) => m.method === LIST_CHANGED);
