import { describe, expect, it } from 'vitest';
import type { RelaySink, RelayState, ResultRelay } from '../../protocol/result-relay.ts';
import { RelayedBody } from './relayed-body.ts';
import { SseRelayTap, type TapStep } from './sse-relay-tap.ts';

/** An in-memory client reply: what the relay wrote, and how it ended. */
class MemoryRelay implements ResultRelay, RelaySink {
  state: RelayState = 'unused';
  bytes = 0;
  written: Buffer[] = [];
  readonly era = 'legacy' as const;
  readonly compact = true;
  open(): RelaySink | undefined {
    this.state = 'open';
    return this;
  }
  write(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    this.written.push(chunk);
    return true;
  }
  onDrain(): void {}
  onGone(): void {}
  complete(): void {
    this.state = 'complete';
  }
  fail(): void {
    this.state = 'failed';
  }
  text(): string {
    return Buffer.concat(this.written).toString('utf8');
  }
}

function run(stream: string, chunkSize: number): { parser: string; relay: MemoryRelay; steps: TapStep[] } {
  const relay = new MemoryRelay();
  const toParser: Buffer[] = [];
  const body = (): RelayedBody => new RelayedBody({ relay, id: 3, maxJsonDepth: 64, length: undefined, pause: () => undefined, resume: () => undefined, abandon: () => undefined });
  const tap = new SseRelayTap((b) => void toParser.push(Buffer.from(b)), body, 10_000_000);
  const bytes = Buffer.from(stream);
  const steps: TapStep[] = [];
  // As the exchange does: the first step that is not `more` ends the reading.
  for (let i = 0; i < bytes.length && steps.length === 0; i += chunkSize) {
    const step = tap.push(bytes.subarray(i, i + chunkSize));
    if (step.kind !== 'more') steps.push(step);
  }
  const end = steps.length === 0 ? tap.end() : undefined;
  if (end !== undefined && end.kind !== 'more') steps.push(end);
  return { parser: Buffer.concat(toParser).toString('utf8'), relay, steps };
}

const BIG = 'é'.repeat(50_000);
const RESULT = { content: [{ type: 'text', text: BIG }] };
const RESPONSE = JSON.stringify({ jsonrpc: '2.0', id: 3, result: RESULT });
const NOTE = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } });

