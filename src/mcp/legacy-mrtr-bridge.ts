// MRTR for legacy clients (README, Protocol eras: bridging): when a modern upstream answers a
// 2025-11-25 client's call with `input_required`, the gateway puts each input request to the
// client itself as a real request on the call's SSE stream (`elicitation/create`,
// `sampling/createMessage`, `roots/list`: MCP 2025-11-25 client features), then retries
// upstream with `inputResponses` keyed as asked and `requestState` copied byte for byte
// (MCP 2026-07-28, basic/patterns/mrtr, client rules 1 and 2). A question the client cannot
// answer (it did not declare the capability, or an unknown method) leaves the reply as it
// is, and the transport answers it with a clear error.
import type { Call, Reply } from '../protocol/call.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { askFailureError, CLIENT_ASK_METHODS, declaresFor, type ClientAskMethod } from '../protocol/client-ask.ts';

/** Rounds of asking before the gateway gives up on an upstream that keeps asking. */
const MAX_ROUNDS = 5;
const ANSWER_TIMEOUT_MS = 5 * 60_000;

interface Question {
  key: string;
  method: ClientAskMethod;
  params: JsonObject;
}

/** The input requests as questions this client can be asked, or undefined when one cannot. */
function questionsFor(call: Call, requests: JsonObject): Question[] | undefined {
  const out: Question[] = [];
  for (const [key, r] of Object.entries(requests)) {
    if (!isJsonObject(r) || typeof r.method !== 'string' || !CLIENT_ASK_METHODS.has(r.method)) return undefined;
    const method = r.method as ClientAskMethod;
    if (!declaresFor(method, call.clientCapabilities)) return undefined;
    // roots/list may come without params (mrtr, InputRequests); a legacy request carries {}.
    const params = isJsonObject(r.params) ? r.params : method === 'roots/list' ? {} : undefined;
    if (params === undefined) return undefined;
    // 2025-11-25 URL elicitation needs an id; 2026-07-28 dropped it (README, Protocol eras: bridging).
    out.push({ key, method, params: method === 'elicitation/create' && params.mode === 'url' ? { ...params, elicitationId: `gatehouse-${key}` } : params });
  }
  return out;
}

export async function answerForLegacy(call: Call, first: Reply, retry: (extra: JsonObject) => Promise<Reply>): Promise<Reply> {
  let reply = first;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (!reply.ok || call.era !== 'legacy' || reply.value.resultType !== 'input_required' || !call.ask) return reply;
    const questions = questionsFor(call, isJsonObject(reply.value.inputRequests) ? reply.value.inputRequests : {});
    if (!questions) return reply;
    const responses: JsonObject = {};
    for (const q of questions) {
      const answer = await call.ask(q.method, q.params, ANSWER_TIMEOUT_MS);
      if (!answer.ok) return { ok: false, error: askFailureError(answer.error) };
      // A 2025-11-25 result is a Result; a 2026-07-28 input response is the plain object.
      const { _meta: _drop, ...plain } = answer.value;
      responses[q.key] = plain;
    }
    const state = reply.value.requestState;
    reply = await retry({ ...(questions.length ? { inputResponses: responses } : {}), ...(typeof state === 'string' ? { requestState: state } : {}) });
  }
  return reply;
}
