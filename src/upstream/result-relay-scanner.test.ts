import { describe, expect, it } from 'vitest';
import { ResultRelayScanner, type ScanVerdict } from './result-relay-scanner.ts';
import { shapeResult } from '../transport/era-result.ts';
import { GATEWAY_SERVER_INFO } from '../protocol/implementation.ts';
import type { Era } from '../protocol/versions.ts';
import type { JsonObject } from '../protocol/message.ts';

const SERVER_INFO = JSON.stringify(GATEWAY_SERVER_INFO);

function scan(text: string | Buffer, era: Era, chunkSize: number, opts: { id?: number | string; maxDepth?: number; compact?: boolean } = {}): { verdict: ScanVerdict; out: string; scanner: ResultRelayScanner } {
  const s = new ResultRelayScanner({ era, id: opts.id ?? 7, maxDepth: opts.maxDepth ?? 65, serverInfo: SERVER_INFO, compact: opts.compact ?? false });
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const out: (Buffer | string)[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) {
    const v = s.push(bytes.subarray(i, i + chunkSize), out);
    if (v !== 'more') return { verdict: v, out: Buffer.concat(out.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString(), scanner: s };
  }
  const verdict = s.end();
  return { verdict, out: Buffer.concat(out.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString(), scanner: s };
}

const CHUNKS = [1, 2, 3, 7, 64, 100_000];

const RESULTS: JsonObject[] = [
  { content: [{ type: 'text', text: 'héllo "quoted" \\ \n 😀 \u0001' }] },
  { resultType: 'complete', content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '1' }, other: [1, -2.5e+3, true, false, null] } },
  { content: [{ type: 'image', data: 'QUJD', mimeType: 'image/png' }], structuredContent: { a: { b: [{}, []] } }, isError: false },
  { content: [], structuredContent: 'not an object', ttlMs: 5, cacheScope: 'public', resultType: 'complete' },
  { _meta: 'not an object', resultType: 42, content: [] },
  { _meta: {}, content: [{ type: 'text', text: '' }] },
  {},
  // Long plain runs between escapes: the native search (json-string-run.ts) across chunk ends.
  { content: [{ type: 'text', text: `${'plain words, no escapes '.repeat(40)}"q" \\ \n\t é 😀 \u0001`.repeat(20) }] },
];

