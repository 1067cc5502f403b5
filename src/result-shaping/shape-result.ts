// Holds one tools/call result (MCP 2026-07-28, server/tools: content blocks and
// structuredContent) to its limits. Pure apart from `keep`, which the caller passes in.
//   1. Media: image and audio blocks and embedded resources over maxMediaBytes become
//      resource_link blocks to their kept copy.
//   2. Budget: text blocks and structuredContent together get maxBytes (UTF-8). Over it:
//      `refuse` replaces the result with an isError result naming where it is kept;
//      structuredContent with an outputSchema is never cut (`structured: keep` keeps it whole,
//      `refuse` refuses the result); without one it stays if it fits alone, otherwise it is
//      withheld and kept; text blocks share what is left, in order, cut to a head or a head
//      and a tail, each saying what was cut and where the whole text is.
// A result within its limits comes back as the same object, with no record.
import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { keptResultUri } from './kept-result-uri.ts';
import type { KeptPart } from './result-store.ts';
import type { ShapingLimits } from './shaping-config.ts';
import { headNotice, mediaGoneNotice, mediaLinkDescription, middleNotice, refusedNotice, structuredNotice, type NoticeContext } from './shaping-notices.ts';
import { utf8Slice } from './utf8-slice.ts';

export interface ShapingRecord {
  /** Bytes of text and structured content as the upstream sent them. */
  bytes: number;
  /** The same, as the client received them. */
  sentBytes: number;
  /** Text bytes cut, structured content withheld included. */
  cutBytes?: number;
  /** Ids of the kept copies. */
  kept?: string[];
  /** Media blocks replaced by links. */
  linked?: number;
  refused?: true;
  /** structuredContent with an outputSchema kept whole over the budget. */
  overBudget?: true;
  /** Strings changed by redaction (set by the shaper). */
  redacted?: number;
}

export interface ShapeInput {
  result: JsonObject;
  limits: ShapingLimits;
  hasOutputSchema: boolean;
  keep(part: KeptPart): string | undefined;
  notice: NoticeContext;
}

const JSON_MIME = 'application/json';
const TEXT_MIME = 'text/plain';

/** Media blocks and their size, without decoding base64 unless it must be kept. */
function mediaOf(b: JsonObject): { label: string; size: number; mimeType: string; part: () => KeptPart; name: string } | undefined {
  if ((b.type === 'image' || b.type === 'audio') && typeof b.data === 'string') {
    const data = b.data;
    const mimeType = typeof b.mimeType === 'string' ? b.mimeType : 'application/octet-stream';
    return { label: `an ${b.type === 'image' ? 'image' : 'audio clip'} (${mimeType})`, size: base64Bytes(data), mimeType, name: `${b.type}`, part: () => ({ mimeType, encoding: 'blob', data: Buffer.from(data, 'base64') }) };
  }
  if (b.type === 'resource' && isJsonObject(b.resource)) {
    const r = b.resource;
    const uri = typeof r.uri === 'string' ? r.uri : 'resource';
    const mimeType = typeof r.mimeType === 'string' ? r.mimeType : typeof r.text === 'string' ? TEXT_MIME : 'application/octet-stream';
    if (typeof r.text === 'string') {
      const text = r.text;
      return { label: `the embedded resource ${uri}`, size: Buffer.byteLength(text), mimeType, name: uri, part: () => ({ mimeType, encoding: 'text', data: Buffer.from(text) }) };
    }
    if (typeof r.blob === 'string') {
      const blob = r.blob;
      return { label: `the embedded resource ${uri}`, size: base64Bytes(blob), mimeType, name: uri, part: () => ({ mimeType, encoding: 'blob', data: Buffer.from(blob, 'base64') }) };
    }
  }
  return undefined;
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

const isText = (b: JsonValue): b is JsonObject & { text: string } => isJsonObject(b) && b.type === 'text' && typeof b.text === 'string';

/** Bytes of a result's text blocks and structured content, as the budget counts them. */
export function contentBytes(result: JsonObject): number {
  const blocks: JsonValue[] = Array.isArray(result.content) ? result.content : [];
  const structured = result.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.structuredContent));
  return blocks.reduce<number>((n, b) => n + (isText(b) ? Buffer.byteLength(b.text) : 0), structured);
}

