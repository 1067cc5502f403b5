// Caps every string of an audit record (values and keys, at any depth) to a byte budget, so
// that no caller can make one record large: a 4 MiB JSON-RPC id, method, tool name, client
// name or header value sent by an anonymous caller that is refused anyway would otherwise
// be written whole, and a few hundred such requests rotate the whole retained history away.
// A cut string keeps its first `maxBytes` bytes of UTF-8 (never half a character) and ends
// with CUT_MARKER_PREFIX + the number of bytes left out + "]", so a reader sees it was cut
// and by how much.
//
// Applied once, in the sink, to every record of every kind: a field added later is capped
// without anyone remembering to. The sink first tries canonicalJsonWithin (canonical-json.ts),
// which checks every string's size in the walk that canonicalization makes anyway, and comes
// here only for a record that has a string to cut. Left alone: the request record's `arguments` and `result`
// (a fixed-size digest by default; `redacted` and `full` are the operator's choice per tool,
// bounded by limits.maxBodyBytes), and numbers, booleans and nulls. Pure; allocates nothing
// when nothing is over budget, which is every record of a well-behaved client.
import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { canonicalRecord, canonicalRecordWithin } from './hash-chain.ts';

export const CUT_MARKER_PREFIX = '…[cut ';

/** Fields of a request record that hold bodies recorded under their own mode. */
const BODY_FIELDS = new Set(['arguments', 'result']);

/** `text` cut to at most `maxBytes` bytes of UTF-8 plus the marker, or `text` itself. */
export function capString(text: string, maxBytes: number): string {
  // Three bytes per UTF-16 unit at most: short strings need no counting.
  if (text.length * 3 <= maxBytes) return text;
  const total = Buffer.byteLength(text, 'utf8');
  if (total <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const code = text.codePointAt(end)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += code >= 0x10000 ? 2 : 1;
  }
  return `${text.slice(0, end)}${CUT_MARKER_PREFIX}${total - bytes} bytes]`;
}

/** The top-level fields of `record` whose strings are not capped: a request record's bodies. */
export function uncappedFields(record: object): ReadonlySet<string> | undefined {
  return (record as { type?: unknown }).type === 'request' ? BODY_FIELDS : undefined;
}

/** The canonical text of `record` with its strings capped, and whether any was cut. One walk
 * when none needs cutting (every record of a well-behaved client). Throws as canonicalRecord. */
export function cappedCanonicalRecord(record: object, maxBytes: number): { text: string; cut: boolean } {
  const within = canonicalRecordWithin(record, maxBytes, uncappedFields(record));
  if (within !== undefined) return { text: within, cut: false };
  const capped = capRecordStrings(record, maxBytes);
  return { text: canonicalRecord(capped), cut: capped !== record };
}

/** The record with every string over `maxBytes` cut; the same object when none is. */
export function capRecordStrings<T extends object>(record: T, maxBytes: number): T {
  const skip = uncappedFields(record);
  if (!objectOver(record as JsonObject, maxBytes, skip)) return record;
  return capObject(record as JsonObject, maxBytes, skip) as T;
}

function over(value: JsonValue | undefined, maxBytes: number): boolean {
  if (typeof value === 'string') return value.length * 3 > maxBytes && Buffer.byteLength(value, 'utf8') > maxBytes;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (over(item, maxBytes)) return true;
    return false;
  }
  return objectOver(value, maxBytes, undefined);
}

function objectOver(value: JsonObject, maxBytes: number, skip: ReadonlySet<string> | undefined): boolean {
  for (const key in value) {
    if (skip?.has(key)) continue;
    if (over(key, maxBytes) || over(value[key], maxBytes)) return true;
  }
  return false;
}

function capValue(value: JsonValue, maxBytes: number): JsonValue {
  if (typeof value === 'string') return capString(value, maxBytes);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => capValue(item, maxBytes));
  return capObject(value, maxBytes, undefined);
}

function capObject(value: JsonObject, maxBytes: number, skip: ReadonlySet<string> | undefined): JsonObject {
  const out: JsonObject = {};
  for (const key in value) {
    const item = value[key];
    if (item === undefined) continue;
    // defineProperty: a "__proto__" key stays a member instead of setting the prototype.
    Object.defineProperty(out, capString(key, maxBytes), { value: skip?.has(key) ? item : capValue(item, maxBytes), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
