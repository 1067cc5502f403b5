import { describe, it, expect } from 'vitest';
import type { HeaderParam } from './annotations.ts';
import { buildParamHeaders, checkParamHeaders, type HeaderLookup } from './param-headers.ts';

const REGION: HeaderParam = { name: 'Region', path: ['region'], type: 'string' };
const SHARD: HeaderParam = { name: 'Shard', path: ['target', 'shard'], type: 'integer' };
const DRY_RUN: HeaderParam = { name: 'Dry-Run', path: ['dryRun'], type: 'boolean' };
const PARAMS = [REGION, SHARD, DRY_RUN];

/** A case-insensitive lookup, as the transport provides. */
function lookup(headers: Record<string, string>): HeaderLookup {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return (name) => lower.get(name.toLowerCase());
}

describe('buildParamHeaders', () => {
  it('mirrors the spec example argument', () => {
    const built = buildParamHeaders([REGION], { region: 'us-west1', query: 'SELECT 1' });
    expect(built).toEqual({ ok: true, value: { 'Mcp-Param-Region': 'us-west1' } });
  });

  it('encodes strings, nested integers and booleans', () => {
    const args = { region: 'Hello, 世界', target: { shard: -7 }, dryRun: false };
    expect(buildParamHeaders(PARAMS, args)).toEqual({
      ok: true,
      value: { 'Mcp-Param-Region': '=?base64?SGVsbG8sIOS4lueVjA==?=', 'Mcp-Param-Shard': '-7', 'Mcp-Param-Dry-Run': 'false' },
    });
  });

  it('omits headers for absent and null arguments', () => {
    expect(buildParamHeaders(PARAMS, { region: null, target: {} })).toEqual({ ok: true, value: {} });
    expect(buildParamHeaders(PARAMS, { target: null })).toEqual({ ok: true, value: {} });
    expect(buildParamHeaders(PARAMS, { target: 'not an object' })).toEqual({ ok: true, value: {} });
    expect(buildParamHeaders(PARAMS, undefined)).toEqual({ ok: true, value: {} });
  });

  it('does not read inherited properties', () => {
    const proto: HeaderParam = { name: 'P', path: ['constructor'], type: 'string' };
    expect(buildParamHeaders([proto], {})).toEqual({ ok: true, value: {} });
  });

  it('sends the empty string as an empty header', () => {
    expect(buildParamHeaders([REGION], { region: '' })).toEqual({ ok: true, value: { 'Mcp-Param-Region': '' } });
  });

  it('accepts the limits of the safe integer range', () => {
    expect(buildParamHeaders([SHARD], { target: { shard: 9007199254740991 } })).toEqual({ ok: true, value: { 'Mcp-Param-Shard': '9007199254740991' } });
    expect(buildParamHeaders([SHARD], { target: { shard: -9007199254740991 } })).toEqual({ ok: true, value: { 'Mcp-Param-Shard': '-9007199254740991' } });
    expect(buildParamHeaders([SHARD], { target: { shard: 0 } })).toEqual({ ok: true, value: { 'Mcp-Param-Shard': '0' } });
  });

  it('rejects integers beyond the safe range and non-integers', () => {
    expect(buildParamHeaders([SHARD], { target: { shard: 9007199254740992 } })).toEqual({
      ok: false,
      error: 'argument target.shard for Mcp-Param-Shard must be an integer within ±(2^53-1), got 9007199254740992',
    });
    expect(buildParamHeaders([SHARD], { target: { shard: 1.5 } })).toEqual({
      ok: false,
      error: 'argument target.shard for Mcp-Param-Shard must be an integer within ±(2^53-1), got 1.5',
    });
  });

  it('rejects values of the wrong type', () => {
    expect(buildParamHeaders([REGION], { region: 5 })).toEqual({ ok: false, error: 'argument region for Mcp-Param-Region must be a string, got 5' });
    expect(buildParamHeaders([DRY_RUN], { dryRun: 'true' })).toEqual({ ok: false, error: 'argument dryRun for Mcp-Param-Dry-Run must be a boolean, got "true"' });
    expect(buildParamHeaders([SHARD], { target: { shard: '42' } })).toEqual({
      ok: false,
      error: 'argument target.shard for Mcp-Param-Shard must be an integer within ±(2^53-1), got "42"',
    });
  });
});

