// The moment a client goes away before its response is complete. A response that owns its
// connection hears it as its own 'close'. One queued behind another on the same keep-alive
// connection (HTTP/1.1 pipelining) has no socket yet, and Node 20 never emits 'close' on it
// when the connection drops (only the requests are destroyed), so for those the connection's
// socket is watched: one listener per connection, however many responses wait on it, and
// each leaves its set when its response closes.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Per connection, what to call when it closes with responses still queued on it. */
const queuedOn = new WeakMap<Socket, Set<() => void>>();

function queue(socket: Socket): Set<() => void> {
  let waiting = queuedOn.get(socket);
  if (waiting === undefined) {
    const set = (waiting = new Set());
    queuedOn.set(socket, set);
    socket.once('close', () => {
      for (const settle of set) settle();
    });
  }
  return waiting;
}

/** Calls `fn` once if the client goes away before `res` has finished; at once if it already has. */
export function onClientGone(res: ServerResponse, fn: () => void): void {
  if (res.writableFinished) return;
  if (res.destroyed) {
    fn();
    return;
  }
  if (res.socket) {
    res.once('close', () => {
      if (!res.writableFinished) fn();
    });
    return;
  }
  const socket = res.req.socket;
  if (socket.destroyed) {
    fn();
    return;
  }
  const waiting = queue(socket);
  const settle = (): void => {
    res.off('close', settle);
    waiting.delete(settle);
    if (!res.writableFinished) fn();
  };
  res.on('close', settle);
  waiting.add(settle);
}
