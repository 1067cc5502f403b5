import { describe, expect, it } from 'vitest';
import { SseStream } from './sse-stream.ts';
import { standInResponse, type StandInResponse } from '../../test/harness/stand-in-response.ts';

function capture(stream: SseStream, writableLength = 0): StandInResponse {
  const out = standInResponse(writableLength);
  stream.attach(out.res);
  return out;
}

const turn = (): Promise<void> => new Promise((r) => process.nextTick(r));
const event = (n: number): string => `event: message\ndata: {"n":${n}}\n\n`;

describe('SseStream', () => {
  it('writes the events of one turn of the event loop as one write, in order, at its end', async () => {
    const stream = new SseStream();
    const out = capture(stream);
    for (let n = 0; n < 100; n++) stream.sendText(`{"n":${n}}`);
    expect(out.writes).toEqual([]);
    await turn();
    expect(out.writes).toEqual([Array.from({ length: 100 }, (_, n) => event(n)).join('')]);
    stream.sendText('{"n":100}');
    await turn();
    expect(out.writes[1]).toBe(event(100));
  });

  it('writes what was queued before a relay takes the response over, and before it ends', () => {
    const stream = new SseStream();
    const out = capture(stream);
    stream.sendText('{"n":1}');
    expect(stream.relayInto()).toBeDefined();
    expect(out.writes.join('')).toBe(`${event(1)}event: message\ndata: `);
    const other = new SseStream();
    const last = capture(other);
    other.sendText('{"n":2}');
    other.sendParts(['{"n"', ':3}']);
    other.sendText('{"n":4}');
    other.close();
    expect(last.writes.join('')).toBe(event(2) + event(3) + event(4));
    expect(last.ended()).toBe(true);
  });

  it('counts queued events in the backlog: a client that does not read is dropped within one turn', async () => {
    let cancelled = false;
    const stream = new SseStream({ maxUnsentBytes: 1000, onCancel: () => (cancelled = true) });
    const out = capture(stream, 900);
    for (let n = 0; n < 20 && !stream.closed; n++) stream.sendText(`{"n":${n}}`);
    expect(stream.closed).toBe(true);
    expect(cancelled).toBe(true);
    expect(out.destroyed()).toBe(true);
    await turn();
    expect(out.writes).toEqual([]);
  });
});
