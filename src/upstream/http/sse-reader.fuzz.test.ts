// Property tests of the SSE reader (WHATWG HTML §9.2 event stream format): an upstream's
// stream split into arbitrary chunks, at any byte (inside a line ending, inside a UTF-8
// character), with any of the three line endings, comments, other fields and multi-line
// data, gives exactly the events of a plain reading of the format, in order; and an event
// over the limit stops the stream however it is chunked. Bounded runs; fast-check prints the
// seed and the shrunk case on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSseData, SseEventTooLarge, SseParser } from './sse-reader.ts';

const RUNS = { numRuns: 300 };
/** Text a data line may hold: anything but CR and LF. */
const lineText = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', 'é', '日', '😀', '{', '"', '\t'), maxLength: 12 });
const eol = fc.constantFrom('\n', '\r\n', '\r');

type Line = { kind: 'data'; text: string; space: boolean } | { kind: 'comment'; text: string } | { kind: 'other'; field: string; text: string };
const line: fc.Arbitrary<Line> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('data' as const), text: lineText, space: fc.boolean() }), weight: 4 },
  fc.record({ kind: fc.constant('comment' as const), text: lineText }),
  fc.record({ kind: fc.constant('other' as const), field: fc.constantFrom('event', 'id', 'retry', 'dat', 'datax'), text: lineText }),
);
const event = fc.array(line, { minLength: 1, maxLength: 4 });
const stream = fc.array(event, { maxLength: 6 });

/** The stream's text with the line endings chosen, and the data the format says it carries. */
function render(events: Line[][], endings: string[]): { text: string; expected: string[] } {
  let text = '';
  let n = 0;
  // A CR ending followed by an LF one would be one CRLF ending: write that LF as CRLF.
  const next = (): string => {
    const e = endings[n++ % endings.length]!;
    return e === '\n' && text.endsWith('\r') ? '\r\n' : e;
  };
  const expected: string[] = [];
  for (const ev of events) {
    const data: string[] = [];
    for (const l of ev) {
      if (l.kind === 'data') {
        // "data: x" and "data:x" both carry "x"; a second leading space is part of the value.
        text += `data:${l.space ? ' ' : ''}${l.text}${next()}`;
        data.push(l.space || !l.text.startsWith(' ') ? l.text : l.text.slice(1));
      } else if (l.kind === 'comment') text += `:${l.text}${next()}`;
      else text += `${l.field}:${l.text}${next()}`;
    }
    text += next();
    if (data.length > 0) expected.push(data.join('\n'));
  }
  return { text, expected };
}

function cut<T extends { length: number; slice(a: number, b?: number): T }>(whole: T, points: number[]): T[] {
  const at = [...new Set(points.map((p) => p % (whole.length + 1)))].sort((a, b) => a - b);
  const pieces: T[] = [];
  let from = 0;
  for (const p of at) {
    pieces.push(whole.slice(from, p));
    from = p;
  }
  pieces.push(whole.slice(from));
  return pieces;
}

describe('SseParser, properties', () => {
  it('gives the same events, in order, however the text is chunked and whatever the line endings', () => {
    fc.assert(
      fc.property(stream, fc.array(eol, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 12 }), (events, endings, points) => {
        const { text, expected } = render(events, endings);
        const got: string[] = [];
        const parser = new SseParser((d) => got.push(d));
        for (const piece of cut(text, points)) expect(parser.push(piece)).toBe(true);
        parser.end();
        expect(got).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('decodes UTF-8 split anywhere, byte chunks through readSseData, to the same events', async () => {
    await fc.assert(
      fc.asyncProperty(stream, eol, fc.array(fc.nat(), { maxLength: 12 }), async (events, ending, points) => {
        const { text, expected } = render(events, [ending]);
        const bytes = Buffer.from(text, 'utf8');
        async function* chunks(): AsyncGenerator<Uint8Array> {
          for (const piece of cut(bytes, points)) yield piece;
        }
        const got: string[] = [];
        for await (const d of readSseData(chunks())) got.push(d);
        expect(got).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('stops at an event over the limit, however it is chunked, and hands over nothing of it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 8, max: 64 }), fc.array(fc.nat(), { maxLength: 8 }), (limit, points) => {
        const text = `data: ok\n\ndata: ${'x'.repeat(limit + 1)}\n\ndata: after\n\n`;
        const got: string[] = [];
        const parser = new SseParser((d) => got.push(d), limit);
        let fits = true;
        for (const piece of cut(text, points)) if (fits) fits = parser.push(piece);
        parser.end();
        expect(fits).toBe(false);
        expect(got).toEqual(['ok']);
      }),
      RUNS,
    );
  });

  it('throws SseEventTooLarge from readSseData for the same stream', async () => {
    async function* chunks(): AsyncGenerator<string> {
      yield 'data: ';
      yield 'y'.repeat(100);
    }
    await expect(async () => {
      for await (const _ of readSseData(chunks(), 50)) void _;
    }).rejects.toBeInstanceOf(SseEventTooLarge);
  });
});
