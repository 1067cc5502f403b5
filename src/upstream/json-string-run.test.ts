import { describe, expect, it } from 'vitest';
import { JsonStringRun } from './json-string-run.ts';
import { controlScan } from './control-bytes.ts';

/** `bytes` placed at `offset` inside a larger buffer, so the run meets every word alignment. */
function at(offset: number, bytes: Buffer): Buffer {
  const whole = Buffer.alloc(offset + bytes.length + 8, 0x01);
  bytes.copy(whole, offset);
  return whole.subarray(offset, offset + bytes.length);
}

function endOf(chunk: Buffer, from = 0, simd = true): number {
  const run = new JsonStringRun({ simd });
  run.reset(chunk);
  return run.end(from);
}

// Every byte a plain run may hold: neither a control character, a quote nor a backslash.
const PLAIN = Buffer.from(Array.from({ length: 256 }, (_, b) => b).filter((b) => b >= 0x20 && b !== 0x22 && b !== 0x5c));

describe.each([
  ['WebAssembly SIMD', true],
  ['the word loop', false],
])('JsonStringRun, control characters found by %s', (_, simd) => {
  it('finds every control character, at every place in short and long runs and every alignment', () => {
    for (const length of [5, 63, 64, 77, 200, 203]) {
      for (let offset = 0; offset < 4; offset++) {
        for (let place = 0; place < length; place++) {
          for (const control of [0x00, 0x09, 0x0a, 0x0d, 0x1f]) {
            const bytes = Buffer.alloc(length, 0x61);
            bytes[place] = control;
            expect(endOf(at(offset, bytes), 0, simd)).toBe(-1);
          }
        }
      }
    }
  });

  it('passes every other byte value, wherever it sits, up to the chunk end or the quote or backslash', () => {
    for (let offset = 0; offset < 4; offset++) {
      for (let shift = 0; shift < 8; shift++) {
        const bytes = Buffer.concat([PLAIN.subarray(shift), PLAIN.subarray(0, shift)]);
        expect(endOf(at(offset, bytes), 0, simd)).toBe(bytes.length);
        expect(endOf(at(offset, Buffer.concat([bytes, Buffer.from('"x')])), 0, simd)).toBe(bytes.length);
        expect(endOf(at(offset, Buffer.concat([bytes, Buffer.from('\\n"')])), 0, simd)).toBe(bytes.length);
      }
    }
  });

  it('checks only the run, not control characters past its end', () => {
    const chunk = Buffer.from(`${'a'.repeat(100)}"\n\t${'b'.repeat(100)}\u0001`);
    expect(endOf(chunk, 0, simd)).toBe(100);
    expect(endOf(chunk, 103, simd)).toBe(-1);
  });
});

describe('JsonStringRun', () => {

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

describe('controlScan (WebAssembly SIMD)', () => {
  it('is available on the Node.js the gateway supports', () => {
    expect(controlScan).toBeTypeOf('function');
  });

  it('finds a control character in any window of a range longer than its 64 KiB page, and none outside the range', () => {
    const scan = controlScan!;
    const size = 3 * 65536 + 37;
    for (const place of [0, 15, 16, 65535, 65536, 65551, 131071, 131072 + 9, size - 17, size - 1]) {
      const bytes = Buffer.alloc(size, 0x7e);
      bytes[place] = 0x01;
      expect(scan(bytes, 0, size)).toBe(true);
      expect(scan(bytes, place, place + 1)).toBe(true);
      // The range stops just before it, or starts just after it: the padding hides nothing.
      expect(scan(bytes, 0, place)).toBe(false);
      expect(scan(bytes, place + 1, size)).toBe(false);
    }
    // A window shorter than its page, after a longer one that held a control character: the
    // stale bytes past the new window are not read.
    const dirty = Buffer.alloc(1000, 0x41);
    dirty[900] = 0x00;
    expect(scan(dirty, 0, 1000)).toBe(true);
    expect(scan(dirty, 0, 890)).toBe(false);
    expect(scan(Buffer.alloc(0), 0, 0)).toBe(false);
  });

  it('treats 0x20 and every byte above it, 0x80 to 0xff included, as plain', () => {
    const all = Buffer.from(Array.from({ length: 224 * 8 }, (_, i) => 0x20 + (i % 224)));
    expect(controlScan!(all, 0, all.length)).toBe(false);
    for (let b = 0; b < 0x20; b++) {
      const one = Buffer.from(all);
      one[(b * 53) % one.length] = b;
      expect(controlScan!(one, 0, one.length)).toBe(true);
    }
  });
});
