import { describe, expect, it } from 'vitest';
import { AnswerBudget } from '../../limits/answer-budget.ts';
import { LineSplitter, OVERLONG_SNIPPET_BYTES, type OverlongLine } from './line-splitter.ts';

function splitter(max: number) {
  const lines: string[] = [];
  const overlong: OverlongLine[] = [];
  const s = new LineSplitter(max, { line: (l) => lines.push(l), overlong: (o) => overlong.push(o) });
  return { s, lines, overlong };
}

describe('LineSplitter', () => {
  it('hands over each LF-terminated line, CRLF too, across chunks', () => {
    const { s, lines } = splitter(100);
    s.push(Buffer.from('one\ntw'));
    s.push(Buffer.from('o\r\nthree'));
    expect(lines).toEqual(['one', 'two']);
    s.push(Buffer.from('\n\n'));
    expect(lines).toEqual(['one', 'two', 'three', '']);
  });

  it('keeps a UTF-8 character whole when a chunk splits it', () => {
    const { s, lines } = splitter(100);
    const bytes = Buffer.from('é€\n');
    s.push(bytes.subarray(0, 1));
    s.push(bytes.subarray(1, 3));
    s.push(bytes.subarray(3));
    expect(lines).toEqual(['é€']);
  });

  it('hands over a last line without LF when the output ends', () => {
    const { s, lines } = splitter(100);
    s.push(Buffer.from('a\nlast'));
    s.end();
    expect(lines).toEqual(['a', 'last']);
  });

  it('takes a line of exactly the limit, and reports one byte more as overlong with its ends', () => {
    const { s, lines, overlong } = splitter(10);
    s.push(Buffer.from('0123456789\n'));
    expect(lines).toEqual(['0123456789']);
    s.push(Buffer.from('0123456789A\r\nnext\n'));
    expect(overlong).toEqual([{ head: '0123456789A', tail: '0123456789A', bytes: 11, overBudget: false }]);
    expect(lines).toEqual(['0123456789', 'next']);
  });

  it('never holds more than the limit of a line, however long it runs, and reads on after it', () => {
    const max = 64 * 1024;
    const { s, lines, overlong } = splitter(max);
    const chunk = Buffer.alloc(16 * 1024, 'x');
    let most = 0;
    s.push(Buffer.from('{"jsonrpc":"2.0","id":7,"result":"'));
    // 256 times the limit, in pipe-sized chunks, without a line end.
    for (let i = 0; i < 1024; i++) {
      s.push(chunk);
      most = Math.max(most, s.bufferedBytes);
    }
    s.push(Buffer.from('"}\n{"ok":true}\n'));
    expect(most).toBeLessThanOrEqual(max);
    expect(s.bufferedBytes).toBe(0);
    expect(overlong).toHaveLength(1);
    expect(overlong[0]!.bytes).toBe(34 + 1024 * chunk.length + 2);
    expect(overlong[0]!.head.startsWith('{"jsonrpc":"2.0","id":7,"result":"xxx')).toBe(true);
    expect(Buffer.byteLength(overlong[0]!.head)).toBe(OVERLONG_SNIPPET_BYTES);
    expect(overlong[0]!.tail.endsWith('xxx"}')).toBe(true);
    expect(Buffer.byteLength(overlong[0]!.tail)).toBe(OVERLONG_SNIPPET_BYTES);
    expect(lines).toEqual(['{"ok":true}']);
  });

  it('charges a line to the shared budget while it is read and parsed, and drops one that does not fit', () => {
    const budget = new AnswerBudget(100);
    const lines: string[] = [];
    const held: number[] = [];
    const overlong: OverlongLine[] = [];
    const s = new LineSplitter(1_000, { line: (l) => (lines.push(l), held.push(budget.bytes())), overlong: (o) => overlong.push(o) }, budget.meter());
    s.push(Buffer.from('a'.repeat(60)));
    expect(budget.bytes()).toBe(60);
    s.push(Buffer.from('a\n'));
    // Still charged while its sink runs (the parse), given back after.
    expect(held).toEqual([61]);
    expect(budget.bytes()).toBe(0);
    // Another answer in flight holds 50: a line of 60 no longer fits beside it.
    expect(budget.take(50)).toBe(true);
    s.push(Buffer.from('{"id":3,"r":"'));
    s.push(Buffer.from('b'.repeat(60)));
    expect(budget.bytes()).toBe(50);
    s.push(Buffer.from('"}\nnext\n'));
    expect(overlong).toEqual([{ head: `{"id":3,"r":"${'b'.repeat(60)}`, tail: `{"id":3,"r":"${'b'.repeat(60)}"}`, bytes: 75, overBudget: true }]);
    expect(lines).toEqual(['a'.repeat(61), 'next']);
    expect(budget.bytes()).toBe(50);
  });
});
