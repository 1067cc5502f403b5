import { describe, expect, it } from 'vitest';
import { readSseData } from './sse-reader.ts';

async function collect(chunks: string[]): Promise<string[]> {
  async function* gen() {
    for (const c of chunks) yield new TextEncoder().encode(c);
  }
  const out: string[] = [];
  for await (const d of readSseData(gen())) out.push(d);
  return out;
}

describe('readSseData', () => {
  it('yields one data payload per event, across chunk boundaries', async () => {
    expect(await collect(['event: message\nda', 'ta: {"a":1}\n', '\ndata: {"b":2}\n\n'])).toEqual(['{"a":1}', '{"b":2}']);
  });
  it('joins multi-line data and skips comments and ids', async () => {
    expect(await collect([': keep-alive\n\nid: 7\ndata: line1\ndata: line2\n\n'])).toEqual(['line1\nline2']);
  });
  it('handles CRLF line endings and a CRLF split across chunks', async () => {
    expect(await collect(['data: x\r', '\n\r\n', 'data: y\r\n\r\n'])).toEqual(['x', 'y']);
  });
  it('flushes a final event without a trailing blank line', async () => {
    expect(await collect(['data: last'])).toEqual(['last']);
  });
});
