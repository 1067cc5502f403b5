// Property tests of header value encoding and decoding (MCP 2026-07-28,
// basic/transports/streamable-http, header value encoding) and of the Mcp-Param-* check built
// on it. Bounded runs; fast-check prints the seed and the shrunk case on failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HeaderParam } from './annotations.ts';
import { BASE64_PREFIX, BASE64_SUFFIX, decodeHeaderValue, encodeHeaderValue } from './header-value.ts';
import { buildParamHeaders, checkParamHeaders } from './param-headers.ts';

const RUNS = { numRuns: 300 };
/** Well-formed strings (no lone surrogates: those cannot travel as UTF-8 at all). */
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const value = fc.oneof(text, fc.boolean(), fc.maxSafeInteger());
const PRINTABLE = /^[\x20-\x7e]*$/;

describe('header values, properties', () => {
  it('decode(encode(v)) gives v back as text, and what is sent is always printable ASCII', () => {
    fc.assert(
      fc.property(value, (v) => {
        const sent = encodeHeaderValue(v);
        expect(sent).toMatch(PRINTABLE);
        expect(sent.startsWith(' ') || sent.endsWith(' ')).toBe(false);
        expect(decodeHeaderValue(sent)).toEqual({ ok: true, value: String(v) });
      }),
      RUNS,
    );
  });

  it('sends a safe printable value as itself, and wraps everything else', () => {
    fc.assert(
      fc.property(text, (s) => {
        const sent = encodeHeaderValue(s);
        const plain = PRINTABLE.test(s) && !s.startsWith(' ') && !s.endsWith(' ') && !(s.startsWith(BASE64_PREFIX) && s.endsWith(BASE64_SUFFIX));
        expect(sent === s).toBe(plain);
        if (!plain) expect(sent.startsWith(BASE64_PREFIX) && sent.endsWith(BASE64_SUFFIX)).toBe(true);
      }),
      RUNS,
    );
  });

  it('decodes any header without throwing, and what it decodes re-encodes to the same value', () => {
    // Whatever a client sends, the decoded value is a function of the header (never throws),
    // and re-encoding it decodes to the same value: no second reading of the same bytes.
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), text.map((s) => encodeHeaderValue(s)), fc.string().map((s) => `${BASE64_PREFIX}${s}${BASE64_SUFFIX}`)), (raw) => {
        const d = decodeHeaderValue(raw);
        if (!d.ok) return;
        expect(decodeHeaderValue(encodeHeaderValue(d.value))).toEqual(d);
      }),
      RUNS,
    );
  });

  it('refuses any header with a character outside printable ASCII (after trimming)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 0x1f }), fc.nat(), (s, code, at) => {
        fc.pre(code !== 0x09);
        const i = at % (s.length + 1);
        const raw = `x${s.slice(0, i)}${String.fromCharCode(code)}${s.slice(i)}x`;
        expect(decodeHeaderValue(raw).ok).toBe(false);
      }),
      RUNS,
    );
  });
});

describe('Mcp-Param-* headers, properties', () => {
  const params: HeaderParam[] = [
    { name: 'Region', path: ['region'], type: 'string' },
    { name: 'Limit', path: ['limit'], type: 'integer' },
    { name: 'Dry', path: ['opts', 'dry'], type: 'boolean' },
  ];
  const args = fc.record(
    { region: fc.option(text, { nil: undefined }), limit: fc.option(fc.maxSafeInteger(), { nil: undefined }), opts: fc.option(fc.record({ dry: fc.boolean() }), { nil: undefined }) },
    { requiredKeys: [] },
  );
  const lookup = (headers: Record<string, string>) => (name: string) => headers[name];

  it('accepts exactly the headers the gateway itself builds for the same arguments', () => {
    fc.assert(
      fc.property(args, (a) => {
        const built = buildParamHeaders(params, a);
        expect(built.ok).toBe(true);
        if (!built.ok) return;
        const checked = checkParamHeaders(params, a, lookup(built.value));
        expect(checked.ok).toBe(true);
      }),
      RUNS,
    );
  });

  it('refuses a header whose value differs from the body, and one whose argument is absent', () => {
    fc.assert(
      fc.property(args, text, (a, other) => {
        fc.pre(a.region !== undefined && other !== a.region);
        const built = buildParamHeaders(params, a);
        if (!built.ok) return;
        expect(checkParamHeaders(params, a, lookup({ ...built.value, 'Mcp-Param-Region': encodeHeaderValue(other) })).ok).toBe(false);
        const { region: _gone, ...without } = a;
        expect(checkParamHeaders(params, without, lookup(built.value)).ok).toBe(false);
      }),
      RUNS,
    );
  });
});
