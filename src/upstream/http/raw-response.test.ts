import { describe, expect, it } from 'vitest';
import { RequestControl, ResponseHeaders } from './raw-response.ts';

describe('ResponseHeaders: the raw pairs undici hands over, read by name', () => {
  const raw = ['Content-Type', 'text/event-stream', 'mcp-session-id', 'abc', 'X-Twice', 'one', 'x-twice', 'two', 'Content-Length', '12'].map((v) => Buffer.from(v, 'latin1'));
  const headers = new ResponseHeaders(raw);

  it('finds a header whatever the case it came in, and the first of a repeated one', () => {
    expect(headers.get('content-type')).toBe('text/event-stream');
    expect(headers.get('mcp-session-id')).toBe('abc');
    expect(headers.get('x-twice')).toBe('one');
    expect(headers.get('content-length')).toBe('12');
  });

  it('answers undefined for a header that is absent, a prefix of one included', () => {
    expect(headers.get('content')).toBeUndefined();
    expect(headers.get('retry-after')).toBeUndefined();
    expect(ResponseHeaders.EMPTY.get('content-type')).toBeUndefined();
  });

  it('reads values as latin1 and takes string pairs too', () => {
    expect(new ResponseHeaders([Buffer.from('X-Name'), Buffer.from([0x63, 0xe9])]).get('x-name')).toBe('cé');
    expect(new ResponseHeaders(['Mcp-Session-Id', 's1']).get('mcp-session-id')).toBe('s1');
  });
});

describe('RequestControl: abort and pause of the request on the wire', () => {
  it('holds undici while paused and restarts it once on resume', () => {
    const c = new RequestControl();
    let resumed = 0;
    c.responding(() => resumed++);
    expect(c.reading).toBe(true);
    c.resume();
    expect(resumed).toBe(0);
    c.pause();
    expect(c.reading).toBe(false);
    c.resume();
    c.resume();
    expect([c.reading, resumed]).toEqual([true, 1]);
  });

  it('aborts with the reason once connected, and does nothing before', () => {
    const c = new RequestControl();
    c.abort(new Error('early'));
    const reasons: (Error | undefined)[] = [];
    c.connected((r) => reasons.push(r));
    c.abort(new Error('late'));
    expect(reasons.map((r) => r?.message)).toEqual(['late']);
  });
});
