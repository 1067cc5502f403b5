// Resumable SSE streams toward 2025-11-25 clients (MCP 2025-11-25, basic/transports
// (resumability and redelivery)): the events of a call's stream get ids, are kept in a
// bounded buffer, and a client whose stream broke comes back with GET and Last-Event-ID to
// get what it missed and the rest as it comes. Ids name their stream ("<stream>_<n>"), and a
// stream is found only from the session that opened it, so ids cannot be used across
// sessions. Only a stream the upstream itself made resumable is (respond.ts primes it).
//
// Bounds, per replica: REPLAY_MAX_BYTES of events per stream (older ones drop out; a client
// that asks for one of those gets a fresh stream, without replay), REPLAY_MAX_STREAMS streams
// (the oldest go first), and an ended stream is kept REPLAY_RETENTION_MS. The state is in
// memory: a resumption must reach the replica that served the POST, as the session's GET
// stream does.
import { randomBytes } from 'node:crypto';
import { SseStream } from './sse-stream.ts';

export const REPLAY_MAX_BYTES = 256 * 1024;
export const REPLAY_MAX_STREAMS = 256;
export const REPLAY_RETENTION_MS = 60_000;

/** What a stream tells its log: the next id, each event as written, and its end. */
export interface ReplayLog {
  nextId(): string;
  record(id: string, chunk: string): void;
  end(): void;
}

/** Where a resumed stream gets the call's later events and its end. */
export interface Follower {
  sendChunk(chunk: string): void;
  close(): void;
}

/** How a resumed stream is held (resumed-stream.ts, resumeLegacyStream). */
export interface ResumeHooks {
  keepAliveMs?: number;
  /** Its client went away. */
  onCancel?: () => void;
  follower?: (stream: SseStream, unfollow: () => void) => Follower;
}

interface Log {
  session: string;
  events: { seq: number; chunk: string }[];
  bytes: number;
  seq: number;
  endedAt: number | undefined;
  followers: Set<Follower>;
}

const ID = /^([0-9a-f]{16})_(\d+)$/;

export class ReplayBuffers {
  private readonly logs = new Map<string, Log>();
  // Ended streams in the order they ended (so by end time): purging pops from the front
  // instead of walking every log on every request.
  private readonly ended: { stream: string; log: Log }[] = [];
  // Stream names: a random prefix per buffer set and a counter. They need to be distinct, not
  // secret (a stream is found only from the session that opened it), and one random draw per
  // call showed in profiles.
  private readonly prefix = randomBytes(4).toString('hex');
  private counter = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** A log for a new stream of this session. */
  open(session: string): ReplayLog {
    this.purge();
    while (this.logs.size >= REPLAY_MAX_STREAMS) this.logs.delete(this.logs.keys().next().value!);
    this.counter = (this.counter + 1) >>> 0;
    const stream = this.prefix + this.counter.toString(16).padStart(8, '0');
    const log: Log = { session, events: [], bytes: 0, seq: 0, endedAt: undefined, followers: new Set() };
    this.logs.set(stream, log);
    return {
      nextId: () => `${stream}_${++log.seq}`,
      record: (id, chunk) => this.record(log, Number(ID.exec(id)?.[2] ?? log.seq), chunk),
      end: () => {
        if (log.endedAt !== undefined) return;
        log.endedAt = this.now();
        this.ended.push({ stream, log });
        // Entries of logs the stream cap already evicted are dropped in one pass now and then,
        // so the queue stays within a small multiple of the cap whatever the call rate.
        if (this.ended.length > 2 * REPLAY_MAX_STREAMS) this.compactEnded();
        for (const f of log.followers) f.close();
        log.followers.clear();
      },
    };
  }

  /** True when `resume` would continue a stream: this session has the stream the
   * Last-Event-ID names, and still holds every event after it. */
  canResume(session: string, lastEventId: string | undefined): boolean {
    return this.find(session, lastEventId) !== undefined;
  }

  /** The stream a Last-Event-ID continues: the events after it, then the rest as it comes.
   * Undefined when this session has no such stream or its events are no longer all held.
   * The later events and the call's end go through `hooks.follower` when given (the stream
   * and a function that stops following come in), straight to the stream otherwise. */
  resume(session: string, lastEventId: string | undefined, hooks: ResumeHooks = {}): SseStream | undefined {
    const found = this.find(session, lastEventId);
    if (!found) return undefined;
    const { log, after } = found;
    const unfollow = (): void => void log.followers.delete(follower);
    const stream = new SseStream({
      ...(hooks.keepAliveMs ? { keepAliveMs: hooks.keepAliveMs } : {}),
      onCancel: () => {
        unfollow();
        hooks.onCancel?.();
      },
    });
    const follower: Follower = hooks.follower?.(stream, unfollow) ?? stream;
    for (const e of log.events) if (e.seq > after) stream.sendChunk(e.chunk);
    if (log.endedAt !== undefined) follower.close();
    else log.followers.add(follower);
    return stream;
  }

  private find(session: string, lastEventId: string | undefined): { log: Log; after: number } | undefined {
    if (lastEventId === undefined) return undefined;
    this.purge();
    const m = ID.exec(lastEventId.trim());
    const log = m ? this.logs.get(m[1]!) : undefined;
    if (!log || log.session !== session) return undefined;
    const after = Number(m![2]);
    const first = log.events[0]?.seq ?? log.seq + 1;
    return after + 1 < first ? undefined : { log, after };
  }

  /** A session that ended takes its streams with it. */
  dropSession(session: string): void {
    for (const [id, log] of this.logs) if (log.session === session) this.logs.delete(id);
  }

  private record(log: Log, seq: number, chunk: string): void {
    log.events.push({ seq, chunk });
    log.bytes += chunk.length;
    while (log.bytes > REPLAY_MAX_BYTES && log.events.length > 0) log.bytes -= log.events.shift()!.chunk.length;
    for (const f of log.followers) f.sendChunk(chunk);
  }

  private compactEnded(): void {
    const live = this.ended.filter((e) => this.logs.get(e.stream) === e.log);
    this.ended.length = 0;
    this.ended.push(...live);
  }

  private purge(): void {
    const t = this.now();
    while (this.ended.length > 0 && t - this.ended[0]!.log.endedAt! > REPLAY_RETENTION_MS) {
      const { stream, log } = this.ended.shift()!;
      // Only if the name still holds this log (it may have been evicted by the stream cap).
      if (this.logs.get(stream) === log) this.logs.delete(stream);
    }
  }
}
