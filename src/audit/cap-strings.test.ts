import { describe, expect, it } from 'vitest';
import { capRecordStrings, capString, CUT_MARKER_PREFIX } from './cap-strings.ts';

describe('capString', () => {
  it('keeps a string within the budget as it is', () => {
    expect(capString('abc', 64)).toBe('abc');
    expect(capString('é'.repeat(32), 64)).toBe('é'.repeat(32));
  });

  it('cuts a longer one to its first bytes and says how many were left out', () => {
    expect(capString('a'.repeat(100), 64)).toBe(`${'a'.repeat(64)}${CUT_MARKER_PREFIX}36 bytes]`);
    expect(capString('x'.repeat(4_194_304), 1024)).toBe(`${'x'.repeat(1024)}…[cut 4193280 bytes]`);
  });

  it('never cuts a character in half: the kept part is valid UTF-8 within the budget', () => {
    // 'é' is 2 bytes, '😀' 4 (a surrogate pair): 65 bytes of budget fit 32 'é' and not the 33rd.
    const cut = capString('é'.repeat(40), 65);
    expect(cut).toBe(`${'é'.repeat(32)}${CUT_MARKER_PREFIX}16 bytes]`);
    const emoji = capString('😀'.repeat(20), 66);
    expect(emoji.startsWith('😀'.repeat(16) + CUT_MARKER_PREFIX)).toBe(true);
    expect(emoji).toContain('[cut 16 bytes]');
    expect(Buffer.from(emoji, 'utf8').toString('utf8')).toBe(emoji);
  });
});

describe('capRecordStrings', () => {
  const record = {
    type: 'request',
    rpcId: 'i'.repeat(5000),
    method: 'tools/call',
    client: { name: 'n'.repeat(2000), version: '1' },
    params: { ['k'.repeat(300)]: 'v' },
    principal: { groups: ['g'.repeat(500), 'ok'] },
    arguments: { full: { text: 'a'.repeat(5000) } },
    result: { redacted: 'r'.repeat(5000) },
    durationMs: 3,
  };

  it('cuts every client-controlled string, keys and array items included, at any depth', () => {
    const capped = capRecordStrings(record, 256) as typeof record;
    expect(capped.rpcId).toBe(`${'i'.repeat(256)}…[cut 4744 bytes]`);
    expect(capped.client.name).toBe(`${'n'.repeat(256)}…[cut 1744 bytes]`);
    expect(Object.keys(capped.params)).toEqual([`${'k'.repeat(256)}…[cut 44 bytes]`]);
    expect(capped.principal.groups).toEqual([`${'g'.repeat(256)}…[cut 244 bytes]`, 'ok']);
    expect(capped.method).toBe('tools/call');
    expect(capped.durationMs).toBe(3);
  });

  it('leaves recorded bodies to their own mode, and never changes the record it was given', () => {
    const capped = capRecordStrings(record, 256) as typeof record;
    expect(capped.arguments).toBe(record.arguments);
    expect(capped.result).toBe(record.result);
    expect(record.rpcId).toHaveLength(5000);
  });

  it('caps bodies in event details, which have no mode of their own', () => {
    const event = { type: 'event', event: 'approval_requested', detail: { arguments: { note: 'z'.repeat(300) } } };
    expect((capRecordStrings(event, 100) as typeof event).detail.arguments.note).toBe(`${'z'.repeat(100)}…[cut 200 bytes]`);
  });

  it('returns the same object when nothing is over the budget', () => {
    const small = { type: 'request', rpcId: 7, method: 'tools/list', principal: { groups: ['a'] } };
    expect(capRecordStrings(small, 64)).toBe(small);
  });

  it('keeps a "__proto__" key as a member', () => {
    const tricky = JSON.parse(`{"type":"event","detail":{"__proto__":"${'p'.repeat(100)}"}}`) as { detail: object };
    const capped = capRecordStrings(tricky, 64) as { detail: object };
    expect(Object.getPrototypeOf(capped.detail)).toBe(Object.prototype);
    expect(JSON.stringify(capped.detail)).toBe(`{"__proto__":"${'p'.repeat(64)}…[cut 36 bytes]"}`);
  });
});
