// What the gateway answers a request a 2025-11-25 upstream sends it (MCP 2025-11-25,
// basic/transports: a server may send requests on the stream of a client's POST, or on the
// session's GET stream). A shared upstream session declares all the gateway can relay
// (era-shape.ts initializeParams) and decides per request: one that arrives on the stream of
// a call goes to the client that made that call, if that client declared the capability; one
// on the GET stream of a session that serves one client (`session: perClient`) goes to that
// client's GET stream; anything else (no call to tie it to, a client that cannot answer, a
// method nobody relays) gets a JSON-RPC error at once, so the upstream never waits on a
// question nobody was asked.
import { CLIENT_ASK_METHODS, type ClientAsk, type ClientAskMethod } from '../protocol/client-ask.ts';
import type { JsonObject, JsonRpcRequest } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';

/** JSON-RPC "method not found": what a client without the handler answers (2.0 spec §5.1). */
const METHOD_NOT_FOUND = -32601;
/** The client took the question but gave no answer (timeout, cancelled call): a server error. */
const NO_ANSWER = -32603;

/** The JSON-RPC response (without `jsonrpc`) to send upstream for `r`. `ask` is the calling
 * client's, when the request came on the stream of one of its calls (or, from a stdio
 * upstream, when it can only be one call's: stdio/tied-call.ts); `unasked` says why there is
 * none; `timeoutMs` bounds the wait (the upstream call itself is bounded by the same limit). */
export async function answerServerRequest(r: JsonRpcRequest, ask: ClientAsk | undefined, timeoutMs: number, unasked = "it did not arrive during a client's call"): Promise<JsonObject> {
  if (r.method === 'ping') return { id: r.id, result: {} };
  if (!CLIENT_ASK_METHODS.has(r.method)) return refusal(r, `Gatehouse does not relay ${r.method}`);
  if (!ask) return refusal(r, `Gatehouse cannot relay ${r.method}: ${unasked}`);
  const answer = await ask(r.method as ClientAskMethod, isJsonObject(r.params) ? r.params : {}, timeoutMs);
  if (answer.ok) return { id: r.id, result: answer.value };
  if (answer.error.kind === 'client_error') {
    // The client's own error, relayed as it came (code, message, data).
    const { code, message, data } = answer.error.error;
    return { id: r.id, error: data === undefined ? { code, message } : { code, message, data } };
  }
  return { id: r.id, error: { code: answer.error.kind === 'undeclared' ? METHOD_NOT_FOUND : NO_ANSWER, message: `Gatehouse: ${answer.error.message}` } };
}

function refusal(r: JsonRpcRequest, message: string): JsonObject {
  return { id: r.id, error: { code: METHOD_NOT_FOUND, message } };
}
