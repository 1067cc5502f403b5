// MRTR for 2026-07-28 clients of 2025-11-25 upstreams (README, Protocol eras: bridging): the
// upstream's sampling, elicitation and roots requests during a tools/call, prompts/get or
// resources/read suspend its call (suspended-calls.ts) and reach the client as an
// `input_required` result; the client's retry, carrying the answers and the sealed state,
// continues that same upstream call, and the upstream's result (or its next questions) is
// what the retry gets (MCP 2026-07-28, basic/patterns/mrtr). Nothing new is sent upstream on
// a retry: the answers travel as the JSON-RPC responses to the upstream's own request ids.
import type { Call, Reply } from '../protocol/call.ts';
import type { JsonObject } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import { err, ok } from '../protocol/result.ts';
import type { Upstream } from '../upstream/upstream.ts';
import type { Attached, SuspendedCall, SuspendedCalls } from './suspended-calls.ts';
import { bindingOf, inputRequiredResult, invalidState, MRTR_METHODS } from './suspension-state.ts';

type Sent = { reply: Reply; ms: number };

/** A 2026-07-28 client's call that a non-2026-07-28 upstream may interrupt with a request. */
export function bridgesInput(call: Call, upstream: Upstream): boolean {
  return call.era === 'modern' && MRTR_METHODS.has(call.method) && upstream.status().era !== 'modern';
}

/** `send` runs one upstream call for `call` (its signal, notify and ask replaced). */
export async function sendWithInputBridge(
  suspended: SuspendedCalls,
  call: Call,
  upstream: Upstream,
  params: JsonObject,
  send: (call: Call, params: JsonObject) => Promise<Sent>,
): Promise<Sent> {
  // A 2025-11-25 upstream issues no requestState: one on this call can only be ours.
  const { requestState, inputResponses, ...fresh } = params;
  const binding = bindingOf(call.authContext, call.method, upstream.name, fresh);
  const attached: Attached = { signal: call.signal, notify: call.notify, caps: call.clientCapabilities };
  let sc: SuspendedCall;
  if (requestState !== undefined) {
    if (typeof requestState !== 'string') return { reply: err(invalidState('it must be a string')), ms: 0 };
    const found = suspended.resume(requestState, binding);
    if (!found.ok) return { reply: found, ms: 0 };
    const answered = found.value.answer(isJsonObject(inputResponses) ? inputResponses : undefined);
    if (!answered.ok) return { reply: answered, ms: 0 };
    sc = found.value;
  } else {
    // The suspended call outlives this request: its own signal, not the request's cancellation.
    sc = suspended.start(binding, attached, async (signal, notify, ask) => (await send({ ...call, cancellation: undefined, signal, notify, ask }, fresh)).reply);
  }
  const started = performance.now();
  const step = await sc.next(attached);
  const ms = performance.now() - started;
  return step.kind === 'done' ? { reply: step.reply, ms } : { reply: ok(inputRequiredResult(step.asked, step.requestState)), ms };
}
