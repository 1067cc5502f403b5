import { describe, expect, it } from 'vitest';
import { REPLAY_MAX_BYTES, REPLAY_MAX_STREAMS, REPLAY_RETENTION_MS, ReplayBuffers } from './sse-replay.ts';
import { SseStream } from './sse-stream.ts';
import { standInResponse } from '../../test/harness/stand-in-response.ts';

/** What a stream writes, through a stand-in for its response (headers, chunks, end). */
function capture(stream: SseStream): { text: () => string; ended: () => boolean } {
  const out = standInResponse();
  stream.attach(out.res);
  return out;
}

function writer(buffers: ReplayBuffers, session: string): { stream: SseStream; ids: () => string[] } {
  const log = buffers.open(session);
  const ids: string[] = [];
  const stream = new SseStream({ replay: { nextId: () => { const id = log.nextId(); ids.push(id); return id; }, record: log.record, end: log.end } });
  return { stream, ids: () => ids };
}

describe('resumable legacy streams', () => {
  it('replays the events after the given id to the same session, then the rest as it comes, and ends with the call', async () => {
    const buffers = new ReplayBuffers();
    const { stream, ids } = writer(buffers, 's1');
    stream.prime(500);
    stream.sendText('{"n":1}');
    stream.sendText('{"n":2}');
    const resumed = buffers.resume('s1', ids()[1]);
    expect(resumed).toBeDefined();
    const out = capture(resumed!);
    expect(out.text()).toContain('{"n":2}');
    expect(out.text()).not.toContain('{"n":1}');
    stream.sendText('{"n":3}');
    // Events sent in one turn of the event loop are written at its end, as one write.
    await new Promise((r) => process.nextTick(r));
    expect(out.text()).toContain('{"n":3}');
    expect(out.ended()).toBe(false);
    stream.close();
    expect(out.ended()).toBe(true);
  });

  it('does not resume for another session, an unknown id or a malformed one', () => {
    const buffers = new ReplayBuffers();
    const { stream, ids } = writer(buffers, 's1');
    stream.prime(100);
    expect(buffers.resume('s2', ids()[0])).toBeUndefined();
    expect(buffers.resume('s1', '0123456789abcdef_1')).toBeUndefined();
    expect(buffers.resume('s1', 'not-an-id')).toBeUndefined();
    expect(buffers.resume('s1', undefined)).toBeUndefined();
  });

  it('gives no replay once events the client missed dropped out of the bounded buffer', () => {
    const buffers = new ReplayBuffers();
    const { stream, ids } = writer(buffers, 's1');
    stream.prime(100);
    const big = JSON.stringify({ pad: 'x'.repeat(REPLAY_MAX_BYTES / 2) });
    for (let i = 0; i < 3; i++) stream.sendText(big);
    expect(buffers.resume('s1', ids()[0])).toBeUndefined();
    expect(buffers.resume('s1', ids()[2])).toBeDefined();
  });

  it('forgets an ended stream after the retention time, the oldest stream past the limit, and a session\'s streams when it ends', () => {
    let now = 0;
    const buffers = new ReplayBuffers(() => now);
    const ended = writer(buffers, 's1');
    ended.stream.prime(100);
    ended.stream.close();
    expect(buffers.resume('s1', ended.ids()[0])).toBeDefined();
    now += REPLAY_RETENTION_MS + 1;
    expect(buffers.resume('s1', ended.ids()[0])).toBeUndefined();

    const first = writer(buffers, 's1');
    first.stream.prime(100);
    for (let i = 0; i < REPLAY_MAX_STREAMS; i++) writer(buffers, 's1').stream.prime(100);
    expect(buffers.resume('s1', first.ids()[0])).toBeUndefined();

    const mine = writer(buffers, 's3');
    mine.stream.prime(100);
    buffers.dropSession('s3');
    expect(buffers.resume('s3', mine.ids()[0])).toBeUndefined();
  });

  it('expires ended streams by the time each ended, also after many more streams than the cap came and went', () => {
    let now = 0;
    const buffers = new ReplayBuffers(() => now);
    // Far more ended streams than the cap: the oldest are evicted, the queue of ended ones is compacted.
    for (let i = 0; i < 5 * REPLAY_MAX_STREAMS; i++) {
      const w = writer(buffers, 's1');
      w.stream.prime(100);
      w.stream.close();
    }
    const early = writer(buffers, 's1');
    early.stream.prime(100);
    early.stream.close();
    now += REPLAY_RETENTION_MS / 2;
    const late = writer(buffers, 's1');
    late.stream.prime(100);
    late.stream.close();
    const open = writer(buffers, 's1');
    open.stream.prime(100);
    expect(new Set([early.ids()[0], late.ids()[0], open.ids()[0]]).size).toBe(3);
    now += REPLAY_RETENTION_MS / 2 + 1;
    expect(buffers.resume('s1', early.ids()[0])).toBeUndefined();
    expect(buffers.resume('s1', late.ids()[0])).toBeDefined();
    now += REPLAY_RETENTION_MS;
    expect(buffers.resume('s1', late.ids()[0])).toBeUndefined();
    // A stream that has not ended is never expired by time.
    expect(buffers.resume('s1', open.ids()[0])).toBeDefined();
  });

  it('still records what a call sends after its client went away', () => {
    const buffers = new ReplayBuffers();
    const { stream, ids } = writer(buffers, 's1');
    stream.prime(100);
    // No response attached at all: the events are recorded, and a resumption gets them.
    stream.sendText('{"late":true}');
    stream.close();
    const out = capture(buffers.resume('s1', ids()[0])!);
    expect(out.text()).toContain('{"late":true}');
    expect(out.ended()).toBe(true);
  });
});
