import { describe, expect, it } from 'vitest';
import { readSseData, SseParser } from './sse-reader.ts';

async function collect(chunks: (string | Uint8Array)[]): Promise<string[]> {
  async function* gen() {
    for (const c of chunks) yield typeof c === 'string' ? new TextEncoder().encode(c) : c;
  }
  const out: string[] = [];
  for await (const d of readSseData(gen())) out.push(d);
  return out;
}

function parse(chunks: string[], end = true): string[] {
  const out: string[] = [];
  const p = new SseParser((d) => out.push(d));
  for (const c of chunks) p.push(c);
  if (end) p.end();
  return out;
}

const SERVER_EVERYTHING = 'id: 1a\ndata: \n\nevent: message\nid: 2b\ndata: {"result":{},"jsonrpc":"2.0","id":7}\n\n';

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
  it('decodes a UTF-8 character split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo 世界\n\n');
    expect(await collect([bytes.slice(0, 8), bytes.slice(8, 15), bytes.slice(15)])).toEqual(['héllo 世界']);
  });
});

describe('SseParser', () => {
  it('hands over the priming event and the message of one chunk in one push', () => {
    const out: string[] = [];
    const p = new SseParser((d) => out.push(d));
    p.push(SERVER_EVERYTHING);
    expect(out).toEqual(['', '{"result":{},"jsonrpc":"2.0","id":7}']);
  });
  it('gives the same events whatever the chunking, down to one character at a time', () => {
    const text = `${SERVER_EVERYTHING}: ping\r\ndata:a\r\ndata:  b\r\rdata\n\n`;
    const whole = parse([text]);
    expect(whole).toEqual(['', '{"result":{},"jsonrpc":"2.0","id":7}', 'a\n b', '']);
    expect(parse([...text])).toEqual(whole);
  });
  it('treats a lone CR as a line end', () => {
    expect(parse(['data: a\rdata: b\r\r'])).toEqual(['a\nb']);
  });
  it('ignores fields other than data, including ones that start with "data"', () => {
    expect(parse(['dataset: x\ndata2: y\nevent: e\nretry: 5\ndata: z\n\n'])).toEqual(['z']);
  });
  it('keeps an unfinished event until its blank line arrives', () => {
    const out: string[] = [];
    const p = new SseParser((d) => out.push(d));
    p.push('data: {"a"');
    expect(out).toEqual([]);
    p.push(':1}\n');
    expect(out).toEqual([]);
    p.push('\n');
    expect(out).toEqual(['{"a":1}']);
  });
  it('delivers nothing at the end of a stream that has no data left', () => {
    expect(parse([': only a comment\n', 'id: 3\n\n'])).toEqual([]);
  });
});
