// A JSON-RPC message from the text an upstream sent (a JSON body or one SSE event's data),
// parsed once. Empty data is no message and costs nothing: SDK 1.x servers open every SSE
// stream with a priming event whose data is empty (it carries only an id for resumption).
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';

const OPEN_BRACE = 123;

export function parseWireMessage(text: string): JsonRpcMessage | undefined {
  // Anything that is not an object is no message; skip the parse (and the exception) early.
  if (text.length === 0 || (text.charCodeAt(0) !== OPEN_BRACE && !text.trimStart().startsWith('{'))) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isJsonObject(v) ? (v as unknown as JsonRpcMessage) : undefined;
  } catch {
    return undefined;
  }
}

/** A response, to the request `id` when one is given. */
export function isResponseTo(m: JsonRpcMessage, id: RequestId | undefined): m is JsonRpcResponse {
  return !('method' in m) && ('result' in m || 'error' in m) && (id === undefined || (m as JsonRpcResponse).id === id);
}
