import { describe, it, expect } from 'vitest';
import { decodeHeaderValue, encodeHeaderValue, isHeaderToken, looksLikeSentinel, parseLiteralHeaderValue } from './header-value.ts';

describe('encodeHeaderValue: spec vectors (b.5)', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ['日本語', '=?base64?5pel5pys6Kqe?='],
  ])('encodes %j as %j and decodes it back', (input, wire) => {
    expect(encodeHeaderValue(input)).toBe(wire);
    expect(decodeHeaderValue(wire)).toEqual({ ok: true, value: input });
  });
});

describe('encodeHeaderValue: edge cases', () => {
  it('sends the empty string as an empty value', () => {
    expect(encodeHeaderValue('')).toBe('');
    expect(decodeHeaderValue('')).toEqual({ ok: true, value: '' });
  });

  it('wraps a leading or trailing tab in Base64', () => {
    expect(encodeHeaderValue('\tvalue')).toBe('=?base64?CXZhbHVl?=');
    expect(encodeHeaderValue('value\t')).toBe('=?base64?dmFsdWUJ?=');
  });

  it('wraps a leading or trailing space in Base64 but keeps inner spaces plain', () => {
    expect(encodeHeaderValue(' a')).toBe('=?base64?IGE=?=');
    expect(encodeHeaderValue('a ')).toBe('=?base64?YSA=?=');
    expect(encodeHeaderValue('a b')).toBe('a b');
  });

  it('wraps CR, LF, NUL and DEL in Base64', () => {
    expect(encodeHeaderValue('a\r\nb')).toBe('=?base64?YQ0KYg==?=');
    expect(encodeHeaderValue('a\u0000b')).toBe('=?base64?YQBi?=');
    expect(encodeHeaderValue('a\u007fb')).toBe('=?base64?YX9i?=');
  });

  it('keeps every printable ASCII character plain', () => {
    const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(encodeHeaderValue(printable)).toBe(printable);
  });

  it('encodes only values that look like the full sentinel', () => {
    expect(encodeHeaderValue('=?base64?abc')).toBe('=?base64?abc');
    expect(encodeHeaderValue('abc?=')).toBe('abc?=');
    expect(encodeHeaderValue('=?BASE64?abc?=')).toBe('=?BASE64?abc?=');
    expect(encodeHeaderValue('=?base64?=')).toBe('=?base64?PT9iYXNlNjQ/PQ==?=');
  });

  it('encodes integers in decimal', () => {
    expect(encodeHeaderValue(42)).toBe('42');
    expect(encodeHeaderValue(-7)).toBe('-7');
    expect(encodeHeaderValue(0)).toBe('0');
    expect(encodeHeaderValue(-0)).toBe('0');
    expect(encodeHeaderValue(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
    expect(encodeHeaderValue(Number.MIN_SAFE_INTEGER)).toBe('-9007199254740991');
  });

  it('throws on numbers outside the safe integer range or with a fraction', () => {
    expect(() => encodeHeaderValue(Number.MAX_SAFE_INTEGER + 1)).toThrow(RangeError);
    expect(() => encodeHeaderValue(-(2 ** 53))).toThrow(RangeError);
    expect(() => encodeHeaderValue(1.5)).toThrow('header value must be a safe integer, got 1.5');
    expect(() => encodeHeaderValue(Number.NaN)).toThrow(RangeError);
  });

  it('encodes booleans in lower case', () => {
    expect(encodeHeaderValue(true)).toBe('true');
    expect(encodeHeaderValue(false)).toBe('false');
  });
});

describe('decodeHeaderValue', () => {
  it('trims surrounding spaces and tabs as HTTP parsers do', () => {
    expect(decodeHeaderValue('  foo ')).toEqual({ ok: true, value: 'foo' });
    expect(decodeHeaderValue('\tfoo\t')).toEqual({ ok: true, value: 'foo' });
    expect(decodeHeaderValue(' =?base64?IHBhZGRlZCA=?= ')).toEqual({ ok: true, value: ' padded ' });
  });

  it('treats a wrong-case sentinel as literal', () => {
    expect(decodeHeaderValue('=?BASE64?SGk=?=')).toEqual({ ok: true, value: '=?BASE64?SGk=?=' });
    expect(decodeHeaderValue('=?Base64?SGk=?=')).toEqual({ ok: true, value: '=?Base64?SGk=?=' });
  });

  it('treats a value missing the prefix or the suffix as literal', () => {
    expect(decodeHeaderValue('SGk=?=')).toEqual({ ok: true, value: 'SGk=?=' });
    expect(decodeHeaderValue('=?base64?SGk=')).toEqual({ ok: true, value: '=?base64?SGk=' });
    expect(decodeHeaderValue('=?base64SGk=?=')).toEqual({ ok: true, value: '=?base64SGk=?=' });
  });

  it('decodes an empty payload to the empty string', () => {
    expect(decodeHeaderValue('=?base64??=')).toEqual({ ok: true, value: '' });
  });

  it('rejects a sentinel whose prefix and suffix overlap', () => {
    expect(decodeHeaderValue('=?base64?=')).toEqual({ ok: false, error: 'malformed Base64 sentinel (prefix and suffix overlap)' });
  });

  it('rejects bad padding', () => {
    const missing = { ok: false, error: 'invalid Base64: length is not a multiple of 4 (missing or extra padding)' };
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toEqual(missing);
    expect(decodeHeaderValue('=?base64?SGk?=')).toEqual(missing);
    expect(decodeHeaderValue('=?base64?SGk==?=')).toEqual(missing);
    expect(decodeHeaderValue('=?base64?S===?=')).toEqual({ ok: false, error: 'invalid Base64: illegal character or misplaced padding' });
    expect(decodeHeaderValue('=?base64?SG=k?=')).toEqual({ ok: false, error: 'invalid Base64: illegal character or misplaced padding' });
  });

  it('rejects illegal characters, including the URL-safe alphabet and inner spaces', () => {
    const illegal = { ok: false, error: 'invalid Base64: illegal character or misplaced padding' };
    expect(decodeHeaderValue('=?base64?SGk!?=')).toEqual(illegal);
    expect(decodeHeaderValue('=?base64?PT9i-XNl?=')).toEqual(illegal);
    expect(decodeHeaderValue('=?base64?PT9i_XNl?=')).toEqual(illegal);
    expect(decodeHeaderValue('=?base64?SG k?=')).toEqual(illegal);
  });

  it('rejects non-canonical trailing bits', () => {
    expect(decodeHeaderValue('=?base64?SGl=?=')).toEqual({ ok: false, error: 'invalid Base64: non-canonical encoding (trailing bits are not zero)' });
    expect(decodeHeaderValue('=?base64?QR==?=')).toEqual({ ok: false, error: 'invalid Base64: non-canonical encoding (trailing bits are not zero)' });
    expect(decodeHeaderValue('=?base64?QQ==?=')).toEqual({ ok: true, value: 'A' });
  });

  it('rejects Base64 that decodes to invalid UTF-8', () => {
    // 0xFF alone, and a truncated 3-byte sequence (0xE4 0xB8).
    expect(decodeHeaderValue('=?base64?/w==?=')).toEqual({ ok: false, error: 'invalid Base64: decoded bytes are not valid UTF-8' });
    expect(decodeHeaderValue('=?base64?5Lg=?=')).toEqual({ ok: false, error: 'invalid Base64: decoded bytes are not valid UTF-8' });
  });

  it('keeps a leading byte order mark', () => {
    expect(decodeHeaderValue('=?base64?77u/YQ==?=')).toEqual({ ok: true, value: '\uFEFFa' });
  });

  it('rejects literal values with control characters or obs-text', () => {
    const invalid = { ok: false, error: 'invalid characters (only printable ASCII 0x20-0x7E is allowed)' };
    expect(decodeHeaderValue('a\u0000b')).toEqual(invalid);
    expect(decodeHeaderValue('a\rb')).toEqual(invalid);
    expect(decodeHeaderValue('a\nb')).toEqual(invalid);
    expect(decodeHeaderValue('a\tb')).toEqual(invalid);
    expect(decodeHeaderValue('a\u007fb')).toEqual(invalid);
    expect(decodeHeaderValue('caf\u00e9')).toEqual(invalid);
    expect(decodeHeaderValue('世界')).toEqual(invalid);
  });
});

describe('parseLiteralHeaderValue', () => {
  it('never decodes the sentinel', () => {
    expect(parseLiteralHeaderValue(' =?base64?SGk=?= ')).toEqual({ ok: true, value: '=?base64?SGk=?=' });
  });
});

describe('looksLikeSentinel', () => {
  it('needs the exact lower-case prefix and the suffix', () => {
    expect(looksLikeSentinel('=?base64?x?=')).toBe(true);
    expect(looksLikeSentinel('=?BASE64?x?=')).toBe(false);
    expect(looksLikeSentinel('=?base64?x')).toBe(false);
  });
});

describe('isHeaderToken', () => {
  it('accepts RFC 9110 tchar tokens', () => {
    expect(isHeaderToken('Region')).toBe(true);
    expect(isHeaderToken("x!#$%&'*+-.^_`|~09")).toBe(true);
  });

  it('rejects empty strings, separators, whitespace and non-ASCII', () => {
    expect(isHeaderToken('')).toBe(false);
    expect(isHeaderToken('Re gion')).toBe(false);
    expect(isHeaderToken('Region:')).toBe(false);
    expect(isHeaderToken('Ré')).toBe(false);
    expect(isHeaderToken('a\r\nb')).toBe(false);
    expect(isHeaderToken('(a)')).toBe(false);
    expect(isHeaderToken('a"b')).toBe(false);
  });
});

// A small seeded generator, so the property test is the same on every run.
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'Z', '0', ' ', '\t', '\r', '\n', '\u0000', '\u007f', '~', '=', '?', '/', '+', 'é', '\u00a0', '世', '😀', '\uFEFF', '=?base64?', '?=', '=?BASE64?'];

function generate(random: () => number): string {
  const length = Math.floor(random() * 12);
  let s = '';
  for (let i = 0; i < length; i++) s += PIECES[Math.floor(random() * PIECES.length)];
  return s;
}

describe('round trip', () => {
  it('decodes every encoded string to itself, and the wire form is header-safe', () => {
    const random = mulberry32(2243);
    let plain = 0;
    let wrapped = 0;
    for (let i = 0; i < 5000; i++) {
      const s = generate(random);
      const wire = encodeHeaderValue(s);
      expect(wire).toMatch(/^(?:[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?)?$/);
      expect(decodeHeaderValue(wire)).toEqual({ ok: true, value: s });
      if (wire === s) plain += 1;
      else wrapped += 1;
    }
    // Both branches are exercised by the generator.
    expect(plain).toBeGreaterThan(100);
    expect(wrapped).toBeGreaterThan(100);
  });
});