export function shapeResult(input: ShapeInput): { result: JsonObject; bytes: number; record?: ShapingRecord } {
  const { result, limits, notice } = input;
  const content: JsonValue[] = Array.isArray(result.content) ? result.content : [];
  const kept: string[] = [];
  const keep = (part: KeptPart): string | undefined => {
    const id = input.keep(part);
    if (id !== undefined) kept.push(id);
    return id;
  };
  let linked = 0;
  let mediaChanged = false;

  const blocks = content.map((b): JsonValue => {
    if (!isJsonObject(b) || limits.maxMediaBytes === 0) return b;
    const media = mediaOf(b);
    if (!media || media.size <= limits.maxMediaBytes) return b;
    mediaChanged = true;
    const id = keep(media.part());
    if (id === undefined) return { type: 'text', text: mediaGoneNotice(media.label, media.size, limits.maxMediaBytes) };
    linked++;
    return { type: 'resource_link', uri: keptResultUri(id), name: media.name, mimeType: media.mimeType, size: media.size, description: mediaLinkDescription(media.label, media.size, notice) };
  });

  const hasStructured = 'structuredContent' in result && result.structuredContent !== undefined;
  const structuredJson = hasStructured ? JSON.stringify(result.structuredContent) : '';
  const structuredBytes = hasStructured ? Buffer.byteLength(structuredJson) : 0;
  const textBytes = blocks.map((b) => (isText(b) ? Buffer.byteLength(b.text) : 0));
  const bytes = structuredBytes + textBytes.reduce((a, n) => a + n, 0);
  const budget = limits.maxBytes;
  const record = (out: JsonObject, sentBytes: number, extra: Partial<ShapingRecord> = {}): { result: JsonObject; bytes: number; record: ShapingRecord } => ({
    result: out,
    bytes,
    record: { bytes, sentBytes, ...(bytes > sentBytes ? { cutBytes: bytes - sentBytes } : {}), ...(kept.length ? { kept } : {}), ...(linked ? { linked } : {}), ...extra },
  });

  if (budget === 0 || bytes <= budget) return mediaChanged ? record({ ...result, content: blocks }, bytes) : { result, bytes };

  const schemaBound = hasStructured && input.hasOutputSchema;
  if (limits.strategy === 'refuse' || (schemaBound && limits.structured === 'refuse')) {
    const ids = blocks.flatMap((b) => (isText(b) ? [keep({ mimeType: TEXT_MIME, encoding: 'text', data: Buffer.from(b.text) })] : []));
    if (hasStructured) ids.push(keep({ mimeType: JSON_MIME, encoding: 'text', data: Buffer.from(structuredJson) }));
    const { structuredContent: _, ...rest } = result;
    const text = refusedNotice(bytes, budget, ids, notice);
    return record({ ...rest, content: [{ type: 'text', text }], isError: true }, 0, { refused: true });
  }

  let out: JsonObject = result;
  let textBudget = budget;
  let sent = 0;
  let extra: Partial<ShapingRecord> = {};
  const tail: JsonValue[] = [];
  if (hasStructured && (schemaBound || structuredBytes <= budget)) {
    textBudget = Math.max(0, budget - structuredBytes);
    sent += structuredBytes;
    if (structuredBytes > budget) extra = { overBudget: true };
  } else if (hasStructured) {
    const id = keep({ mimeType: JSON_MIME, encoding: 'text', data: Buffer.from(structuredJson) });
    const { structuredContent: _, ...rest } = result;
    out = rest;
    tail.push({ type: 'text', text: structuredNotice(id, structuredBytes, budget) });
  }

  let remaining = textBudget;
  const shaped = blocks.map((b, i): JsonValue => {
    if (!isText(b)) return b;
    const size = textBytes[i]!;
    if (size <= remaining) {
      remaining -= size;
      sent += size;
      return b;
    }
    const buf = Buffer.from(b.text);
    const id = keep({ mimeType: TEXT_MIME, encoding: 'text', data: buf });
    const allowed = remaining;
    remaining = 0;
    if (limits.strategy === 'head+tail' && allowed > 0) {
      const head = utf8Slice(buf, 0, Math.floor(allowed / 2));
      const end = utf8Slice(buf, Math.max(head.end, size - (allowed - (head.end - head.start))), size);
      sent += head.end - head.start + (end.end - end.start);
      return { ...b, text: head.text + middleNotice(id, head.end, end.start, size, notice) + end.text };
    }
    const head = utf8Slice(buf, 0, allowed);
    sent += head.end;
    return { ...b, text: head.text + headNotice(id, head.end, size, notice) };
  });
  return record({ ...out, content: [...shaped, ...tail] }, sent, extra);
}
