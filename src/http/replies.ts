// Plain replies of the HTTP ring: JSON bodies, empty ones, and JSON-RPC errors with the
// status the one error map gives them (protocol/errors.ts). An error reply made before a call
// existed is a refusal: it carries what was refused, so that the observe layer can account
// for it (span, metrics, audit record) without any stage writing to shared state.
import type { Principal } from '../identity/principal.ts';
import { mapError, type GatewayError } from '../protocol/errors.ts';
import type { JsonObject, RequestId } from '../protocol/message.ts';
import type { Era } from '../protocol/versions.ts';
import type { TextReply } from './http-io.ts';

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

export function jsonResponse(status: number, body: JsonObject | undefined, headers?: Record<string, string>): TextReply {
  return { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
}

/** A reply with no body (202 Accepted, 204 No Content). */
export function emptyReply(status: number): TextReply {
  return { status };
}

export interface ErrorReplyOptions {
  /** The JSON-RPC id to answer, when the request had one that could be read. */
  id?: RequestId;
  /** The era whose rules map the error (upstream codes a 2026-07-28 peer must not see differ). */
  era: Era;
  headers?: Record<string, string>;
}

export function errorResponse(e: GatewayError, o: ErrorReplyOptions): TextReply {
  const { status, error } = mapError(e, o.era === 'modern');
  return jsonResponse(status, { jsonrpc: '2.0', ...(o.id !== undefined ? { id: o.id } : {}), error: error as unknown as JsonObject }, o.headers);
}

/** What a request refused before it became a call is known to be, for its record. */
export interface Refusal {
  error: GatewayError;
  era: Era;
  /** The JSON-RPC method, once the body was parsed; the observe layer names the HTTP request otherwise. */
  method?: string;
  rpcId?: RequestId;
  /** Who was refused, once identity has run. */
  principal?: Principal;
  meta?: JsonObject;
}

export type RefusalReply = TextReply & { readonly refusal: Refusal };

/** When to come back, for errors that know (RFC 9110 Retry-After, in whole seconds). */
export function retryAfterHeader(e: GatewayError): Record<string, string> | undefined {
  return e.kind === 'rate_limited' || e.kind === 'over_capacity' ? { 'retry-after': String(Math.max(1, Math.ceil(e.retryAfterMs / 1000))) } : undefined;
}

/** The error reply of a refused request, tagged with what was refused. */
export function refuse(r: Refusal, extra?: Record<string, string>): RefusalReply {
  const later = retryAfterHeader(r.error);
  const headers = later && extra ? { ...later, ...extra } : (later ?? extra);
  const reply = errorResponse(r.error, { ...(r.rpcId !== undefined ? { id: r.rpcId } : {}), era: r.era, ...(headers ? { headers } : {}) });
  return { ...reply, refusal: r };
}
