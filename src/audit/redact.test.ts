import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../protocol/message.ts';
import { DEFAULT_REDACT_KEYS } from './audit-config-schema.ts';
import { compileRedaction, REDACTED, redact, type RedactionSpec } from './redact.ts';
import { BUILTIN_PATTERN_NAMES, luhnValid } from './redact-patterns.ts';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1c2a3+Zx\nq0Lm==\n-----END RSA PRIVATE KEY-----';

function redactor(spec: Partial<RedactionSpec> = {}) {
  const compiled = compileRedaction({
    keys: spec.keys ?? [...DEFAULT_REDACT_KEYS],
    paths: spec.paths ?? [],
    patterns: spec.patterns ?? BUILTIN_PATTERN_NAMES.map((name) => ({ kind: 'builtin' as const, name })),
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  return (value: JsonValue) => redact(value, compiled.value);
}

describe('redaction by key', () => {
  it('replaces the whole value of keys that match, at any depth and in any case', () => {
    const r = redactor();
    expect(
      r({ user: 'alice', Password: 'hunter2', nested: [{ deeper: { accessToken: 'abc', API_KEY: { id: 1 }, 'x-api-key': 'k' } }] }),
    ).toEqual({ user: 'alice', Password: REDACTED, nested: [{ deeper: { accessToken: REDACTED, API_KEY: REDACTED, 'x-api-key': REDACTED } }] });
  });

  it('leaves keys that do not match, and is unanchored unless the regex says so', () => {
    expect(redactor({ keys: ['^token$'] })({ token: 't', tokens: 3, max_token: 1 })).toEqual({ token: REDACTED, tokens: 3, max_token: 1 });
    expect(redactor({ keys: ['token'] })({ tokens: 3 })).toEqual({ tokens: REDACTED });
  });

  it('never mutates its input', () => {
    const input = { password: 'p', list: [{ secret: 's' }], text: `Bearer ${'a'.repeat(20)}` };
    const copy = structuredClone(input);
    redactor()(input);
    expect(input).toEqual(copy);
  });

  it('keeps a "__proto__" key a plain key', () => {
    const input = JSON.parse('{"__proto__": {"password": "p"}, "a": 1}') as JsonValue;
    const out = redactor()(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"password":"[REDACTED]"},"a":1}');
  });
});

describe('redaction by JSON path', () => {
  const value = {
    credentials: { user: 'u', pin: 1234 },
    items: [{ id: 1, note: 'a' }, { id: 2, note: 'b' }],
    deep: { x: { pin: 9 }, y: [{ pin: 8 }] },
    'odd key': 'v',
  };

  it('redacts every member under $.credentials.*', () => {
    expect(redactor({ keys: [], paths: ['$.credentials.*'] })(value)).toMatchObject({ credentials: { user: REDACTED, pin: REDACTED } });
  });

  it('supports indexes, [*], ..descendants and quoted names', () => {
    const r = redactor({ keys: [], paths: ['$.items[1].note', '$.items[*].id', '$..pin', "$['odd key']"] });
    expect(r(value)).toEqual({
      credentials: { user: 'u', pin: REDACTED },
      items: [{ id: REDACTED, note: 'a' }, { id: REDACTED, note: REDACTED }],
      deep: { x: { pin: REDACTED }, y: [{ pin: REDACTED }] },
      'odd key': REDACTED,
    });
  });

  it('redacts the whole value for $', () => {
    expect(redactor({ paths: ['$'] })(value)).toBe(REDACTED);
  });

  it('reports paths it cannot parse, with their index', () => {
    const compiled = compileRedaction({ keys: ['('], paths: ['$.ok', 'credentials', '$.a[x]'], patterns: [{ kind: 'custom', name: 'c', regex: '[', flags: '' }] });
    expect(compiled.ok).toBe(false);
    if (compiled.ok) return;
    expect(compiled.error.map((i) => i.path)).toEqual(['/keys/0', '/paths/1', '/paths/2', '/patterns/0/regex']);
  });
});

describe('redaction by value pattern', () => {
  const r = redactor({ keys: [] });

  it('redacts JWTs inside any string', () => {
    expect(r({ note: `token is ${JWT} ok` })).toEqual({ note: `token is ${REDACTED} ok` });
  });

  it('redacts bearer and basic credentials but keeps the scheme word', () => {
    expect(r('Authorization: Bearer abcDEF123456-._~+/xyz==')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(r('basic dXNlcjpwYXNzd29yZA==')).toBe(`basic ${REDACTED}`);
  });

  it('redacts AWS access key ids', () => {
    expect(r(['AKIAIOSFODNN7EXAMPLE', 'id ASIAY34FZKBOKMUTVV7A.'])).toEqual([REDACTED, `id ${REDACTED}.`]);
  });

  it('redacts Luhn-valid card numbers, plain or grouped, as strings or numbers', () => {
    expect(r({ a: '4111111111111111', b: 'card 4111 1111 1111 1111 exp', c: '3782-822463-10005', d: 4111111111111111 })).toEqual({
      a: REDACTED,
      b: `card ${REDACTED} exp`,
      c: REDACTED,
      d: REDACTED,
    });
  });

  it('leaves digit runs that fail the Luhn check, timestamps and longer digit runs', () => {
    const untouched = { a: '4111111111111112', b: 'order 5500000000000005', c: 1732939200000, d: '41111111111111111111', e: 4111111111111112 };
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('5500000000000004')).toBe(true);
    expect(r(untouched)).toEqual(untouched);
  });

  it('redacts PEM private key blocks, also when cut off', () => {
    expect(r(`key:\n${PEM}\nend`)).toBe(`key:\n${REDACTED}\nend`);
    expect(r('x -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg')).toBe(`x ${REDACTED}`);
    expect(r('-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----')).toBe('-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----');
  });

  it('applies custom patterns with their flags', () => {
    const custom = redactor({ keys: [], patterns: [{ kind: 'custom', name: 'ticket', regex: 'tkt-[0-9]+', flags: 'i' }] });
    expect(custom('see TKT-42 and tkt-7')).toBe(`see ${REDACTED} and ${REDACTED}`);
  });

  it('is stable across calls (global regexes do not carry state)', () => {
    expect(r([JWT, JWT, JWT])).toEqual([REDACTED, REDACTED, REDACTED]);
    expect(r(JWT)).toBe(REDACTED);
  });
});
