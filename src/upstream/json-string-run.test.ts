import { describe, expect, it } from 'vitest';
import { JsonStringRun } from './json-string-run.ts';

/** `bytes` placed at `offset` inside a larger buffer, so the run meets every word alignment. */
function at(offset: number, bytes: Buffer): Buffer {
  const whole = Buffer.alloc(offset + bytes.length + 8, 0x01);
  bytes.copy(whole, offset);
  return whole.subarray(offset, offset + bytes.length);
}

function endOf(chunk: Buffer, from = 0): number {
  const run = new JsonStringRun();
  run.reset(chunk);
  return run.end(from);
}

// Every byte a plain run may hold: neither a control character, a quote nor a backslash.
const PLAIN = Buffer.from(Array.from({ length: 256 }, (_, b) => b).filter((b) => b >= 0x20 && b !== 0x22 && b !== 0x5c));

describe('JsonStringRun', () => {
  it('finds every control character, at every place in short and long runs and every alignment', () => {
    for (const length of [5, 63, 64, 77, 200, 203]) {
      for (let offset = 0; offset < 4; offset++) {
        for (let place = 0; place < length; place++) {
          for (const control of [0x00, 0x09, 0x0a, 0x0d, 0x1f]) {
            const bytes = Buffer.alloc(length, 0x61);
            bytes[place] = control;
            expect(endOf(at(offset, bytes))).toBe(-1);
          }
        }
      }
    }
  });

  it('passes every other byte value, wherever it sits, up to the chunk end or the quote or backslash', () => {
    for (let offset = 0; offset < 4; offset++) {
      for (let shift = 0; shift < 8; shift++) {
        const bytes = Buffer.concat([PLAIN.subarray(shift), PLAIN.subarray(0, shift)]);
        expect(endOf(at(offset, bytes))).toBe(bytes.length);
        expect(endOf(at(offset, Buffer.concat([bytes, Buffer.from('"x')])))).toBe(bytes.length);
        expect(endOf(at(offset, Buffer.concat([bytes, Buffer.from('\\n"')])))).toBe(bytes.length);
      }
    }
  });

  it('checks only the run, not control characters past its end', () => {
    const chunk = Buffer.from(`${'a'.repeat(100)}"\n\t${'b'.repeat(100)}\u0001`);
    expect(endOf(chunk)).toBe(100);
    expect(endOf(chunk, 103)).toBe(-1);
  });

  it('finds the next quote or backslash for each of many runs in one chunk, from where each begins', () => {
    const chunk = Buffer.from('"ab","c\\"d","","' + 'e'.repeat(70) + '"');
    const run = new JsonStringRun();
    run.reset(chunk);
    expect(run.end(1)).toBe(3);
    expect(run.end(6)).toBe(7);
    expect(run.end(9)).toBe(10);
    expect(run.end(13)).toBe(13);
    expect(run.end(16)).toBe(86);
    run.reset(Buffer.from('xyz'));
    expect(run.end(0)).toBe(3);
  });
});
