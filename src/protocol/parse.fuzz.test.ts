// Property tests of the request parser: for any text, parseMessage never throws and agrees
// with an independent reading of JSON-RPC 2.0 (one object, "jsonrpc": "2.0", a string or
// integer id, a non-empty string method with object params, or a response); what it accepts
// is exactly JSON.parse's value, and a shape error keeps a readable id. Bounded runs;
// fast-check prints the seed and the shrunk case on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMessage } from './parse.ts';

const RUNS = { numRuns: 400 };
/** limits.maxJsonDepth as configured by default. */
const MAX_DEPTH = 64;

// Integers stay within ±2^53: beyond it JSON.parse itself already changed the number.
const id = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double().filter((d) => !Number.isInteger(d) || Number.isSafeInteger(d)),
  fc.constant(null),
  fc.boolean(),
  fc.constant({}),
);
const member = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** Objects near the JSON-RPC shape, so that valid and almost valid messages both come up. */
const message = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.constant(2)),
    id: member(id),
    method: member(fc.oneof(fc.constantFrom('tools/call', 'ping', ''), fc.integer())),
    params: member(fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })), fc.array(fc.integer()), fc.constant(null))),
    result: member(fc.jsonValue({ maxDepth: 2 })),
    error: member(fc.record({ code: fc.integer(), message: fc.string() })),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  { arbitrary: message.map((m) => JSON.stringify(m)), weight: 6 },
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 30 }),
  message.map((m) => JSON.stringify([m])),
);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const validId = (v: unknown): boolean => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** JSON-RPC 2.0 as the gateway accepts it, written independently of parse.ts. */
function acceptable(v: unknown): boolean {
  if (!isObject(v) || v.jsonrpc !== '2.0') return false;
  if ('id' in v && !validId(v.id)) return false;
  if ('method' in v) return typeof v.method === 'string' && v.method !== '' && (!('params' in v) || isObject(v.params));
  return 'id' in v && ('result' in v || 'error' in v);
}

describe('parseMessage, properties', () => {
  it('never throws, and accepts exactly the JSON-RPC messages, as JSON.parse reads them', () => {
    fc.assert(
      fc.property(body, (text) => {
        let parsed: unknown;
        let json = true;
        try {
          parsed = JSON.parse(text);
        } catch {
          json = false;
        }
        const r = parseMessage(text, MAX_DEPTH);
        if (!json) {
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.error.error.kind).toBe('parse_error');
          return;
        }
        expect(r.ok).toBe(acceptable(parsed));
        if (r.ok) expect(r.value).toEqual(parsed);
        else expect(r.error.error.kind).toBe('invalid_request');
      }),
      RUNS,
    );
  });

  it('keeps the id of a refused object whenever that id is readable, and never makes one up', () => {
    fc.assert(
      fc.property(message, (m) => {
        const r = parseMessage(JSON.stringify(m), MAX_DEPTH);
        if (r.ok) return;
        const sent = JSON.parse(JSON.stringify(m)) as Record<string, unknown>;
        if (validId(sent.id)) expect(r.error.id).toBe(sent.id);
        else expect(r.error.id).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('refuses a message nested deeper than the limit as too deep, and only such a message', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 8, max: 128 }), (levels, limit) => {
        // The message is level 1, params 2, the value of `x` adds `levels`.
        const text = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${'['.repeat(levels)}${']'.repeat(levels)}}}`;
        const r = parseMessage(text, limit);
        if (levels + 2 > limit) expect(r).toEqual({ ok: false, error: { error: { kind: 'too_deep', limit }, id: 1 } });
        else expect(r.ok).toBe(true);
      }),
      RUNS,
    );
  });
});
