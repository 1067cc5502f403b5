// Parses a request body once into a typed JSON-RPC message, or says exactly what is wrong
// (-32700 for bad JSON, -32600 for a bad shape). Batches are not part of either live era.
import type { GatewayError } from './errors.ts';
import type { JsonRpcMessage } from './message.ts';
import { isJsonObject } from './message.ts';
import { err, ok, type Result } from './result.ts';

export function parseMessage(text: string): Result<JsonRpcMessage, GatewayError> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return err({ kind: 'parse_error', message: (e as Error).message });
  }
  if (Array.isArray(v)) return err({ kind: 'invalid_request', message: 'JSON-RPC batches are not supported; send one message per POST' });
  if (!isJsonObject(v)) return err({ kind: 'invalid_request', message: 'the body must be a JSON-RPC object' });
  if (v.jsonrpc !== '2.0') return err({ kind: 'invalid_request', message: '"jsonrpc" must be "2.0"' });
  const hasId = 'id' in v;
  if (hasId && typeof v.id !== 'string' && !(typeof v.id === 'number' && Number.isInteger(v.id))) {
    return err({ kind: 'invalid_request', message: '"id" must be a string or an integer' });
  }
  if ('method' in v) {
    if (typeof v.method !== 'string' || v.method === '') return err({ kind: 'invalid_request', message: '"method" must be a non-empty string' });
    if ('params' in v && !isJsonObject(v.params)) return err({ kind: 'invalid_request', message: '"params" must be an object' });
    return ok(v as unknown as JsonRpcMessage);
  }
  if (hasId && ('result' in v || 'error' in v)) return ok(v as unknown as JsonRpcMessage);
  return err({ kind: 'invalid_request', message: 'a message needs "method" (request or notification) or "result"/"error" (response)' });
}
