// A request the gateway puts to the client that made a call, on that call's own way back
// (a 2025-11-25 client: its SSE stream), and the client's answer. Used for the gateway's own
// approval questions and for what an upstream asks in the middle of a call (MCP 2025-11-25,
// client/sampling, client/elicitation, client/roots). Transport-free: the MCP ring passes it
// down to the upstream ring as a callback.
import type { GatewayError } from './errors.ts';
import type { JsonObject, JsonRpcErrorObject } from './message.ts';
import { isJsonObject } from './message.ts';
import type { Result } from './result.ts';

export type ClientAskMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

export const CLIENT_ASK_METHODS: ReadonlySet<string> = new Set<ClientAskMethod>(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/** Why no result came back: the client answered with a JSON-RPC error, was never asked (it
 * did not declare the capability), or did not answer (timeout, the call was cancelled). */
export type AskFailure =
  | { kind: 'client_error'; error: JsonRpcErrorObject }
  | { kind: 'undeclared'; message: string }
  | { kind: 'unanswered'; message: string };

export type ClientAsk = (method: ClientAskMethod, params: JsonObject, timeoutMs: number) => Promise<Result<JsonObject, AskFailure>>;

/** The capability a client must have declared (2025-11-25 initialize) to be asked `method`. */
export function declaresFor(method: ClientAskMethod, caps: JsonObject): boolean {
  const key = method === 'elicitation/create' ? 'elicitation' : method === 'sampling/createMessage' ? 'sampling' : 'roots';
  return isJsonObject(caps[key]);
}

/** Can the client answer `method` with these params, by what it declared? The same in both
 * eras (MCP 2025-11-25 and 2026-07-28, client/elicitation and client/sampling): form or URL
 * elicitation by mode (an empty `elicitation` is form alone), sampling with tools only under
 * `sampling.tools`, roots. A 2026-07-28 client declares on each request (mrtr, server rule 1). */
export function declaresForRequest(method: ClientAskMethod, params: JsonObject, caps: JsonObject): boolean {
  switch (method) {
    case 'elicitation/create': {
      const e = caps.elicitation;
      if (!isJsonObject(e)) return false;
      if (params.mode === 'url') return isJsonObject(e.url);
      return Object.keys(e).length === 0 || isJsonObject(e.form);
    }
    case 'sampling/createMessage': {
      const s = caps.sampling;
      return isJsonObject(s) && (params.tools === undefined || isJsonObject(s.tools));
    }
    case 'roots/list':
      return isJsonObject(caps.roots);
  }
}

/** An ask that failed, as the gateway's own error for the calling client (approvals). */
export function askFailureError(f: AskFailure): GatewayError {
  return { kind: 'approval_required', message: f.kind === 'client_error' ? `the client could not ask the user: ${f.error.message}` : f.message };
}
