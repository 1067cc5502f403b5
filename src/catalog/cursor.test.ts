import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cursorWindow, decodeCursor, encodeCursor, listVersion, paginate } from './cursor.ts';

const SECRET = Buffer.alloc(32, 7);
const OTHER_SECRET = Buffer.alloc(32, 8);

function flip(text: string, at: number): string {
  const c = text[at]!;
  return `${text.slice(0, at)}${c === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
}

describe('cursor encode/decode', () => {
  it('round-trips offset and version for the same kind', () => {
    const cursor = encodeCursor(SECRET, { kind: 'tools', offset: 50, version: 'abc123' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(decodeCursor(SECRET, cursor, 'tools')).toEqual({ ok: true, value: { offset: 50, version: 'abc123' } });
  });

  it('rejects a cursor with any single character changed', () => {
    const cursor = encodeCursor(SECRET, { kind: 'tools', offset: 0, version: 'v1' });
    for (let i = 0; i < cursor.length; i++) {
      if (cursor[i] === '.') continue;
      expect(decodeCursor(SECRET, flip(cursor, i), 'tools').ok).toBe(false);
    }
  });

  it('rejects a cursor for another list kind', () => {
    const cursor = encodeCursor(SECRET, { kind: 'tools', offset: 10, version: 'v' });
    expect(decodeCursor(SECRET, cursor, 'prompts')).toEqual({ ok: false, error: 'cursor is not for prompts' });
  });

  it('rejects a cursor signed with another secret', () => {
    const cursor = encodeCursor(OTHER_SECRET, { kind: 'tools', offset: 10, version: 'v' });
    expect(decodeCursor(SECRET, cursor, 'tools')).toEqual({ ok: false, error: 'cursor signature mismatch' });
  });

  it('rejects a correctly signed payload with a negative, fractional or missing offset, or no version', () => {
    // Signed with the real key, as only a bug in our own encoder could produce.
    const sign = (payload: object): string => {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      const tag = createHmac('sha256', SECRET).update(body).digest().subarray(0, 16).toString('base64url');
      return `${body}.${tag}`;
    };
    expect(decodeCursor(SECRET, sign({ k: 'tools', o: 3, v: 'v' }), 'tools')).toEqual({ ok: true, value: { offset: 3, version: 'v' } });
    const offsetError = { ok: false, error: 'cursor offset must be a non-negative integer' };
    expect(decodeCursor(SECRET, sign({ k: 'tools', o: -1, v: 'v' }), 'tools')).toEqual(offsetError);
    expect(decodeCursor(SECRET, sign({ k: 'tools', o: 1.5, v: 'v' }), 'tools')).toEqual(offsetError);
    expect(decodeCursor(SECRET, sign({ k: 'tools', o: '1', v: 'v' }), 'tools')).toEqual(offsetError);
    expect(decodeCursor(SECRET, sign({ k: 'tools', v: 'v' }), 'tools')).toEqual(offsetError);
    expect(decodeCursor(SECRET, sign({ k: 'tools', o: 1 }), 'tools')).toEqual({ ok: false, error: 'cursor has no list version' });
    expect(decodeCursor(SECRET, sign(['tools', 1]), 'tools').ok).toBe(false);
  });

  it('refuses to encode a negative or fractional offset', () => {
    expect(() => encodeCursor(SECRET, { kind: 'tools', offset: -1, version: 'v' })).toThrow(RangeError);
    expect(() => encodeCursor(SECRET, { kind: 'tools', offset: 1.5, version: 'v' })).toThrow(RangeError);
  });

  it('rejects malformed input: empty, no dot, extra dots, bad alphabet, too long', () => {
    for (const bad of ['', 'abc', 'a.b.c', 'ab$.cd', `${'a'.repeat(2000)}.b`]) {
      expect(decodeCursor(SECRET, bad, 'tools').ok).toBe(false);
    }
  });

  it('refuses a secret shorter than 16 bytes', () => {
    expect(() => encodeCursor(Buffer.alloc(8), { kind: 'tools', offset: 0, version: 'v' })).toThrow(RangeError);
  });
});

describe('listVersion', () => {
  it('ignores object key order but not array order or values', () => {
    const a = listVersion([{ name: 'x', inputSchema: { type: 'object', properties: {} } }]);
    const b = listVersion([{ inputSchema: { properties: {}, type: 'object' }, name: 'x' }]);
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(listVersion([{ name: 'x' }, { name: 'y' }])).not.toBe(listVersion([{ name: 'y' }, { name: 'x' }]));
    expect(listVersion([{ name: 'x', n: 1 }])).not.toBe(listVersion([{ name: 'x', n: 2 }]));
    expect(listVersion([{ name: 'x', n: '1' }])).not.toBe(listVersion([{ name: 'x', n: 1 }]));
  });

  it('detects a changed list through the cursor version', () => {
    const before = [{ name: 'a' }, { name: 'b' }];
    const cursor = encodeCursor(SECRET, { kind: 'tools', offset: 1, version: listVersion(before) });
    const decoded = decodeCursor(SECRET, cursor, 'tools');
    expect(decoded.ok && decoded.value.version === listVersion(before)).toBe(true);
    expect(decoded.ok && decoded.value.version === listVersion([...before, { name: 'c' }])).toBe(false);
  });
});

describe('paginate', () => {
  const items = [1, 2, 3, 4, 5];

  it('returns a first page with the next offset', () => {
    expect(paginate(items, 2, 0)).toEqual({ page: [1, 2], nextOffset: 2 });
  });

  it('omits nextOffset on a last page that ends exactly at the list end', () => {
    const last = paginate([1, 2, 3, 4], 2, 2);
    expect(last).toEqual({ page: [3, 4] });
    expect('nextOffset' in last).toBe(false);
  });

  it('returns a short last page and an empty page past the end', () => {
    expect(paginate(items, 2, 4)).toEqual({ page: [5] });
    expect(paginate(items, 2, 5)).toEqual({ page: [] });
    expect(paginate(items, 2, 99)).toEqual({ page: [] });
    expect(paginate([], 10, 0)).toEqual({ page: [] });
  });

  it('returns the whole list when it fits in one page', () => {
    expect(paginate(items, 5, 0)).toEqual({ page: items });
  });

  it('rejects a non-positive page size or a bad offset', () => {
    expect(() => paginate(items, 0, 0)).toThrow(RangeError);
    expect(() => paginate(items, 2, -1)).toThrow(RangeError);
  });
});

describe('cursorWindow', () => {
  const secret = Buffer.alloc(32, 3);
  it('starts at 0 without a cursor, hands out the next page, and refuses what does not fit the list', () => {
    const first = cursorWindow(secret, 'tools', 'v1', 5, 2, undefined);
    expect(first.ok && first.value).toMatchObject({ offset: 0, end: 2 });
    const next = first.ok ? first.value.nextCursor : undefined;
    expect(cursorWindow(secret, 'tools', 'v1', 5, 2, next)).toMatchObject({ ok: true, value: { offset: 2, end: 4 } });
    expect(cursorWindow(secret, 'tools', 'v2', 5, 2, next)).toEqual({ ok: false, error: 'the list changed; start again without a cursor' });
    expect(cursorWindow(secret, 'tools', 'v1', 1, 2, next)).toEqual({ ok: false, error: 'past the end of the list' });
    expect(cursorWindow(secret, 'tools', 'v1', 5, 2, 7)).toEqual({ ok: false, error: 'must be a string' });
    // The last page has no next cursor (MCP 2026-07-28, server/utilities/pagination).
    expect(cursorWindow(secret, 'tools', 'v1', 4, 2, next)).toEqual({ ok: true, value: { offset: 2, end: 4 } });
  });
});