describe('checkParamHeaders', () => {
  const args = { region: 'us-west1', target: { shard: 42 }, dryRun: true };
  const good = { 'mcp-param-region': 'us-west1', 'MCP-PARAM-SHARD': '42', 'Mcp-Param-Dry-Run': 'true' };

  it('returns the typed values keyed by header name when headers match the body', () => {
    const typed = { 'Mcp-Param-Region': 'us-west1', 'Mcp-Param-Shard': 42, 'Mcp-Param-Dry-Run': true };
    expect(checkParamHeaders(PARAMS, args, lookup(good))).toEqual({ ok: true, value: typed });
  });

  it('rejects a missing header for a present argument', () => {
    const { 'MCP-PARAM-SHARD': _omitted, ...rest } = good;
    expect(checkParamHeaders(PARAMS, args, lookup(rest))).toEqual({ ok: false, error: 'missing header Mcp-Param-Shard for argument target.shard' });
  });

  it('rejects a string mismatch, including case differences', () => {
    expect(checkParamHeaders([REGION], args, lookup({ 'Mcp-Param-Region': 'US-WEST1' }))).toEqual({
      ok: false,
      error: "Mcp-Param-Region header value 'US-WEST1' does not match body value 'us-west1'",
    });
  });

  it('does not expect headers for absent or null arguments', () => {
    expect(checkParamHeaders(PARAMS, { region: null }, lookup({}))).toEqual({ ok: true, value: {} });
  });

  it('rejects a header sent for an absent or null argument', () => {
    expect(checkParamHeaders([REGION], { region: null }, lookup({ 'Mcp-Param-Region': 'us-west1' }))).toEqual({
      ok: false,
      error: 'Mcp-Param-Region header is present but argument region is absent or null',
    });
    expect(checkParamHeaders([SHARD], {}, lookup({ 'Mcp-Param-Shard': '1' }))).toEqual({
      ok: false,
      error: 'Mcp-Param-Shard header is present but argument target.shard is absent or null',
    });
  });

  it('decodes Base64-sentinel values before comparing', () => {
    const body = { region: ' padded ' };
    const wrapped = lookup({ 'Mcp-Param-Region': '=?base64?IHBhZGRlZCA=?=' });
    expect(checkParamHeaders([REGION], body, wrapped)).toEqual({ ok: true, value: { 'Mcp-Param-Region': ' padded ' } });
  });

  it.each([
    ['42', 42],
    ['42.0', 42],
    ['042', 42],
    ['+42', 42],
    ['-0', 0],
    ['-7', -7],
    ['9007199254740991', 9007199254740991],
    ['=?base64?NDI=?=', 42],
  ])('accepts integer header %j for body %j (numeric comparison)', (header, shard) => {
    const result = checkParamHeaders([SHARD], { target: { shard } }, lookup({ 'Mcp-Param-Shard': header }));
    expect(result).toEqual({ ok: true, value: { 'Mcp-Param-Shard': shard } });
  });

  it.each([
    ['42.5', 42],
    ['7', -7],
    ['9007199254740993', 9007199254740991],
  ])('rejects integer header %j for body %j', (header, shard) => {
    const result = checkParamHeaders([SHARD], { target: { shard } }, lookup({ 'Mcp-Param-Shard': header }));
    expect(result).toEqual({ ok: false, error: `Mcp-Param-Shard header value '${header}' does not match body value '${shard}'` });
  });

  it('rejects a non-numeric header for an integer argument', () => {
    const check = (header: string) => checkParamHeaders([SHARD], { target: { shard: 42 } }, lookup({ 'Mcp-Param-Shard': header }));
    expect(check('forty-two')).toEqual({ ok: false, error: "Mcp-Param-Shard header value 'forty-two' is not a decimal integer" });
    expect(check('4.2e1')).toEqual({ ok: false, error: "Mcp-Param-Shard header value '4.2e1' is not a decimal integer" });
    expect(check('')).toEqual({ ok: false, error: "Mcp-Param-Shard header value '' is not a decimal integer" });
  });

  it('rejects a body integer outside the safe range', () => {
    expect(checkParamHeaders([SHARD], { target: { shard: 2 ** 53 } }, lookup({ 'Mcp-Param-Shard': '9007199254740992' }))).toEqual({
      ok: false,
      error: 'argument target.shard for Mcp-Param-Shard must be an integer within ±(2^53-1), got 9007199254740992',
    });
  });

  it('compares booleans as exactly true or false', () => {
    const check = (header: string, dryRun: boolean) => checkParamHeaders([DRY_RUN], { dryRun }, lookup({ 'Mcp-Param-Dry-Run': header }));
    expect(check('false', false)).toEqual({ ok: true, value: { 'Mcp-Param-Dry-Run': false } });
    expect(check('false', true)).toEqual({ ok: false, error: "Mcp-Param-Dry-Run header value 'false' does not match body value 'true'" });
    expect(check('TRUE', true)).toEqual({ ok: false, error: "Mcp-Param-Dry-Run header value 'TRUE' is not true or false" });
    expect(check('1', true)).toEqual({ ok: false, error: "Mcp-Param-Dry-Run header value '1' is not true or false" });
  });

  it('rejects a header with control characters', () => {
    expect(checkParamHeaders([REGION], { region: 'a\u0001b' }, lookup({ 'Mcp-Param-Region': 'a\u0001b' }))).toEqual({
      ok: false,
      error: 'Mcp-Param-Region header: invalid characters (only printable ASCII 0x20-0x7E is allowed)',
    });
  });

  it('rejects a header with bad Base64', () => {
    expect(checkParamHeaders([REGION], args, lookup({ 'Mcp-Param-Region': '=?base64?dXMtd2VzdDE?=' }))).toEqual({
      ok: false,
      error: 'Mcp-Param-Region header: invalid Base64: length is not a multiple of 4 (missing or extra padding)',
    });
  });

  it('rejects a body value whose type contradicts the annotation', () => {
    const result = checkParamHeaders([REGION], { region: 5 }, lookup({ 'Mcp-Param-Region': '5' }));
    expect(result).toEqual({ ok: false, error: 'argument region for Mcp-Param-Region must be a string, got 5' });
  });

  it('ignores Mcp-Param headers that no annotation declares', () => {
    const extra = lookup({ ...good, 'Mcp-Param-Other': 'x' });
    expect(checkParamHeaders([REGION], args, extra)).toEqual({ ok: true, value: { 'Mcp-Param-Region': 'us-west1' } });
  });

  it('accepts what buildParamHeaders produces for awkward values', () => {
    const body = { region: '=?base64?literal?=', target: { shard: -9007199254740991 }, dryRun: false };
    const built = buildParamHeaders(PARAMS, body);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.value['Mcp-Param-Region']).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
    expect(checkParamHeaders(PARAMS, body, lookup(built.value))).toEqual({
      ok: true,
      value: { 'Mcp-Param-Region': '=?base64?literal?=', 'Mcp-Param-Shard': -9007199254740991, 'Mcp-Param-Dry-Run': false },
    });
  });
});
