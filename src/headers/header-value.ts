// Header value encoding shared by `Mcp-Name` and `Mcp-Param-*` (MCP 2026-07-28, basic/transports/streamable-http (header value encoding)).
// A value goes out plain when it is safe printable ASCII, otherwise wrapped in the
// `=?base64?…?=` sentinel. This module only converts values; which header carries which
// value, and comparing header with body, belong to param-headers.ts.
import { type Result, ok, err } from '../protocol/result.ts';

/** Sentinel markers; lower case and case-sensitive (MCP 2026-07-28, basic/transports/streamable-http (header value encoding) rule 3). */
export const BASE64_PREFIX = '=?base64?';
export const BASE64_SUFFIX = '?=';

// Printable ASCII 0x20–0x7E: the only characters a plain value may hold (MCP 2026-07-28, basic/transports/streamable-http (header value encoding) rule 2).
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;
// RFC 9110 §5.6.2: token = 1*tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// RFC 4648 §4 standard alphabet with mandatory `=` padding, whole quanta only.
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// HTTP parsers strip optional whitespace (SP / HTAB) around field values (RFC 9110 §5.5),
// so the receiving side compares after the same trimming (SEP-2243: `Mcp-Name:  foo ` passes).
const SURROUNDING_OWS = /^[ \t]+|[ \t]+$/g;

// `ignoreBOM` keeps a leading U+FEFF so that it survives a round trip; `fatal` turns
// malformed UTF-8 into an exception we report as a rejection (MCP 2026-07-28, basic/transports/streamable-http (header value encoding), "bad Base64 means reject").
const UTF8_DECODER = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** True when `s` is an RFC 9110 field-name token (1*tchar), as `x-mcp-header` values must be. */
export function isHeaderToken(s: string): boolean {
  return TOKEN.test(s);
}

/** True when `s` begins with the sentinel prefix and ends with its suffix (exact case). */
export function looksLikeSentinel(s: string): boolean {
  return s.startsWith(BASE64_PREFIX) && s.endsWith(BASE64_SUFFIX);
}

function isPlainSafe(s: string): boolean {
  if (!PRINTABLE_ASCII.test(s)) return false;
  // Tabs are already excluded by the range check; only spaces remain to test.
  if (s.startsWith(' ') || s.endsWith(' ')) return false;
  return !looksLikeSentinel(s);
}

/**
 * Encodes one header value (MCP 2026-07-28, basic/transports/streamable-http (header value encoding)). Strings are used as they are, integers in decimal, booleans
 * as `true`/`false`. The empty string stays empty (SEP-2243 conformance table).
 *
 * Numbers must be safe integers: callers validate argument values first (param-headers.ts
 * returns an error value for those), so a non-integer here is a bug and throws.
 * A string with lone surrogates cannot be represented in UTF-8; it is encoded with U+FFFD,
 * as every UTF-8 encoder does, and will therefore not compare equal on the far side.
 */
export function encodeHeaderValue(v: string | number | boolean): string {
  let text: string;
  if (typeof v === 'string') {
    text = v;
  } else if (typeof v === 'boolean') {
    text = v ? 'true' : 'false';
  } else {
    if (!Number.isSafeInteger(v)) {
      throw new RangeError(`header value must be a safe integer, got ${String(v)}`);
    }
    // String() of a safe integer is its plain decimal form; -0 becomes "0".
    text = String(v);
  }
  if (isPlainSafe(text)) return text;
  return BASE64_PREFIX + Buffer.from(text, 'utf8').toString('base64') + BASE64_SUFFIX;
}

/**
 * Reads a header value that is never Base64-wrapped (e.g. `MCP-Protocol-Version`,
 * `Mcp-Method`): trims surrounding OWS and rejects characters outside 0x20–0x7E
 * (MCP 2026-07-28, basic/transports/streamable-http (request headers) server validation rule 3, "a header value contains invalid characters").
 */
export function parseLiteralHeaderValue(raw: string): Result<string, string> {
  const value = raw.replace(SURROUNDING_OWS, '');
  if (!PRINTABLE_ASCII.test(value)) {
    return err('invalid characters (only printable ASCII 0x20-0x7E is allowed)');
  }
  return ok(value);
}

/**
 * Decodes a received `Mcp-Name` / `Mcp-Param-*` value (MCP 2026-07-28, basic/transports/streamable-http (header value encoding), "Decoding on the receiving side").
 * Only the exact lower-case sentinel is decoded; `=?BASE64?…?=` and values missing either
 * marker are literal. Base64 is checked strictly (alphabet, padding, canonical trailing
 * bits) and the bytes must be valid UTF-8, because a lenient decoder would let two
 * different header values compare equal to one body value.
 */
export function decodeHeaderValue(raw: string): Result<string, string> {
  const literal = parseLiteralHeaderValue(raw);
  if (!literal.ok) return literal;
  const value = literal.value;
  if (!looksLikeSentinel(value)) return ok(value);
  if (value.length < BASE64_PREFIX.length + BASE64_SUFFIX.length) {
    // e.g. `=?base64?=`: prefix and suffix overlap, so there is no payload to decode.
    return err('malformed Base64 sentinel (prefix and suffix overlap)');
  }
  const payload = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (payload.length % 4 !== 0) {
    return err('invalid Base64: length is not a multiple of 4 (missing or extra padding)');
  }
  if (!STRICT_BASE64.test(payload)) {
    return err('invalid Base64: illegal character or misplaced padding');
  }
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.toString('base64') !== payload) {
    return err('invalid Base64: non-canonical encoding (trailing bits are not zero)');
  }
  try {
    return ok(UTF8_DECODER.decode(bytes));
  } catch {
    return err('invalid Base64: decoded bytes are not valid UTF-8');
  }
}