describe('ResultRelayScanner', () => {
  for (const era of ['modern', 'legacy'] as const) {
    for (const result of RESULTS) {
      it(`emits what ${era} shaping gives for ${JSON.stringify(result).slice(0, 60)}, in any chunking`, () => {
        const expected = shapeResult('tools/call', result, era);
        const legacyEmptyMeta = era === 'legacy' && result._meta !== undefined && typeof result._meta === 'object' && expected._meta === undefined;
        for (const size of CHUNKS) {
          for (const text of [JSON.stringify({ jsonrpc: '2.0', id: 7, result }), JSON.stringify({ result, id: 7, jsonrpc: '2.0' }), JSON.stringify({ jsonrpc: '2.0', id: 7, result }, null, 2)]) {
            const { verdict, out } = scan(text, era, size);
            expect(verdict).toBe('done');
            const got = JSON.parse(out);
            // A 2025-11-25 client keeps an emptied _meta as {} (streaming cannot take back its key).
            expect(got).toEqual(legacyEmptyMeta ? { ...expected, _meta: {} } : expected);
          }
        }
      });
    }
  }

  it('tells a tool error by its result\'s isError, the last one when there are several', () => {
    const cases: [string, boolean][] = [
      ['{"id":7,"result":{"content":[],"isError":true}}', true],
      ['{"id":7,"result":{"isError" : false,"content":[]}}', false],
      ['{"id":7,"result":{"content":[{"isError":true}]}}', false],
      ['{"id":7,"result":{"isError":true,"isError":false}}', false],
      ['{"id":7,"result":{"\\u0069sError":true}}', true],
      ['{"id":7,"result":{"content":[]}}', false],
    ];
    for (const [text, isError] of cases) {
      for (const size of [1, 5, 1000]) {
        const { verdict, scanner } = scan(text, 'legacy', size);
        expect(verdict).toBe('done');
        expect(scanner.isError).toBe(isError);
      }
    }
  });

  it('copies the bytes of members it does not shape, exactly', () => {
    const content = '[{"type":"text","text":"a\\u00e9\\n"} , {"type" : "image","data":"QUJD"}]';
    const { verdict, out } = scan(`{"jsonrpc":"2.0","id":7,"result":{"content":${content}}}`, 'legacy', 5);
    expect(verdict).toBe('done');
    expect(out).toBe(`{"content":${content}}`);
  });

  it('drops whitespace outside strings when compact (one SSE data line)', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'a\nb  c' }] } }, null, 2);
    const { verdict, out } = scan(text, 'legacy', 3, { compact: true });
    expect(verdict).toBe('done');
    expect(out).not.toMatch(/\n/);
    expect(JSON.parse(out)).toEqual({ content: [{ type: 'text', text: 'a\nb  c' }] });
  });

  it('reads an escaped key as the key it means', () => {
    const { verdict, out } = scan('{"jsonrpc":"2.0","\\u0069d":7,"result":{"\\u0072esultType":"complete","content":[]}}', 'legacy', 4);
    expect(verdict).toBe('done');
    expect(JSON.parse(out)).toEqual({ content: [] });
  });

  it('declines an error response, a request, and a result that is not an object, before emitting anything', () => {
    for (const text of ['{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"x"}}', '{"jsonrpc":"2.0","method":"x","id":7}', '{"id":7,"result":[1]}', '[1]', '{"id":7,"error":{"code":1,"message":"m"},"result":{}}']) {
      const { verdict, out, scanner } = scan(text, 'modern', 2);
      expect(verdict).toBe('decline');
      expect(scanner.committed).toBe(false);
      expect(out).toBe('');
    }
  });

  it('declines, before sending any of it, a result whose id (before it) is another request\'s', () => {
    const big = 'x'.repeat(100_000);
    for (const text of [`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"${big}"}]}}`, '{"id":"7","result":{}}', '{"id":null,"result":{}}']) {
      const { verdict, out, scanner } = scan(text, 'modern', 2);
      expect(verdict).toBe('decline');
      expect(scanner.committed).toBe(false);
      expect(out).toBe('');
    }
  });

  it('declines, before sending any of it, a result that leads with a resultType other than "complete" (a task, a question)', () => {
    const big = 'x'.repeat(100_000);
    for (const era of ['modern', 'legacy'] as const) {
      for (const text of [
        `{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"up-1","status":"working","statusMessage":"${big}"}}`,
        `{"jsonrpc":"2.0","id":7,"result":{ "resultType" : "input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"${big}"}}}}}`,
        '{"jsonrpc":"2.0","id":7,"result":{"\\u0072esultType":"\\u0074ask"}}',
      ]) {
        for (const size of [1, 9, 100_000]) {
          const { verdict, out, scanner } = scan(text, era, size);
          expect(verdict).toBe('decline');
          expect(scanner.committed).toBe(false);
          expect(scanner.reason).toMatch(/^a result of resultType "(task|input_required)"$/);
          expect(out).toBe('');
        }
      }
    }
  });

  it('relays a leading resultType "complete" (escaped or not) as the shaping does, and a result with no members', () => {
    for (const text of ['{"id":7,"result":{"resultType":"complete","content":[]}}', '{"id":7,"result":{"resultType":"\\u0063omplete","content":[]}}']) {
      for (const size of [1, 4, 1000]) {
        expect(JSON.parse(scan(text, 'modern', size).out)).toEqual({ resultType: 'complete', content: [], _meta: { 'io.modelcontextprotocol/serverInfo': GATEWAY_SERVER_INFO } });
        expect(JSON.parse(scan(text, 'legacy', size).out)).toEqual({ content: [] });
      }
    }
    expect(JSON.parse(scan('{"id":7,"result":{}}', 'legacy', 1).out)).toEqual({});
  });

  const failing: [string, string][] = [
    ['a resultType "task" after the content', '{"id":7,"result":{"content":[],"resultType":"task"}}'],
    ['a resultType "input_required" after the _meta', '{"id":7,"result":{"_meta":{},"resultType":"input_required"}}'],
    ['duplicate id before the result', '{"id":7,"id":8,"result":{}}'],
    ['duplicate id after the result', '{"id":7,"result":{},"id":8}'],
    ['duplicate result', '{"id":7,"result":{},"result":{}}'],
    ['a result and an error', '{"id":7,"result":{},"error":{}}'],
    ['another request\'s id after the result', '{"result":{},"id":8}'],
    ['the id as a string after the result', '{"result":{},"id":"7"}'],
    ['no id', '{"result":{}}'],
    ['duplicate resultType', '{"id":7,"result":{"resultType":"complete","resultType":"input_required"}}'],
    ['duplicate _meta', '{"id":7,"result":{"_meta":{},"_meta":{}}}'],
    ['duplicate serverInfo', '{"id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{},"io.modelcontextprotocol/serverInfo":{}}}}'],
    ['a truncated body', '{"id":7,"result":{"content":[{"type":"text","text":"abc'],
    ['a trailing comma', '{"id":7,"result":{"content":[1,]}}'],
    ['a raw control character', '{"id":7,"result":{"t":"a\u0001b"}}'],
    ['a raw control character in a long string', `{"id":7,"result":{"t":"${'a'.repeat(3000)}\u001f${'b'.repeat(3000)}"}}`],
    ['a raw line break in a long string', `{"id":7,"result":{"t":"${'a'.repeat(3000)}\n"}}`],
    ['a bad escape', '{"id":7,"result":{"t":"\\x"}}'],
    ['a bad number', '{"id":7,"result":{"n":01}}'],
    ['a bad literal', '{"id":7,"result":{"n":nul}}'],
    ['text after the message', '{"id":7,"result":{}} {}'],
    ['mismatched brackets', '{"id":7,"result":{"a":[}]}'],
  ];
  for (const [what, text] of failing) {
    it(`fails on ${what}`, () => {
      for (const size of [1, 3, 1000]) expect(scan(text, 'modern', size).verdict).toBe('fail');
    });
  }

  it('fails on bytes that are not UTF-8, also split between chunks', () => {
    const bad = Buffer.concat([Buffer.from('{"id":7,"result":{"t":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
    for (const size of [1, 2, 1000]) expect(scan(bad, 'modern', size).verdict).toBe('fail');
    const good = Buffer.from('{"id":7,"result":{"t":"😀é"}}');
    for (const size of [1, 2, 1000]) expect(scan(good, 'legacy', size).verdict).toBe('done');
  });

  it('fails past the depth limit (the result itself is level 1) and says so', () => {
    const nested = (levels: number): string => `{"id":7,"result":${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}}`;
    expect(scan(nested(5), 'legacy', 3, { maxDepth: 6 }).verdict).toBe('done');
    const deep = scan(nested(6), 'legacy', 3, { maxDepth: 6 });
    expect(deep.verdict).toBe('fail');
    expect(deep.scanner.tooDeep).toBe(true);
  });

  it('refuses a key over its bound at the levels it reads', () => {
    expect(scan(`{"id":7,"result":{"${'k'.repeat(5000)}":1}}`, 'modern', 100).verdict).toBe('fail');
    // Deeper keys are only copied, whatever their length.
    expect(scan(`{"id":7,"result":{"content":[{"${'k'.repeat(5000)}":1}]}}`, 'modern', 100).verdict).toBe('done');
  });
});
