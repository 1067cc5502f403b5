import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import { digestJson } from './digest.ts';

describe('canonical JSON (RFC 8785)', () => {
  it('sorts keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('sorts keys by UTF-16 code units, as RFC 8785 section 3.2.3 prescribes', () => {
    // 0x000D < 0x0061 < 0x20AC < 0xD83D (the high surrogate of U+1F600).
    expect(canonicalJson({ '\u20ac': 1, '\r': 2, '\ud83d\ude00': 3, a: 4 })).toBe('{"\\r":2,"a":4,"€":1,"😀":3}');
  });

  it('escapes strings exactly as JSON.stringify does', () => {
    const tricky = ['plain', 'q"uote', 'back\\slash', 'nl\n tab\t nul\u0000 del\u007f', 'lone \ud800 surrogate', 'emoji 😀', 'ls\u2028ps\u2029', 'é'];
    for (const text of tricky) expect(canonicalJson({ [text]: text })).toBe(`{${JSON.stringify(text)}:${JSON.stringify(text)}}`);
  });

  it('serializes numbers as ECMAScript does (RFC 8785 section 3.2.2.3)', () => {
    expect(canonicalJson([1e21, 1e-7, -0, 0.1 + 0.2, 100])).toBe('[1e+21,1e-7,0,0.30000000000000004,100]');
  });

  it('treats undefined and non-finite values as JSON.stringify does, so a JSON round trip canonicalizes the same', () => {
    const value = { a: undefined, b: [undefined, NaN, Infinity], c: 'x' };
    expect(canonicalJson(value)).toBe('{"b":[null,null,null],"c":"x"}');
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
  });

  it('treats toJSON and boxed primitives as JSON.stringify does: a toJSON giving undefined drops the member', () => {
    const value = {
      z: { toJSON: () => undefined },
      y: new Number(3),
      x: [new String('s'), new Boolean(false), { toJSON: () => new Number(7) }, { toJSON: () => undefined }],
      w: { toJSON: () => ({ b: 1, a: 2 }) },
    };
    expect(canonicalJson(value)).toBe('{"w":{"a":2,"b":1},"x":["s",false,7,null],"y":3}');
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
  });

  it('throws on cycles and BigInt, which are bugs', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cyclic/);
    expect(() => canonicalJson({ n: 1n })).toThrow(/BigInt/);
  });
});

describe('digests', () => {
  it('are sha256: plus 64 hex digits', () => {
    expect(digestJson({ a: 1 })).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('do not depend on key order', () => {
    expect(digestJson({ path: '/tmp', options: { recursive: true, depth: 2 } })).toBe(
      digestJson({ options: { depth: 2, recursive: true }, path: '/tmp' }),
    );
  });

  it('differ when any value differs', () => {
    expect(digestJson({ a: [1, 2] })).not.toBe(digestJson({ a: [2, 1] }));
    expect(digestJson({ a: '1' })).not.toBe(digestJson({ a: 1 }));
  });

  it('are the SHA-256 of the canonical text (a known value)', () => {
    // printf '{"a":1,"b":"x"}' | sha256sum
    expect(digestJson({ b: 'x', a: 1 })).toBe('sha256:ecf9e98ec0641e23113ff3ce8bdc78d0ddd249886517fd4a7f68cc83d4e65667');
  });

  it('gives the same text whether keys arrive in canonical order (JSON.stringify fast path) or not', () => {
    class Point {
      constructor(readonly x = 1) {}
    }
    const values: unknown[] = [
      { a: 'q"uote \ud800 lone', b: -0, c: NaN, d: [undefined, () => 1, Infinity, { e: 1, f: undefined }], g: null, h: true },
      { a: { b: { c: [1, 'x', { d: 'é😀\u2028' }] } }, z: Symbol('s') },
      { a: { toJSON: () => ({ y: 2, x: 1 }) }, b: new Date(0) },
      { a: new Point(), b: Object.assign(Object.create(null) as object, { k: 1 }) },
      { '1': 'integer-like keys come first in Object.keys', '10': 'b', a: 'c' },
      { __proto__: null, a: 1 },
    ];
    const reversed = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(reversed);
      if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
      return Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reversed((v as Record<string, unknown>)[k])]));
    };
    for (const value of values) expect(canonicalJson(value)).toBe(canonicalJson(reversed(value)));
    expect(canonicalJson(values[0])).toBe('{"a":"q\\"uote \\ud800 lone","b":0,"c":null,"d":[null,null,null,{"e":1}],"g":null,"h":true}');
    expect(canonicalJson(values[2])).toBe('{"a":{"x":1,"y":2},"b":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson(values[3])).toBe('{"a":{"x":1},"b":{"k":1}}');
    expect(canonicalJson(values[4])).toBe('{"1":"integer-like keys come first in Object.keys","10":"b","a":"c"}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(() => canonicalJson({ a: 1n })).toThrow(/BigInt/);
  });
});
