// The gateway's own opaque cursors for merged lists (MCP 2026-07-28, server/utilities/pagination). The gateway merges
// whole lists and pages over the result itself, so a cursor carries only the list kind, an
// offset and the version of the list it was cut from:
//
//   base64url(JSON {k, o, v}) + '.' + base64url(HMAC-SHA256(secret, first part)[0..16])
//
// The MAC stops a client from forging offsets or replaying a tools cursor on prompts/list; the
// version detects a list that changed between pages, so the caller can answer -32602 and the
// client restarts from the beginning (MCP 2026-07-28, server/utilities/caching: "if a cursor stops working, drop every cached page").
// Clients must not parse cursors (MCP 2026-07-28, server/utilities/pagination); the payload is readable but carries nothing private.
// An empty cursor "" is valid in the protocol but never issued by us, so it fails to decode.
//
// Left to others: the secret (config/, shared by replicas), mapping an error to -32602.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../audit/canonical-json.ts';
import type { JsonValue } from '../protocol/message.ts';
import { err, ok, type Result } from '../protocol/result.ts';

export interface CursorPayload {
  kind: string;
  offset: number;
  version: string;
}

export interface CursorPosition {
  offset: number;
  version: string;
}

export interface Page<T> {
  page: T[];
  /** Absent on the last page (MCP 2026-07-28, server/utilities/pagination: a missing nextCursor is the end). */
  nextOffset?: number;
}

const MAC_BYTES = 16;
export const MIN_SECRET_BYTES = 16;
/** Far above any cursor we issue; stops parsing of oversized input early. */
const MAX_CURSOR_LENGTH = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const VERSION_HEX_CHARS = 16;

export function encodeCursor(secret: Buffer, payload: CursorPayload): string {
  checkSecret(secret);
  if (!isOffset(payload.offset)) throw new RangeError(`cursor offset must be a non-negative integer, got ${payload.offset}`);
  const body = Buffer.from(JSON.stringify({ k: payload.kind, o: payload.offset, v: payload.version }), 'utf8').toString(
    'base64url',
  );
  return `${body}.${mac(secret, body).toString('base64url')}`;
}

/** Where a client's cursor (or none) starts a page of `size` over `total` items of the list
 * `version`, and the cursor of the page after it; why not, for a -32602, when it does not fit. */
export function cursorWindow(secret: Buffer, kind: string, version: string, total: number, size: number, cursor: unknown): Result<{ offset: number; end: number; nextCursor?: string }, string> {
  let offset = 0;
  if (cursor !== undefined) {
    if (typeof cursor !== 'string') return err('must be a string');
    const pos = decodeCursor(secret, cursor, kind);
    if (!pos.ok) return pos;
    if (pos.value.version !== version) return err('the list changed; start again without a cursor');
    offset = pos.value.offset;
  }
  if (offset > total) return err('past the end of the list');
  const end = offset + size;
  return ok({ offset, end, ...(end < total ? { nextCursor: encodeCursor(secret, { kind, offset: end, version }) } : {}) });
}

export function decodeCursor(secret: Buffer, cursor: string, kind: string): Result<CursorPosition, string> {
  checkSecret(secret);
  if (cursor.length > MAX_CURSOR_LENGTH) return err('cursor too long');
  const parts = cursor.split('.');
  if (parts.length !== 2) return err('malformed cursor');
  const [body, tag] = parts as [string, string];
  if (!BASE64URL.test(body) || !BASE64URL.test(tag)) return err('malformed cursor');

  // Node's base64url decoder ignores trailing bits, so two strings can decode to the same MAC;
  // requiring the canonical spelling makes any changed character a failure.
  const given = Buffer.from(tag, 'base64url');
  if (given.length !== MAC_BYTES || given.toString('base64url') !== tag) return err('malformed cursor');
  if (!timingSafeEqual(given, mac(secret, body))) return err('cursor signature mismatch');

  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return err('malformed cursor');
  }
  if (typeof decoded !== 'object' || decoded === null) return err('malformed cursor');
  const { k, o, v } = decoded as { k?: unknown; o?: unknown; v?: unknown };
  if (k !== kind) return err(`cursor is not for ${kind}`);
  if (!isOffset(o)) return err('cursor offset must be a non-negative integer');
  if (typeof v !== 'string') return err('cursor has no list version');
  return ok({ offset: o, version: v });
}

/** A short digest of the list's canonical JSON (the audit trail's, RFC 8785): equal lists give
 * equal versions whatever the key order of their objects, and any change to an item gives a
 * new one. Items come bounded in depth (deep-items.ts), so the walk cannot fail. */
export function listVersion(items: readonly JsonValue[]): string {
  return createHash('sha256').update(canonicalJson(items), 'utf8').digest('hex').slice(0, VERSION_HEX_CHARS);
}

export function paginate<T>(items: readonly T[], pageSize: number, offset: number): Page<T> {
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
  if (!isOffset(offset)) throw new RangeError(`offset must be a non-negative integer, got ${offset}`);
  const end = offset + pageSize;
  const page = items.slice(offset, end);
  return end < items.length ? { page, nextOffset: end } : { page };
}

function mac(secret: Buffer, body: string): Buffer {
  return createHmac('sha256', secret).update(body, 'utf8').digest().subarray(0, MAC_BYTES);
}

function checkSecret(secret: Buffer): void {
  // A short key is a configuration bug, not a bad request.
  if (secret.length < MIN_SECRET_BYTES) throw new RangeError(`cursor secret must be at least ${MIN_SECRET_BYTES} bytes`);
}

function isOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
