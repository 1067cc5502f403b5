// Parses a request body once into a typed JSON-RPC message, or says exactly what is wrong
// (-32700 for bad JSON, -32600 for a bad shape). Batches are not part of either live era.
// When the body is an object whose id is readable, a shape error carries that id: an error
// response may leave the id out only when it could not be read (MCP 2026-07-28, basic/index (messages)).
import type { GatewayError } from './errors.ts';
import { nestsDeeperThan } from './json-depth.ts';
import type { JsonRpcMessage, RequestId } from './message.ts';
import { isJsonObject } from './message.ts';
import { err, ok, type Result } from './result.ts';

export interface ParseFailure {
  error: GatewayError;
  /** The request's id, when the body had a valid one despite the error. */
  id?: RequestId;
}

/** Integers only within ±(2^53 − 1): beyond, JSON.parse has already rounded the number, so
 * the id the gateway would answer with is not the one the client sent, and the client would
 * never match the response to its request. Such ids are refused, never altered. */
function isRequestId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));
}

const BEYOND_SAFE = 'is an integer beyond ±(2^53 − 1), which cannot be kept exact; send it as a string';

/** An integer that JSON.parse may have rounded. */
function isUnsafeInteger(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v);
}

/** `maxDepth` is limits.maxJsonDepth: a message nested deeper is refused here, before any
 * recursive walk (audit digests, redaction, validation, forwarding) could meet it. */
export function parseMessage(text: string, maxDepth: number): Result<JsonRpcMessage, ParseFailure> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return err({ error: { kind: 'parse_error', message: (e as Error).message } });
  }
  const invalid = (message: string, id?: unknown): { ok: false; error: ParseFailure } =>
    err({ error: { kind: 'invalid_request', message }, ...(isRequestId(id) ? { id } : {}) });
  if (nestsDeeperThan(v, maxDepth)) {
    const id = isJsonObject(v) ? v.id : undefined;
    return err({ error: { kind: 'too_deep', limit: maxDepth }, ...(isRequestId(id) ? { id } : {}) });
  }
  if (Array.isArray(v)) return invalid('JSON-RPC batches are not supported; send one message per POST');
  if (!isJsonObject(v)) return invalid('the body must be a JSON-RPC object');
  if (isUnsafeInteger(v.id)) return invalid(`"id" ${BEYOND_SAFE}`);
  if ('id' in v && !isRequestId(v.id)) return invalid('"id" must be a string or an integer');
  if (v.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"', v.id);
  if ('method' in v) {
    if (typeof v.method !== 'string' || v.method === '') return invalid('"method" must be a non-empty string', v.id);
    if ('params' in v && !isJsonObject(v.params)) return invalid('"params" must be an object', v.id);
    // The progress token comes back in every notifications/progress: the same rule as for ids.
    const meta = isJsonObject(v.params) ? v.params._meta : undefined;
    if (isJsonObject(meta) && isUnsafeInteger(meta.progressToken)) return invalid(`"_meta.progressToken" ${BEYOND_SAFE}`, v.id);
    return ok(v as unknown as JsonRpcMessage);
  }
  if ('id' in v && ('result' in v || 'error' in v)) return ok(v as unknown as JsonRpcMessage);
  return invalid('a message needs "method" (request or notification) or "result"/"error" (response)', v.id);
}
