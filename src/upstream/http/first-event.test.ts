import { describe, expect, it } from 'vitest';
import { FIRST_EVENT_REST_FROM, firstEventEnd } from './first-event.ts';

const note = (i: number): string => `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":${i}}}\n\n`;
/** Notifications enough to pass the split length. */
function burst(): string {
  let text = '';
  for (let i = 0; text.length < 2 * FIRST_EVENT_REST_FROM; i++) text += note(i);
  return text;
}

describe('firstEventEnd', () => {
  it('cuts a long chunk just past its first event', () => {
    const text = burst();
    expect(firstEventEnd(Buffer.from(text))).toBe(Buffer.byteLength(note(0)));
  });

  it('passes over priming events (an id and empty data) to the first event with data', () => {
    for (const priming of ['id: 1\ndata: \n\n', 'id: 1\ndata:\n\n', 'id: 1\r\ndata:\r\n\r\n', ': keep-alive\n\n']) {
      const text = priming + burst();
      expect(firstEventEnd(Buffer.from(text)), JSON.stringify(priming)).toBe(Buffer.byteLength(priming + note(0)));
    }
  });

  it('reads CRLF line ends', () => {
    const text = burst().replaceAll('\n', '\r\n');
    expect(firstEventEnd(Buffer.from(text))).toBe(Buffer.byteLength(note(0).replaceAll('\n', '\r\n')));
  });

  it('does not cut a chunk with little after its first event, one that ends with it, or one whose first event goes on past it', () => {
    expect(firstEventEnd(Buffer.from(note(0) + note(1)))).toBe(-1);
    expect(firstEventEnd(Buffer.from(note(0) + 'data: ' + 'x'.repeat(FIRST_EVENT_REST_FROM - 9) + '\n\n'))).toBe(-1);
    expect(firstEventEnd(Buffer.from(note(0) + 'data: ' + 'x'.repeat(FIRST_EVENT_REST_FROM - 8) + '\n\n'))).toBe(Buffer.byteLength(note(0)));
    const one = `data: ${'x'.repeat(2 * FIRST_EVENT_REST_FROM)}\n\n`;
    expect(firstEventEnd(Buffer.from(one))).toBe(-1);
    expect(firstEventEnd(Buffer.from(`data: ${'x'.repeat(FIRST_EVENT_REST_FROM)}`))).toBe(-1);
  });

  it('gives up after a few events without data rather than scanning the chunk', () => {
    const text = 'id: 1\ndata:\n\n'.repeat(5) + burst();
    expect(firstEventEnd(Buffer.from(text))).toBe(-1);
  });

  it('does not take a "data:" inside another field for a data line', () => {
    const text = `id: data:x\ndata:\n\n` + burst();
    expect(firstEventEnd(Buffer.from(text))).toBe(Buffer.byteLength('id: data:x\ndata:\n\n' + note(0)));
  });
});
