// MRTR for legacy clients (README, Protocol eras: bridging): when a modern upstream answers a 2025-11-25
// client's call with `input_required`, the gateway asks the client itself with
// `elicitation/create` on the call's SSE stream (legacy clients that declared elicitation),
// then retries upstream with `inputResponses` keyed as asked and `requestState` copied byte
// for byte. Anything the client cannot answer (sampling, roots, no elicitation) is left as
// is, and the transport answers it with a clear error.
import type { Call, Reply } from '../protocol/call.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { askFailureError } from '../protocol/client-ask.ts';

/** Rounds of asking before the gateway gives up on an upstream that keeps asking. */
const MAX_ROUNDS = 5;
const ANSWER_TIMEOUT_MS = 5 * 60_000;

export async function answerForLegacy(call: Call, first: Reply, retry: (extra: JsonObject) => Promise<Reply>): Promise<Reply> {
  let reply = first;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (!reply.ok || call.era !== 'legacy' || reply.value.resultType !== 'input_required' || !call.ask || !isJsonObject(call.clientCapabilities.elicitation)) return reply;
    const requests = isJsonObject(reply.value.inputRequests) ? reply.value.inputRequests : {};
    const entries = Object.entries(requests);
    if (entries.some(([, r]) => !isJsonObject(r) || r.method !== 'elicitation/create' || !isJsonObject(r.params))) return reply;
    const responses: JsonObject = {};
    for (const [key, r] of entries) {
      const params = (r as JsonObject).params as JsonObject;
      // 2025-11-25 URL elicitation needs an id; the modern era dropped it (README, Protocol eras: bridging).
      const asked = params.mode === 'url' ? { ...params, elicitationId: `gatehouse-${key}` } : params;
      const answer = await call.ask('elicitation/create', asked, ANSWER_TIMEOUT_MS);
      if (!answer.ok) return { ok: false, error: askFailureError(answer.error) };
      const { _meta: _drop, ...plain } = answer.value;
      responses[key] = plain;
    }
    const state = reply.value.requestState;
    reply = await retry({ ...(entries.length ? { inputResponses: responses } : {}), ...(typeof state === 'string' ? { requestState: state } : {}) });
  }
  return reply;
}
