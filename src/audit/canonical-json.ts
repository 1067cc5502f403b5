// Canonical JSON (RFC 8785, JSON Canonicalization Scheme): object keys sorted by UTF-16 code
// units, no whitespace, strings and numbers serialized as ECMAScript JSON.stringify does
// (RFC 8785 sections 3.2.2.2 and 3.2.2.3 adopt exactly that). Digests and the hash chain
// hash this text, so a record hashes the same whatever order its fields were built in, and
// anyone with a JCS library can recompute a hash without Gatehouse.
//
// Input that is not JSON is treated as JSON.stringify would treat it (undefined members
// skipped, undefined array items and non-finite numbers become null, toJSON is called), so
// that canonicalizing a value and canonicalizing its JSON round trip give the same text: the
// writer hashes the first, `audit verify` the second. BigInt and cycles are bugs and throw.

// Deeper than any real record; a cycle reaches it fast, without a per-call visited set.
// What the gateway accepts (limits.maxJsonDepth, at most 256) stays well inside it.
export const CANONICAL_MAX_DEPTH = 512;
const MAX_DEPTH = CANONICAL_MAX_DEPTH;

export function canonicalJson(value: unknown): string {
  // Where every object already lists its keys in canonical order (the pipeline builds its
  // records so), JSON.stringify writes exactly the canonical text, natively and several
  // times faster: its strings, numbers, skipped members and nulls are the rules below.
  if (orderedWithin(value, 0, Infinity)) return JSON.stringify(value) ?? 'null';
  return serialize(value, 0);
}

/** An object JSON.stringify writes member by member: a plain one (or with no prototype) without toJSON. */
function isPlainRecord(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * The canonical text of `value` when every string in it, object keys included, is at most
 * `maxStringBytes` bytes of UTF-8, except under the top-level keys in `unbounded`; undefined
 * when one is longer, or when the value needs the general serializer, so that the caller cuts
 * first (cap-strings.ts) and canonicalizes the result. The common case, a record the pipeline
 * built in canonical order with short strings, costs one walk and JSON.stringify.
 */
export function canonicalJsonWithin(value: object, maxStringBytes: number, unbounded?: ReadonlySet<string>): string | undefined {
  if (Array.isArray(value) || !isPlainRecord(value)) return undefined;
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return undefined;
    previous = key;
    if (overBytes(key, maxStringBytes)) return undefined;
    if (!orderedWithin((value as Record<string, unknown>)[key], 1, unbounded?.has(key) === true ? Infinity : maxStringBytes)) return undefined;
  }
  return JSON.stringify(value);
}

/** A string longer than `maxBytes` bytes of UTF-8; three bytes per UTF-16 unit at most, so
 * short strings need no counting. */
export function overBytes(text: string, maxBytes: number): boolean {
  return text.length * 3 > maxBytes && Buffer.byteLength(text, 'utf8') > maxBytes;
}

/** True when JSON.stringify(value) is the canonical text and every string in it, keys included,
 * is at most `maxBytes` bytes of UTF-8: only plain objects and arrays, each object's keys
 * strictly ascending, no toJSON, no BigInt, not too deep (serialize reports those). One walk,
 * no allocation; with `maxBytes` Infinity no string is measured. */
function orderedWithin(value: unknown, depth: number, maxBytes: number): boolean {
  if (typeof value === 'string') return !overBytes(value, maxBytes);
  if (typeof value !== 'object' || value === null) return typeof value !== 'bigint';
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!orderedWithin(value[i], depth + 1, maxBytes)) return false;
    return true;
  }
  if (!isPlainRecord(value)) return false;
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (overBytes(key, maxBytes) || !orderedWithin((value as Record<string, unknown>)[key], depth + 1, maxBytes)) return false;
  }
  return true;
}

/** What JSON.stringify serializes in place of `value`: toJSON's result, and boxed primitives
 * unboxed (ECMA-262 SerializeJSONProperty steps 2 and 4). */
function jsonValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
    if (value === null || typeof value !== 'object') return value;
  }
  if (value instanceof Number) return Number(value);
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  return value;
}

// String concatenation rather than map/join: this runs on every audit record, in record().
function serialize(value: unknown, depth: number): string {
  return serializeValue(jsonValue(value), depth);
}

/** `value` as jsonValue gave it. */
function serializeValue(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      // ECMAScript Number::toString, which RFC 8785 section 3.2.2.3 adopts: -0 prints as 0.
      // NaN and Infinity are not JSON; JSON.stringify writes null for them, and so does this.
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonicalJson: BigInt is not JSON');
    case 'object':
      break;
    default:
      // undefined, functions, symbols: only reachable at the top level or in arrays.
      return 'null';
  }
  if (value === null) return 'null';
  if (depth >= MAX_DEPTH) throw new TypeError('canonicalJson: cyclic or too deeply nested structure');
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + serialize(value[i], depth + 1);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, the order RFC 8785 section 3.2.3 prescribes.
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    // toJSON first: a member whose toJSON gives undefined is skipped, as JSON.stringify does.
    const member = jsonValue(obj[key]);
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    out += `${first ? '' : ','}${quote(key)}:${serializeValue(member, depth + 1)}`;
    first = false;
  }
  return `${out}}`;
}

// Characters JSON.stringify escapes: quote, backslash, controls, and (ES2019 well-formed
// JSON.stringify) surrogates, which are escaped when lone. Most strings have none, and
// skipping the call for them halves the cost of canonicalizing a record.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}
