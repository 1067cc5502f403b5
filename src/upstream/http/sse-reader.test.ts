import { describe, expect, it } from 'vitest';
import { readSseData, SseEventTooLarge, SseParser, Utf8Chunks } from './sse-reader.ts';

async function collect(chunks: (string | Uint8Array)[], max?: number): Promise<string[]> {
  async function* gen() {
    for (const c of chunks) yield typeof c === 'string' ? new TextEncoder().encode(c) : c;
  }
  const out: string[] = [];
  for await (const d of readSseData(gen(), max)) out.push(d);
  return out;
}

function parse(chunks: string[], end = true, max?: number): string[] {
  const out: string[] = [];
  const p = new SseParser((d) => out.push(d), max);
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
  it('hands over an event at a lone CR ending its chunk, without waiting for the next chunk', () => {
    const out: string[] = [];
    const p = new SseParser((d) => out.push(d));
    // A CR-only server that keeps the stream open after its response.
    p.push('data: {"id":1}\r\r');
    expect(out).toEqual(['{"id":1}']);
    // An LF first in the next chunk is the rest of a CRLF, not a blank line.
    p.push('\ndata: a\r');
    p.push('\n');
    expect(out).toEqual(['{"id":1}']);
    p.push('\r\n');
    expect(out).toEqual(['{"id":1}', 'a']);
  });
  it('treats a CR at the end of an unfinished line as its end', () => {
    const out: string[] = [];
    const p = new SseParser((d) => out.push(d));
    p.push('data: x');
    p.push('yz\r');
    p.push('\r');
    expect(out).toEqual(['xyz']);
  });
});

describe('SseParser with long events', () => {
  it('reads an event split into thousands of chunks', () => {
    // 8 MiB in 4 KiB chunks. How fast is for the benchmark to say, not for a test.
    const payload = 'x'.repeat(8 * 1024 * 1024);
    const text = `data: {"a":"${payload}"}\ndata: ${payload}\n\n`;
    const out: string[] = [];
    const p = new SseParser((d) => out.push(d));
    for (let i = 0; i < text.length; i += 4096) p.push(text.slice(i, i + 4096));
    expect(out).toHaveLength(1);
    expect(out[0] === `{"a":"${payload}"}\n${payload}`).toBe(true);
  });
  it('stops at an event over the limit and ignores the rest of the stream', () => {
    const out: string[] = [];
    const p = new SseParser((d) => out.push(d), 20);
    expect(p.push('data: 0123456789\n\n')).toBe(true);
    expect(p.push('data: 0123456789\ndata: 0123456789\n')).toBe(false);
    expect(p.push('data: small\n\n')).toBe(false);
    p.end();
    expect(out).toEqual(['0123456789']);
  });
  it('stops at a line that never ends, across chunks', () => {
    const p = new SseParser(() => undefined, 20);
    expect(p.push(': keep')).toBe(true);
    expect(p.push('-alive ')).toBe(true);
    expect(p.push('and never a line end')).toBe(false);
  });
  it('counts the unfinished line and the data held together', () => {
    const p = new SseParser(() => undefined, 20);
    expect(p.push('data: 0123456789\ndata: 01')).toBe(true); // 11 held, 8 unfinished
    expect(p.push('456789')).toBe(false);
  });
  it('ends a stream of chunks with an error past the limit, after the events before it', async () => {
    const seen: string[] = [];
    async function* gen() {
      yield new TextEncoder().encode('data: ok\n\ndata: ');
      for (let i = 0; i < 1000; i++) yield new TextEncoder().encode('no line end yet ');
    }
    await expect(async () => {
      for await (const d of readSseData(gen(), 100)) seen.push(d);
    }).rejects.toBeInstanceOf(SseEventTooLarge);
    expect(seen).toEqual(['ok']);
    expect(await collect(['data: 0123456789\n\n'], 20)).toEqual(['0123456789']);
  });
});

describe('SseParser: the fields a resumption needs', () => {
  it('keeps the last event id and the last valid retry, whatever the chunking', () => {
    const text = 'id: first\nretry: 500\ndata: \n\nid:second\nretry: soon\ndata: {}\n\n';
    for (const size of [text.length, 1, 3]) {
      const p = new SseParser(() => undefined);
      for (let i = 0; i < text.length; i += size) p.push(text.slice(i, i + size));
      p.end();
      expect([p.lastEventId, p.retryMs]).toEqual(['second', 500]);
    }
  });

  it('ignores an id containing NUL and fields that only start like id or retry', () => {
    const p = new SseParser(() => undefined);
    p.push('id: ok\nidentity: no\nretryx: 9\nid: a\0b\n\n');
    expect([p.lastEventId, p.retryMs]).toEqual(['ok', undefined]);
  });
});

describe('Utf8Chunks: bytes to text as the streaming decoder would give it', () => {
  const decodeAll = (chunks: Buffer[]): string => {
    const d = new Utf8Chunks();
    return chunks.map((c) => d.decode(c)).join('') + d.end();
  };
  const text = 'data: {"text":"Grüße, 東京 🚀"}\n\n';
  const bytes = Buffer.from(text);

  it('gives the same text however the bytes are cut, a character split across chunks included', () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(decodeAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe(text);
    }
    const oneByOne = [...bytes].map((b) => Buffer.from([b]));
    expect(decodeAll(oneByOne)).toBe(text);
  });

  it('drops a byte order mark that opens the stream and keeps a U+FEFF that opens a later chunk', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(decodeAll([Buffer.concat([bom, Buffer.from('data: a\n\n')])])).toBe('data: a\n\n');
    expect(decodeAll([bom.subarray(0, 2), Buffer.concat([bom.subarray(2), Buffer.from('x')])])).toBe('x');
    expect(decodeAll([Buffer.from('data: a'), Buffer.concat([bom, Buffer.from('b\n\n')])])).toBe('data: a\ufeffb\n\n');
    expect(decodeAll([Buffer.from('data: a'), Buffer.concat([bom, Buffer.from('é')]), Buffer.from('\n')])).toBe('data: a\ufeffé\n');
  });

  it('ends a stream cut inside a character with U+FFFD, as the decoder does', () => {
    expect(decodeAll([Buffer.from('ok'), bytes.subarray(0, bytes.indexOf(0xc3) + 1)])).toBe(`ok${text.slice(0, text.indexOf('ü'))}\ufffd`);
    expect(decodeAll([Buffer.from([0xff, 0x41])])).toBe('\ufffdA');
  });

  it('feeds the parser bytes through pushBytes, a split character carried to the event', () => {
    const got: string[] = [];
    const p = new SseParser((d) => got.push(d));
    const at = bytes.indexOf(0xf0) + 2;
    p.pushBytes(bytes.subarray(0, at));
    p.pushBytes(bytes.subarray(at));
    p.end();
    expect(got).toEqual(['{"text":"Grüße, 東京 🚀"}']);
  });
});
