// A 2025-11-25 client whose call stream broke comes back with GET and Last-Event-ID for the
// rest (MCP 2025-11-25, basic/transports, resumability and redelivery; sse-replay.ts keeps
// the events). The stream it gets is held like the session's other GET streams
// (listen-streams.ts): the same caps, limits, audit records and ends.
import type { Principal } from '../identity/principal.ts';
import type { HttpReply } from '../http/http-io.ts';
import { refuse } from '../http/replies.ts';
import type { LegacySession } from './legacy-sessions.ts';
import { endAtLimits, KEEP_ALIVE_MS, NO_TIMERS, type StreamLifetime } from './listen-streams.ts';
import type { ChangeKind, Notifier, StreamEnd } from './notifier.ts';
import type { ReplayBuffers } from './sse-replay.ts';
import type { SseStream } from './sse-stream.ts';

const NO_KINDS: ReadonlySet<ChangeKind> = new Set();

/** A GET with Last-Event-ID that continues a call's stream (sse-replay.ts), or undefined when
 * there is none to continue (the caller opens a plain GET stream). It is a stream like the
 * session's GET streams: it takes a slot of limits.maxStreams and maxStreamsPerPrincipal (a
 * 503 when they are full), ends at the stream lifetime and idle timeout, with its session or
 * at shutdown, and leaves `stream_opened` and `stream_closed` records; it also ends when the
 * call it continues has sent its last event (`call_ended`). It carries that call's events only. */
export function resumeLegacyStream(session: LegacySession, lastEventId: string | undefined, replay: ReplayBuffers, notifier: Notifier, principal: Principal | undefined, limits: StreamLifetime): HttpReply | undefined {
  if (!replay.canResume(session.id, lastEventId)) return undefined;
  const full = notifier.admit(principal);
  if (full) return refuse({ error: full, era: 'legacy', ...(principal ? { principal } : {}) });
  let stream: SseStream | undefined;
  let timers = NO_TIMERS;
  let unfollow = (): void => undefined;
  const added = notifier.add({
    wants: NO_KINDS,
    deliver: () => undefined,
    follows: true,
    session: session.id,
    close: () => {
      timers.cancel();
      unfollow();
      stream?.close();
    },
    stream: { kind: 'resume' },
    ...(principal ? { principal } : {}),
    ...(session.server === undefined ? {} : { server: session.server }),
  });
  if (!added) return refuse({ error: notifier.admit(principal) ?? { kind: 'internal', message: 'no stream slot' }, era: 'legacy', ...(principal ? { principal } : {}) });
  const remove = (why: StreamEnd): void => {
    timers.cancel();
    unfollow();
    added(why);
  };
  stream = replay.resume(session.id, lastEventId, {
    keepAliveMs: KEEP_ALIVE_MS,
    onCancel: () => remove('client_gone'),
    follower: (s, stop) => {
      unfollow = stop;
      return {
        sendChunk: (chunk) => {
          timers.touch();
          s.sendChunk(chunk);
        },
        close: () => {
          s.close();
          remove('call_ended');
        },
      };
    },
  });
  if (stream === undefined) {
    remove('call_ended');
    return undefined;
  }
  if (!stream.finished) {
    timers = endAtLimits(principal, limits, (why) => {
      stream!.close();
      remove(why);
    });
  }
  return stream;
}