describe('SseRelayTap', () => {
  it('hands a big data line that is not a whole message to the parser, and the event\'s next line after it', () => {
    const pad = 'x'.repeat(70_000);
    // A response whose result begins in its second data line, and a notification whose method does.
    const response = [`data: {"jsonrpc":"2.0","id":3,"pad":"${pad}",`, 'data: "result":{"content":[]}}', '', ''];
    const note = [`data: {"jsonrpc":"2.0","params":{"pad":"${pad}"},`, 'data: "method":"notifications/message"}', '', ''];
    for (const lines of [response, note]) {
      for (const size of [7, 4096, 1_000_000]) {
        const { parser, relay, steps } = run(lines.join('\n'), size);
        expect(steps).toEqual([]);
        expect(relay.state).toBe('unused');
        expect(parser).toBe(lines.join('\n'));
      }
    }
  });

  for (const eol of ['\n', '\r\n', '\r']) {
    for (const size of [1, 7, 4096, 1_000_000]) {
      it(`relays a big response event and hands every other line to the parser (line ends ${JSON.stringify(eol)}, chunks of ${size})`, () => {
        const stream = [': keep-alive', '', 'id: 1', 'data:', '', 'event: message', `data: ${NOTE}`, '', 'id: 2', `data: ${RESPONSE}`, '', ''].join(eol);
        const { parser, relay, steps } = run(stream, size);
        expect(steps).toEqual([{ kind: 'relayed' }]);
        expect(relay.state).toBe('complete');
        expect(JSON.parse(relay.text())).toEqual(RESULT);
        // Everything but the relayed data line and its event's blank line reached the parser, as it came.
        expect(parser).toBe([': keep-alive', '', 'id: 1', 'data:', '', 'event: message', `data: ${NOTE}`, '', 'id: 2', ''].join(eol));
      });
    }
  }

  it('hands the whole small lines of a chunk that ends inside an event to the parser in one piece', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const whole = Array.from({ length: 100 }, (_, i) => ['event: message', `data: ${NOTE.replace('"progress":1', `"progress":${i}`)}`, '', ''].join(eol)).join('');
      const calls: Buffer[] = [];
      const tap = new SseRelayTap((b) => void calls.push(Buffer.from(b)), () => {
        throw new Error('no small event is a relay candidate');
      }, 10_000_000);
      // The chunk ends in the middle of a line: the lines before it go as one slice, the rest line by line.
      expect(tap.push(Buffer.from(`${whole}event: mess`))).toEqual({ kind: 'more' });
      expect(calls[0]!.toString()).toBe(whole);
      expect(tap.push(Buffer.from(`age${eol}data: {}${eol}${eol}`))).toEqual({ kind: 'more' });
      expect(tap.end()).toEqual({ kind: 'more' });
      expect(Buffer.concat(calls).toString()).toBe(`${whole}event: message${eol}data: {}${eol}${eol}`);
      for (const size of [1, 7, 300]) expect(run(whole, size).parser).toBe(whole);
    }
  });

  it('gives a big notification back to the parser whole', () => {
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: BIG } });
    const { parser, relay, steps } = run(`data: ${note}\n\n`, 1000);
    expect(steps).toEqual([]);
    expect(relay.state).toBe('unused');
    expect(parser).toBe(`data: ${note}\n\n`);
  });

  it('refuses a second data line in a relayed event', () => {
    const { steps, relay } = run(`data: ${RESPONSE}\ndata: {}\n\n`, 5000);
    expect(steps).toEqual([{ kind: 'broken', reason: 'a second data line in a relayed event', tooDeep: false }]);
    expect(relay.state).toBe('failed');
  });

  it('takes a last event without its blank line, as the parser does', () => {
    const { steps, relay } = run(`data: ${RESPONSE}`, 3000);
    expect(steps).toEqual([{ kind: 'relayed' }]);
    expect(relay.state).toBe('complete');
  });

  it('breaks off a relayed event the stream ends in the middle of', () => {
    const { steps, relay } = run(`data: ${RESPONSE.slice(0, RESPONSE.length - 10)}`, 3000);
    expect(steps[0]).toMatchObject({ kind: 'broken' });
    expect(relay.state).toBe('failed');
  });

  it('stops a line over the size limit', () => {
    const relay = new MemoryRelay();
    const tap = new SseRelayTap(() => undefined, () => new RelayedBody({ relay, id: 3, maxJsonDepth: 64, length: undefined, pause: () => undefined, resume: () => undefined, abandon: () => undefined }), 100_000);
    expect(tap.push(Buffer.from(`data: ${RESPONSE}`))).toEqual({ kind: 'too_large' });
  });

  for (const eol of ['\n', '\r\n']) {
    it(`hands a chunk of whole small events to the parser as one piece, and still relays a big result after it (line ends ${JSON.stringify(eol)})`, () => {
      const relay = new MemoryRelay();
      const pieces: string[] = [];
      const body = (): RelayedBody => new RelayedBody({ relay, id: 3, maxJsonDepth: 64, length: undefined, pause: () => undefined, resume: () => undefined, abandon: () => undefined });
      const tap = new SseRelayTap((b) => void pieces.push(Buffer.from(b).toString('utf8')), body, 10_000_000);
      const small = ['id: 1', 'data:', '', 'event: message', `data: ${NOTE}`, '', ''].join(eol);
      expect(tap.push(Buffer.from(small))).toEqual({ kind: 'more' });
      expect(pieces).toEqual([small]);
      expect(tap.push(Buffer.from(`data: ${RESPONSE}${eol}${eol}`))).toEqual({ kind: 'relayed' });
      expect(relay.state).toBe('complete');
      expect(JSON.parse(relay.text())).toEqual(RESULT);
      expect(pieces.join('')).toBe(small);
    });
  }

  it('reads a small chunk that ends inside an event line by line, so a big data line begun there is still relayed', () => {
    const relay = new MemoryRelay();
    const pieces: string[] = [];
    const tap = new SseRelayTap((b) => void pieces.push(Buffer.from(b).toString('utf8')), () => new RelayedBody({ relay, id: 3, maxJsonDepth: 64, length: undefined, pause: () => undefined, resume: () => undefined, abandon: () => undefined }), 10_000_000);
    const event = `data: ${RESPONSE}\n\n`;
    expect(tap.push(Buffer.from(`: ping\n\n${event.slice(0, 100)}`))).toEqual({ kind: 'more' });
    expect(tap.push(Buffer.from(event.slice(100)))).toEqual({ kind: 'relayed' });
    expect(JSON.parse(relay.text())).toEqual(RESULT);
    expect(pieces.join('')).toBe(': ping\n\n');
  });
});
